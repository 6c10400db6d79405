import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The decision links already used, kept on disk so that neither a restart nor a second inbox on
 * the same folder takes a link twice. Each used nonce is one file, created with O_EXCL: claiming
 * is atomic even between processes, and written through (fsync) before the decision is sent, so a
 * crash cannot forget a link whose decision went out. A link past its expiry is refused anyway,
 * so its file is removed on the next start: the folder holds at most a day's links.
 */

export interface UsedLinks {
  /** True the first time a nonce is claimed; false ever after (until it expires). */
  claim(nonce: string, expiresAt: number): boolean;
  used(nonce: string): boolean;
  readonly directory: string;
}

/** KEEL_STATE_DIRECTORY (as hosts keep their registry there), else the user's state folder. */
export function defaultUsedLinksDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.KEEL_STATE_DIRECTORY?.trim() ||
    path.join(env.XDG_STATE_HOME?.trim() || path.join(homedir(), '.local', 'state'), 'keel');
  return path.join(base, 'inbox-used-links');
}

export function openUsedLinks(directory: string, nowMs: number = Date.now()): UsedLinks {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(directory)) {
    const file = path.join(directory, name);
    const expiresAt = Number(readFileSync(file, 'utf8').trim());
    // An unreadable expiry is kept: forgetting a used link is the one mistake this must not make.
    if (Number.isFinite(expiresAt) && expiresAt < nowMs) rmSync(file, { force: true });
  }
  // The nonce's hash names the file: a nonce is the link's text, never a path.
  const fileOf = (nonce: string) =>
    path.join(directory, createHash('sha256').update(nonce, 'utf8').digest('hex'));
  return {
    directory,
    claim(nonce, expiresAt) {
      let descriptor: number;
      try {
        descriptor = openSync(fileOf(nonce), 'wx', 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
      try {
        writeSync(descriptor, String(expiresAt));
        fsyncSync(descriptor);
      } finally {
        closeSync(descriptor);
      }
      return true;
    },
    used(nonce) {
      try {
        readFileSync(fileOf(nonce));
        return true;
      } catch {
        return false;
      }
    },
  };
}
