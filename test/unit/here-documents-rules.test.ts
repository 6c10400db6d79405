import { test } from 'node:test';
import assert from 'node:assert/strict';
import { separateHereDocuments } from '../../src/workflows/tools/here-documents';

/**
 * sh's here-documents taken out of a command line (src/workflows/tools/here-documents.ts): the
 * mark and its delimiter leave the line, the lines up to the delimiter are the document, and the
 * rest of the command stays. Each rule is sh's (dash and bash agree on all of them).
 */

test('a here-document: its mark and delimiter leave the line, its lines up to the delimiter are its body', () => {
  assert.deepEqual(
    separateHereDocuments("cat > fix.py << 'EOF'\nimport sys\nprint(1)\nEOF\npython3 fix.py"),
    {
      command: 'cat > fix.py \npython3 fix.py',
      documents: [{ line: 'cat > fix.py ', body: 'import sys\nprint(1)' }],
    },
  );
});

test('the delimiter is the word after << with its quotes removed: EOF, "EOF", \\EOF and E"O"F close at EOF', () => {
  for (const word of ['EOF', "'EOF'", '"EOF"', '\\EOF', 'E"O"F', "'E'OF"]) {
    assert.deepEqual(
      separateHereDocuments(`cat <<${word}\nbody\nEOF\nls`),
      {
        command: 'cat \nls',
        documents: [{ line: 'cat ', body: 'body' }],
      },
      word,
    );
  }
});

test('a line closes the document only when it is the delimiter exactly: no leading or trailing blanks, no other text', () => {
  assert.deepEqual(separateHereDocuments('cat <<END\n END\nEND \nENDING\nEND\nls').documents, [
    { line: 'cat ', body: ' END\nEND \nENDING' },
  ]);
});

test('<<- strips leading tabs from the lines it compares, the delimiter line included; << does not', () => {
  assert.deepEqual(separateHereDocuments('cat <<-END\n\tline\n\t\tEND\nls'), {
    command: 'cat \nls',
    documents: [{ line: 'cat ', body: '\tline' }],
  });
  assert.deepEqual(separateHereDocuments('cat <<END\n\tEND\nEND').documents, [
    { line: 'cat ', body: '\tEND' },
  ]);
});

test('a document no delimiter closes runs to the end of the command', () => {
  assert.deepEqual(separateHereDocuments('cat <<EOF\na\nb'), {
    command: 'cat ',
    documents: [{ line: 'cat ', body: 'a\nb' }],
  });
});

test('two marks on one line: their documents follow the line in the order of the marks', () => {
  assert.deepEqual(separateHereDocuments('paste <<A /dev/stdin <<B\n1\nA\n2\nB\necho done'), {
    command: 'paste  /dev/stdin \necho done',
    documents: [
      { line: 'paste  /dev/stdin ', body: '1' },
      { line: 'paste  /dev/stdin ', body: '2' },
    ],
  });
});

test('the delimiter word ends at a blank or an operator: <<EOF>out and <<EOF|sh keep the rest of the line', () => {
  assert.deepEqual(separateHereDocuments('cat <<EOF>out\nx\nEOF').command, 'cat >out');
  assert.deepEqual(separateHereDocuments('cat <<EOF|sh\nx\nEOF').documents, [{ line: 'cat |sh', body: 'x' }]);
  assert.deepEqual(separateHereDocuments('cat <<EOF;ls\nx\nEOF').command, 'cat ;ls');
});

test('<<< is a here-string, on its own line: nothing is taken from the lines after it', () => {
  const command = 'grep x <<<text\nEOF\nls';
  assert.deepEqual(separateHereDocuments(command), { command, documents: [] });
  assert.deepEqual(separateHereDocuments('grep x <<< text').documents, []);
});

test('a mark inside quotes, after a backslash or in a comment opens nothing', () => {
  for (const command of [
    "echo '<<EOF'\nls\nEOF",
    'echo "a <<EOF"\nls\nEOF',
    'echo \\<<EOF\nls\nEOF',
    'ls # see <<EOF\nrm x\nEOF',
    'echo "say \\" <<EOF"\nls\nEOF',
  ]) {
    assert.deepEqual(separateHereDocuments(command), { command, documents: [] }, command);
  }
});

test('<< with no word after it, or an unclosed quote in its word, is no mark (sh refuses the line)', () => {
  for (const command of ['cat <<\nx', 'cat << ;\nx', "cat <<'EOF\nx\nEOF"]) {
    assert.deepEqual(separateHereDocuments(command), { command, documents: [] }, command);
  }
});

test('a command without here-documents is kept as it is', () => {
  const command = 'cat a > b && sort -o c d\necho "x" | wc -l';
  assert.deepEqual(separateHereDocuments(command), { command, documents: [] });
});
