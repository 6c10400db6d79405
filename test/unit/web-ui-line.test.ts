// Issue 46: `keel run` and the demo print the goal's Web UI link reliably, to the tab with its
// summary and details ("User Metadata"), and say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstRunIdOf, goalPageUrl, webUiAddress, webUiLine, webUiOf } from '../../src/cli/run-command';

const TAB = '(summary and details: the "User Metadata" tab)';

test('the address: configured (KEEL_WEB_UI_URL) as given, empty for none, else a local dev server’s UI', () => {
  assert.deepEqual(webUiAddress('temporal.example:7233', { KEEL_WEB_UI_URL: 'https://ui.example/' }), {
    base: 'https://ui.example',
    configured: true,
  });
  assert.equal(webUiAddress('127.0.0.1:7233', { KEEL_WEB_UI_URL: ' ' }), undefined);
  assert.deepEqual(webUiAddress('127.0.0.1:7233', {}), { base: 'http://localhost:8233', configured: false });
  assert.equal(webUiAddress('temporal.example:7233', {}), undefined, 'a remote UI cannot be guessed');
});

test('a guessed UI that did not answer has no link; one that answered, or a configured one, has', () => {
  const line = webUiLine({
    base: 'http://localhost:8233',
    namespace: 'default',
    workflowId: 'goal-1',
    runId: 'run-1',
    answering: false,
  });
  assert.equal(line, undefined, 'a headless dev server has no UI to link to');
  for (const answering of [true, undefined])
    assert.equal(
      webUiLine({ base: 'http://localhost:8233', namespace: 'default', workflowId: 'goal-1', answering }),
      `web ui: http://localhost:8233/namespaces/default/workflows/goal-1 ${TAB}`,
    );
});

test('the link opens the run’s User Metadata tab when the run is known, else the goal', () => {
  const page = { base: 'https://ui.example', namespace: 'team a', workflowId: 'goal/1' };
  assert.equal(goalPageUrl(page), 'https://ui.example/namespaces/team%20a/workflows/goal%2F1');
  assert.equal(
    goalPageUrl({ ...page, runId: 'a1b2' }),
    'https://ui.example/namespaces/team%20a/workflows/goal%2F1/a1b2/user-metadata',
  );
});

test('the run id is the one the start handle carries; a handle without one gives none', () => {
  assert.equal(firstRunIdOf({ workflowId: 'goal-1', firstExecutionRunId: 'run-1' }), 'run-1');
  assert.equal(firstRunIdOf({ workflowId: 'goal-1' }), undefined);
});

test('a configured UI is not probed; a guessed one is (and its link is printed either way)', async () => {
  const configured = webUiOf('127.0.0.1:7233', { KEEL_WEB_UI_URL: 'http://127.0.0.1:9' });
  assert.equal(await configured?.answering, undefined);
  // Nothing listens on port 65535 here: the connection is refused, so the probe says no at once.
  const guessed = webUiOf('127.0.0.1:64535', {});
  assert.equal(guessed?.base, 'http://localhost:65535');
  assert.equal(await guessed?.answering, false);
});
