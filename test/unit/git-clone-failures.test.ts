import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTransientGitFailure } from '../../src/activities/hosts/prepare-workspace';

// Issue 41: a clone at a goal's start that fails fails the goal, so only git's refusals may be
// permanent; the network's trouble on the way is retried with backoff.

const failure = (stderr: string) => Object.assign(new Error('Command failed: git clone'), { stderr });

test("the network's trouble is retried: names, connections, timeouts, 5xx, transfers cut short", () => {
  for (const stderr of [
    "fatal: unable to access 'https://git.example/app.git/': Could not resolve host: git.example",
    "fatal: unable to access 'https://git.example/app.git/': Failed to connect to git.example port 443: Connection refused",
    'ssh: connect to host git.example port 22: Connection timed out\nfatal: Could not read from remote repository.',
    "fatal: unable to access 'https://git.example/app.git/': The requested URL returned error: 503",
    'error: RPC failed; curl 18 transfer closed with outstanding read data remaining\nfatal: early EOF',
    'fatal: the remote end hung up unexpectedly',
  ])
    assert.equal(isTransientGitFailure(failure(stderr)), true, stderr);
});

test("git's refusals are for good: no such repository or ref, credentials refused, no git", () => {
  for (const stderr of [
    "fatal: repository '/srv/nowhere.git' does not exist",
    'warning: Could not find remote branch nope to clone.\nfatal: Remote branch nope not found in upstream origin',
    "fatal: Authentication failed for 'https://git.example/app.git/'",
    "fatal: unable to access 'https://git.example/app.git/': The requested URL returned error: 403",
    '',
  ])
    assert.equal(isTransientGitFailure(failure(stderr)), false, stderr);
});
