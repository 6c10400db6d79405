import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intentOf, sameIntent } from '../../src/workflows/principles/call-intent';
import { rememberDenial, rememberedDenialFor } from '../../src/workflows/goal/tool-calls/remembered-denials';

/**
 * Call intent and here-documents: the recorded trajectories write files with
 * `cat > test_fix.py << 'EOF'` hundreds of times. The delimiter and the document's lines were
 * read as targets, so any two such calls shared `'EOF'` (and a script's `import sys`): a human's
 * "deny, do not ask again" on one refused every other unasked. A document a shell reads is a
 * script, and its commands name targets as a command line would.
 */

const shell = (command: string) => intentOf('run_command', { command });
const targetsOf = (command: string) => shell(command).targets;

test('a here-document written to a file: the file is the target, not the delimiter or the text', () => {
  assert.deepEqual(targetsOf("cat > test_fix.py << 'EOF'\nimport sys\nfrom os import path\nEOF"), [
    'test_fix.py',
  ]);
  assert.deepEqual(targetsOf('cd /testbed && cat > reproduce_issue.py <<EOF\nprint("x")\nEOF'), [
    'reproduce_issue.py',
  ]);
  assert.deepEqual(targetsOf('cat <<-END > notes.md\n\tsee the docs\n\tEND'), ['notes.md']);
});

test('two calls that write different files with here-documents are not one intent; the same file is', () => {
  const first = shell("cat > apply_fix.py << 'EOF'\nimport sys\nsys.exit(0)\nEOF");
  const second = shell("cat > test_edge_cases.py << 'EOF'\nimport sys\nprint(sys.argv)\nEOF");
  assert.equal(sameIntent(first, second), false);
  assert.equal(sameIntent(first, shell('cat > apply_fix.py <<EOF\nother\nEOF')), true);
  assert.equal(sameIntent(first, shell('rm apply_fix.py')), true);
});

test("a human's 'do not ask again' on one here-document write does not refuse another file's", () => {
  const call = (callId: string, command: string) => ({
    callId,
    toolName: 'run_command',
    input: { command },
    summary: `run_command: ${command}`,
  });
  const remembered = rememberDenial([], call('c1', "cat > deploy.sh << 'EOF'\nrm -rf /srv/app\nEOF"), {
    approver: 'carol',
    reason: 'not on the server',
    decidedAt: '2030-01-01T00:00:00.000Z',
    via: 'signal',
  });
  assert.equal(
    rememberedDenialFor(remembered, call('c2', "cat > notes.md << 'EOF'\n# Notes\nEOF")),
    undefined,
  );
  assert.equal(rememberedDenialFor(remembered, call('c3', 'cat > deploy.sh <<X\necho hi\nX')), remembered[0]);
});

test('a here-document a shell reads is a script: its commands name the targets (bash <<EOF, cat <<EOF | sh)', () => {
  assert.deepEqual(targetsOf('bash <<EOF\nrm -rf build\nEOF'), ['build']);
  assert.deepEqual(targetsOf('cat <<EOF | sh\nrm -rf build dist\nEOF'), ['build', 'dist']);
  assert.deepEqual(targetsOf("/bin/sh -s << 'X'\nmv a b\nX\nls out"), ['a', 'b', 'out']);
  assert.equal(sameIntent(shell('bash <<EOF\nrm -rf build\nEOF'), shell('rm -r ./build/')), true);
});

test('a here-document xargs reads is arguments: its words are targets (cat <<EOF | xargs rm -rf)', () => {
  assert.deepEqual(targetsOf('cat <<EOF | xargs rm -rf\nbuild\n  dist -v\nEOF'), ['build', 'dist']);
  assert.equal(sameIntent(shell('xargs -0 rm <<EOF\nbuild\nEOF'), shell('rm -rf build')), true);
});

test('a here-document any other program reads names no target: a script for python is text here', () => {
  const intent = shell("python3 - << 'EOF'\nimport shutil\nshutil.rmtree('build')\nEOF");
  assert.deepEqual(intent.targets, []);
  // With no target, only the very same call is the same intent.
  assert.equal(
    sameIntent(intent, shell("python3 - << 'EOF'\nimport shutil\nshutil.rmtree('build')\nEOF")),
    true,
  );
  assert.equal(sameIntent(intent, shell("python3 - << 'EOF'\nprint(1)\nEOF")), false);
});

test('inside sh -c and eval, here-documents are read the same way', () => {
  assert.deepEqual(targetsOf("sh -c 'cat > a.txt <<EOF\nhello world\nEOF'"), ['a.txt']);
  assert.deepEqual(targetsOf("sh -c 'bash <<EOF\nrm -rf build\nEOF'"), ['build']);
  assert.deepEqual(targetsOf('eval "cat > a.txt <<EOF\nhello world\nEOF"'), ['a.txt']);
  assert.deepEqual(targetsOf("eval 'bash <<EOF\nrm -rf build\nEOF'"), ['build']);
});
