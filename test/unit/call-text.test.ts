import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callText, visibleJson, visibleText } from '../../src/workflows/tools/call-text';

test('a command is shown verbatim, and whole however long', () => {
  assert.equal(callText({ command: 'rm -rf build' }), 'rm -rf build');
  const long = `echo "${'a'.repeat(5_000)}" ; rm -rf src`;
  assert.equal(callText({ command: long }), long);
  assert.equal(callText({ command: `ls\n\tcat "a b"` }), `ls\n\tcat "a b"`);
});

test('the rest of a command call follows it on a comment line, hypothesis included', () => {
  assert.equal(
    callText({ command: 'make deploy', timeoutSeconds: 30, hypothesis: 'it deploys' }),
    'make deploy\n# other input: {"timeoutSeconds":30,"hypothesis":"it deploys"}',
  );
});

test('any other input is indented JSON in the order given', () => {
  assert.equal(
    callText({ path: 'notes.txt', content: 'one\ntwo', flags: [1] }),
    '{\n  "path": "notes.txt",\n  "content": "one\\ntwo",\n  "flags": [\n    1\n  ]\n}',
  );
  assert.equal(callText({ command: 3 }), '{\n  "command": 3\n}');
  assert.equal(callText(undefined), 'undefined');
  assert.equal(callText('text'), '"text"');
});

test('controls are escaped: a carriage return or an escape sequence cannot redraw the line', () => {
  assert.equal(callText({ command: 'echo ok\r\x1b[2Krm -rf src' }), 'echo ok\\r\\x1b[2Krm -rf src');
  assert.equal(visibleText('a\bb\0c\x7fd\u0085e'), 'a\\u0008b\\u0000c\\u007Fd\\u0085e');
});

test('bidi controls, zero-width and other format characters are shown as \\u{…}', () => {
  // U+202E would show "rm -rf src" reversed; U+2066..U+2069 isolate and reorder too.
  assert.equal(visibleText('echo \u202Ecrs fr- mr'), 'echo \\u{202E}crs fr- mr');
  for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069]) {
    const character = String.fromCodePoint(code);
    assert.equal(visibleText(`a${character}b`), `a\\u{${code.toString(16).toUpperCase()}}b`);
  }
  assert.equal(
    visibleText('r\u200Bm\u200C \u200D-\u2060r\uFEFFf'),
    'r\\u{200B}m\\u{200C} \\u{200D}-\\u{2060}r\\u{FEFF}f',
  );
  // Other Cf: soft hyphen, Arabic letter mark, a tag character (outside the BMP), and an
  // interlinear annotation anchor (format, though not default-ignorable: some renderers hide
  // the text it anchors).
  assert.equal(visibleText('a\u00ADb\u061Cc\u{E0041}d'), 'a\\u{AD}b\\u{61C}c\\u{E0041}d');
  assert.equal(visibleText('a\uFFF9b\uFFFBc'), 'a\\u{FFF9}b\\u{FFFB}c');
});

test('look-alike spaces and invisible fillers are shown too', () => {
  // A no-break space is no word break to a shell; a Hangul filler draws nothing.
  assert.equal(visibleText('rm -rf\u00A0src\u3164\u2028x'), 'rm -rf\\u{A0}src\\u{3164}\\u{2028}x');
});

test('a long run of blanks is shown as its count, so it cannot push the rest out of view', () => {
  const hidden = `echo "${'harmless '.repeat(11)}"${' '.repeat(200)}; rm -rf src`;
  assert.equal(callText({ command: hidden }), `echo "${'harmless '.repeat(11)}"⟨200 spaces⟩; rm -rf src`);
  assert.equal(visibleText(`a${' '.repeat(16)}b`), `a${' '.repeat(16)}b`, 'short runs stay');
  assert.equal(visibleText(`a\t\t\tb`), 'a⟨3 tabs⟩b', 'a tab is 8 columns');
  assert.equal(visibleText(`a \t\tb`), 'a⟨1 space and 2 tabs⟩b');
});

test('the marks keel writes cannot be forged by the text', () => {
  assert.equal(visibleText('⟨200 spaces⟩ ↪'), '\\u{27E8}200 spaces\\u{27E9} \\u{21AA}');
});

test('one line: newlines and tabs are escaped as well', () => {
  assert.equal(visibleText('ls\n\trm -rf src', { oneLine: true }), 'ls\\n\\trm -rf src');
  assert.equal(visibleText('ls\n\trm'), 'ls\n\trm');
});

test('escaping is the only change: printable text, quotes and backslashes stay as typed', () => {
  const command = `printf '%s\\n' "ünïcødé 日本 ✓" | grep -E '^\\w+$' > out.txt`;
  assert.equal(callText({ command }), command);
});

test('visible JSON parses to the same value and shows every hidden character', () => {
  const value = { command: 'a\u202Eb\u0085c\u{E0041}\u00A0\x1b', list: ['⟨x⟩'] };
  const json = visibleJson(value);
  assert.deepEqual(JSON.parse(json), value);
  assert.match(json, /"a\\u202Eb\\u0085c\\uDB40\\uDC41\\u00A0\\u001b"/);
  assert.doesNotMatch(json, /[\u202E\u0085\u00A0]/);
});
