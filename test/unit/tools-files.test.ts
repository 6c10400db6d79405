import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { editFile } from '../../src/activities/tools/builtin/edit-file';
import { listDir } from '../../src/activities/tools/builtin/list-dir';
import { readFile } from '../../src/activities/tools/builtin/read-file';
import { search } from '../../src/activities/tools/builtin/search';
import { writeFile } from '../../src/activities/tools/builtin/write-file';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

function bigFile(lines: number): string {
  const parts: string[] = [];
  for (let index = 1; index <= lines; index += 1) {
    parts.push(index % 100 === 1 ? `section ${index}:` : `    detail ${index}`);
  }
  return `${parts.join('\n')}\n`;
}

test('read_file returns numbered lines of a small file', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'one\ntwo\n' });
  const outcome = await readFile({ path: 'a.txt' }, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.equal(outcome.content, '1\tone\n2\ttwo');
  assert.deepEqual(outcome.facts, { bytes: 8, truncated: false, emptyOutput: false });
});

test('read_file on a huge file returns an outline and offset/limit candidates', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'big.txt': bigFile(5000) });
  const outcome = await readFile({ path: 'big.txt' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /too large to read whole: 5000 lines/);
  assert.match(outcome.content, /^101\tsection 101:$/m);
  assert.match(outcome.content, /^4901\tsection 4901:$/m);
  assert.doesNotMatch(outcome.content, /detail/);
  assert.equal(outcome.facts.truncated, true);
  assert.ok(outcome.candidates.length >= 2 && outcome.candidates.length <= 3);
  assert.match(outcome.candidates[0] ?? '', /read_file \{"path":"big\.txt","offset":1,"limit":200\}/);
  assert.match(outcome.candidates[1] ?? '', /"offset":\d+/);
});

test('read_file with offset/limit returns that range and says where to continue', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'big.txt': bigFile(5000) });
  const outcome = await readFile({ path: 'big.txt', offset: 101, limit: 3 }, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.equal(
    outcome.content,
    'Lines 101-103 of 5000 in big.txt:\n101\tsection 101:\n102\t    detail 102\n103\t    detail 103\n(more lines follow: continue with offset 104)',
  );
  assert.equal(outcome.facts.truncated, true);
});

test('read_file offset past the end fails with candidates', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'one\ntwo\n' });
  const outcome = await readFile({ path: 'a.txt', offset: 10 }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /past the end of a\.txt, which has 2 lines/);
  assert.ok(outcome.candidates.length >= 2);
});

test('read_file on a missing file suggests list_dir of the parent and looking for the name', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/other.ts': 'x' });
  const outcome = await readFile({ path: 'src/missing.ts' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /No such file: "src\/missing\.ts"/);
  assert.match(outcome.candidates[0] ?? '', /list_dir \{"path":"src"\}/);
  assert.match(outcome.candidates.join('\n'), /find \. -name 'missing\.ts'/);
  assert.match(outcome.candidates.join('\n'), /search \{"pattern":"missing\\\\\.ts"\}/);
});

test('read_file on a directory or a binary file fails with candidates', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'dir/x.txt': 'x', 'image.bin': 'PNG\0\0\0data' });
  const directory = await readFile({ path: 'dir' }, toolContext(workspace));
  assert.equal(directory.ok, false);
  assert.match(directory.candidates[0] ?? '', /list_dir \{"path":"dir"\}/);
  const binary = await readFile({ path: 'image.bin' }, toolContext(workspace));
  assert.equal(binary.ok, false);
  assert.match(binary.content, /looks binary/);
  assert.ok(binary.candidates.length >= 2);
});

test('read_file refuses a symlink pointing outside', async () => {
  const outside = makeWorkspace('keel-outside-');
  writeFiles(outside, { 'secret.txt': 'top secret' });
  const workspace = makeWorkspace();
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'secret.txt'));
  const outcome = await readFile({ path: 'secret.txt' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.doesNotMatch(outcome.content, /top secret/);
});

test('list_dir lists directories, files with sizes and links', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'hello', 'README.md': 'abc' });
  symlinkSync('src/app.ts', path.join(workspace, 'app-link'));
  const outcome = await listDir({}, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.equal(outcome.content, '. (3 entries):\nREADME.md (3 bytes)\napp-link -> src/app.ts\nsrc/');
  assert.equal(outcome.facts.emptyOutput, false);
});

test('list_dir failures: missing directory, a file', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'hello' });
  const missing = await listDir({ path: 'src/nope' }, toolContext(workspace));
  assert.equal(missing.ok, false);
  assert.match(missing.candidates[0] ?? '', /list_dir \{"path":"src"\}/);
  const file = await listDir({ path: 'src/app.ts' }, toolContext(workspace));
  assert.equal(file.ok, false);
  assert.match(file.candidates[0] ?? '', /read_file \{"path":"src\/app\.ts"\}/);
  assert.ok(file.candidates.length >= 2);
});

