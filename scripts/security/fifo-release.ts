/**
 * Unblocks a tool stuck on a FIFO (write_file or read_file opening one blocks until the other end
 * opens): while the call has not settled, every FIFO under the case's root is opened read-write
 * (which never blocks on Linux and satisfies a waiting reader or writer) and closed again, so the
 * harness can record the hang and go on instead of leaking a blocked thread of the worker's pool.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const RELEASE_INTERVAL_MILLISECONDS = 50;

export async function releaseFifosUntil(
  root: string,
  settled: Promise<unknown>,
  maxMilliseconds: number,
): Promise<boolean> {
  let done = false;
  void settled.finally(() => {
    done = true;
  });
  const deadline = performance.now() + maxMilliseconds;
  while (!done && performance.now() < deadline) {
    for (const fifo of findFifos(root)) {
      try {
        const descriptor = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
        await delay(RELEASE_INTERVAL_MILLISECONDS / 2);
        closeSync(descriptor);
      } catch {
        // gone or replaced meanwhile
      }
    }
    await delay(RELEASE_INTERVAL_MILLISECONDS);
  }
  return done;
}

function findFifos(root: string): string[] {
  const found: string[] = [];
  const pending = [root];
  while (pending.length > 0 && found.length < 100) {
    const directory = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      continue;
    }
    for (const name of names) {
      const absolute = path.join(directory, name);
      try {
        const info = lstatSync(absolute);
        if (info.isFIFO()) found.push(absolute);
        else if (info.isDirectory()) pending.push(absolute);
      } catch {
        // gone
      }
    }
  }
  return found;
}
