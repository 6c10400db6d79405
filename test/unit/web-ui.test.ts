import { test } from 'node:test';
import assert from 'node:assert/strict';
import { devServerUiGuess, webUiBase, workflowPageUrl } from '../../src/client/web-ui';

const nothingAnswers = () => Promise.resolve(false);
const everythingAnswers = () => Promise.resolve(true);

test('KEEL_WEB_UI_URL wins, and an empty value turns links off', async () => {
  const env = { KEEL_WEB_UI_URL: 'http://ui.example:8080/' };
  assert.equal(
    await webUiBase({ address: '127.0.0.1:7233', env, answers: everythingAnswers }),
    'http://ui.example:8080',
  );
  assert.equal(
    await webUiBase({ address: '127.0.0.1:7233', env: { KEEL_WEB_UI_URL: '' }, answers: everythingAnswers }),
    undefined,
  );
});

test('a local server: the dev server UI on port + 1000, only when something answers there', async () => {
  const asked: string[] = [];
  const base = await webUiBase({
    address: '127.0.0.1:17233',
    env: {},
    answers: (url) => {
      asked.push(url);
      return Promise.resolve(true);
    },
  });
  assert.equal(base, 'http://localhost:18233');
  assert.deepEqual(asked, ['http://localhost:18233']);
  assert.equal(await webUiBase({ address: '127.0.0.1:17233', env: {}, answers: nothingAnswers }), undefined);
});

test('a remote server without KEEL_WEB_UI_URL has no link (keel cannot know its UI)', async () => {
  assert.equal(devServerUiGuess('temporal.internal:7233'), undefined);
  assert.equal(
    await webUiBase({ address: 'temporal.internal:7233', env: {}, answers: everythingAnswers }),
    undefined,
  );
  assert.equal(devServerUiGuess('localhost:7233'), 'http://localhost:8233');
  assert.equal(devServerUiGuess('no-port'), undefined);
});

test('a goal page escapes the namespace and the id', () => {
  assert.equal(
    workflowPageUrl('http://localhost:8233/', 'my ns', 'goal 1'),
    'http://localhost:8233/namespaces/my%20ns/workflows/goal%201',
  );
});
