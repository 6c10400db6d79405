import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultUsedLinksDirectory, openUsedLinks } from '../../src/inbox/used-links';
import { tempDirectory } from '../support/temp-directory';

test('a used link stays used across a restart and for a second inbox on the same folder', () => {
  const directory = path.join(tempDirectory('keel-used-links-'), 'links');
  const now = 1_000_000;
  const first = openUsedLinks(directory, now);
  assert.equal(first.used('nonce-aaaaaaaaaaaa'), false);
  assert.equal(first.claim('nonce-aaaaaaaaaaaa', now + 60_000), true);
  assert.equal(first.claim('nonce-aaaaaaaaaaaa', now + 60_000), false, 'replayed in the same process');
  const second = openUsedLinks(directory, now + 1_000); // a restart, or another process
  assert.equal(second.used('nonce-aaaaaaaaaaaa'), true);
  assert.equal(second.claim('nonce-aaaaaaaaaaaa', now + 60_000), false, 'replayed after a restart');
  assert.equal(second.claim('nonce-bbbbbbbbbbbb', now + 60_000), true);
  assert.equal(first.claim('nonce-bbbbbbbbbbbb', now + 60_000), false, 'claimed by the other inbox');
});

test('links past their expiry are forgotten at start; an unreadable entry is kept', () => {
  const directory = tempDirectory('keel-used-links-');
  const now = 1_000_000;
  const store = openUsedLinks(directory, now);
  store.claim('nonce-old-aaaaaaaa', now + 10);
  store.claim('nonce-new-aaaaaaaa', now + 10_000);
  writeFileSync(path.join(directory, 'odd'), 'not a number');
  const later = openUsedLinks(directory, now + 20);
  assert.equal(later.used('nonce-old-aaaaaaaa'), false);
  assert.equal(later.used('nonce-new-aaaaaaaa'), true);
  assert.equal(readdirSync(directory).length, 2);
  // A nonce names no path: a hostile one cannot write outside the folder.
  assert.equal(later.claim('../../escape', now + 10_000), true);
  assert.equal(readdirSync(directory).length, 3);
});

test('the folder is under KEEL_STATE_DIRECTORY, else the user state folder', () => {
  assert.equal(
    defaultUsedLinksDirectory({ KEEL_STATE_DIRECTORY: '/srv/keel' }),
    '/srv/keel/inbox-used-links',
  );
  assert.equal(defaultUsedLinksDirectory({ XDG_STATE_HOME: '/h/s' }), '/h/s/keel/inbox-used-links');
});