test('search finds matching lines with paths and counts them', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, {
    'src/a.ts': 'const parseConfig = 1;\nother\n',
    'src/b.ts': 'parseConfig();\n',
    'node_modules/lib/index.js': 'parseConfig',
  });
  const outcome = await search({ pattern: 'parse(Config|Options)' }, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.equal(outcome.facts.matchCount, 2);
  assert.match(outcome.content, /^src\/a\.ts:1: const parseConfig = 1;$/m);
  assert.match(outcome.content, /^src\/b\.ts:1: parseConfig\(\);$/m);
  assert.doesNotMatch(outcome.content, /node_modules/);
  const limited = await search({ pattern: 'parse', maxResults: 1 }, toolContext(workspace));
  assert.equal(limited.facts.matchCount, 2);
  assert.equal(limited.facts.truncated, true);
});

test('search with zero matches suggests a wider pattern, another path and ignoring case', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/a.ts': 'const ParseConfig = 1;\n' });
  const outcome = await search({ pattern: 'parseConfig\\(', path: 'src' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.equal(outcome.facts.matchCount, 0);
  assert.match(outcome.content, /No lines match/);
  assert.equal(outcome.candidates.length, 3);
  assert.match(outcome.candidates[0] ?? '', /"pattern":"parseConfig"/);
  assert.match(outcome.candidates[1] ?? '', /"path":"\."/);
  assert.match(outcome.candidates[2] ?? '', /"caseInsensitive":true/);
  const insensitive = await search({ pattern: 'parseconfig', caseInsensitive: true }, toolContext(workspace));
  assert.equal(insensitive.facts.matchCount, 1);
});

test('search with an invalid regex fails with a literal-search candidate', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.ts': 'call(x\n' });
  const outcome = await search({ pattern: 'call(' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /Invalid regular expression/);
  assert.match(outcome.candidates[0] ?? '', /"pattern":"call\\\\\("/);
  const literal = await search({ pattern: 'call\\(' }, toolContext(workspace));
  assert.equal(literal.facts.matchCount, 1);
});

test('search runs in linear time: a catastrophic pattern on long lines answers at once and right', async () => {
  const workspace = makeWorkspace();
  // (a+)+$ against "aaa…ab" backtracks exponentially in RegExp: 2^27 steps, tens of seconds of a
  // blocked event loop here (sized so a regression fails this test rather than hanging the suite).
  writeFiles(workspace, { 'long.txt': `${'a'.repeat(27)}b\nend aaa\n` });
  let longestGapMs = 0;
  let last = Date.now();
  const timer = setInterval(() => {
    longestGapMs = Math.max(longestGapMs, Date.now() - last);
    last = Date.now();
  }, 5);
  try {
    for (const [pattern, matches] of [
      ['(a+)+$', 1], // only "end aaa" ends with an a
      ['(a|aa)+$', 1],
      ['(.*a){25}', 1], // the long line has 25 a's
      ['(a*)*c', 0],
      ['^(a|aa)+$', 0], // no line is all a's
    ] as const) {
      const outcome = await search({ pattern }, toolContext(workspace));
      assert.equal(outcome.facts.matchCount, matches, pattern);
    }
  } finally {
    clearInterval(timer);
  }
  // Not a timing target: a backtracking engine stalls for many seconds here, RE2 for a few
  // milliseconds, so even a loaded machine separates the two.
  assert.ok(longestGapMs < 5_000, `the event loop stalled for ${longestGapMs} ms`);
});

test('search refuses what RE2 cannot run in linear time (backreferences, lookaround) and says why', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.ts': 'abab\n' });
  for (const pattern of ['(ab)\\1', 'a(?=b)', '(?<!x)b']) {
    const outcome = await search({ pattern }, toolContext(workspace));
    assert.equal(outcome.ok, false, pattern);
    assert.match(outcome.content, /Invalid regular expression/, pattern);
    assert.match(
      outcome.candidates.join('\n'),
      /backreferences .* and lookaround .* are not supported/,
      pattern,
    );
  }
});

test('write_file creates a new file in new directories, then replaces it', async () => {
  const workspace = makeWorkspace();
  const created = await writeFile({ path: 'out/deep/new.txt', content: 'héllo' }, toolContext(workspace));
  assert.equal(created.ok, true);
  assert.equal(readFileSync(path.join(workspace, 'out/deep/new.txt'), 'utf8'), 'héllo');
  const { stateDigest: createdState, ...createdEffects } = created.effects ?? {};
  assert.deepEqual(createdEffects, { created: ['out/deep/new.txt'], modified: [], deleted: [] });
  assert.equal(created.facts.bytes, 6);
  const replaced = await writeFile({ path: 'out/deep/new.txt', content: 'bye' }, toolContext(workspace));
  const { stateDigest: replacedState, ...replacedEffects } = replaced.effects ?? {};
  assert.deepEqual(replacedEffects, { created: [], modified: ['out/deep/new.txt'], deleted: [] });
  // the state digest tells the two contents apart, and the first content again from the second
  assert.match(createdState ?? '', /^[0-9a-f]{16}$/);
  assert.notEqual(replacedState, createdState);
  const back = await writeFile({ path: 'out/deep/new.txt', content: 'héllo' }, toolContext(workspace));
  assert.equal(back.effects?.stateDigest, createdState);
  const directory = await writeFile({ path: 'out', content: 'x' }, toolContext(workspace));
  assert.equal(directory.ok, false);
  assert.ok(directory.candidates.length >= 2);
});

test('write_file refuses to write through a symlinked directory pointing outside', async () => {
  const outside = makeWorkspace('keel-outside-');
  const workspace = makeWorkspace();
  symlinkSync(outside, path.join(workspace, 'escape'));
  const outcome = await writeFile({ path: 'escape/planted.txt', content: 'x' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.throws(() => readFileSync(path.join(outside, 'planted.txt')));
});

test('edit_file replaces exactly one occurrence', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.ts': 'const a = 1;\nconst b = 2;\n' });
  const outcome = await editFile(
    { path: 'a.ts', oldString: 'const b = 2;', newString: 'const b = "$&";' },
    toolContext(workspace),
  );
  assert.equal(outcome.ok, true);
  assert.match(outcome.content, /line 2/);
  assert.equal(readFileSync(path.join(workspace, 'a.ts'), 'utf8'), 'const a = 1;\nconst b = "$&";\n');
  const { stateDigest, ...effects } = outcome.effects ?? {};
  assert.deepEqual(effects, { created: [], modified: ['a.ts'], deleted: [] });
  // the same content written whole has the same state: edits and writes compare
  const rewritten = await writeFile(
    { path: 'a.ts', content: 'const a = 1;\nconst b = "$&";\n' },
    toolContext(workspace),
  );
  assert.equal(rewritten.ok, true);
  assert.equal(outcome.facts.matchCount, 1);
  const again = await editFile({ path: 'a.ts', oldString: '"$&"', newString: '3' }, toolContext(workspace));
  assert.notEqual(again.effects?.stateDigest, stateDigest);
  const undone = await editFile(
    { path: 'a.ts', oldString: '= 3;', newString: '= "$&";' },
    toolContext(workspace),
  );
  assert.equal(undone.effects?.stateDigest, stateDigest);
});

test('edit_file with zero matches changes nothing and points at the drifted text', async () => {
  const workspace = makeWorkspace();
  const original = 'function run() {\n  return 1;\n}\n';
  writeFiles(workspace, { 'a.ts': original });
  const outcome = await editFile(
    { path: 'a.ts', oldString: 'function run() {\n    return 1;', newString: 'x' },
    toolContext(workspace),
  );
  assert.equal(outcome.ok, false);
  assert.equal(outcome.facts.matchCount, 0);
  assert.match(outcome.content, /not found/);
  assert.match(outcome.content, /first line occurs at line 1/);
  assert.match(outcome.candidates[0] ?? '', /read_file \{"path":"a\.ts","offset":1/);
  assert.equal(outcome.candidates.length, 3);
  assert.equal(readFileSync(path.join(workspace, 'a.ts'), 'utf8'), original);
});

test('edit_file with two matches says how many and where, and changes nothing', async () => {
  const workspace = makeWorkspace();
  const original = 'x = 1;\ny = 2;\nx = 1;\n';
  writeFiles(workspace, { 'a.ts': original });
  const outcome = await editFile(
    { path: 'a.ts', oldString: 'x = 1;', newString: 'x = 3;' },
    toolContext(workspace),
  );
  assert.equal(outcome.ok, false);
  assert.equal(outcome.facts.matchCount, 2);
  assert.match(outcome.content, /occurs 2 times in a\.ts \(at lines 1, 3\)/);
  assert.equal(outcome.candidates.length, 3);
  assert.match(outcome.candidates[2] ?? '', /longer/);
  assert.equal(readFileSync(path.join(workspace, 'a.ts'), 'utf8'), original);
});

test('edit_file on a missing file suggests looking around', async () => {
  const workspace = makeWorkspace();
  const outcome = await editFile({ path: 'nope.ts', oldString: 'a', newString: 'b' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.match(outcome.candidates[0] ?? '', /list_dir \{"path":"\."\}/);
});
