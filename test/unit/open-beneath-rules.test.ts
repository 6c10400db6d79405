import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import {
  BeneathError,
  codeOf,
  entryPath,
  lstatBeneath,
  openChildDirectory,
  openDirectoryBeneath,
  openFileBeneath,
  readRegularFile,
  segmentsOf,
  typeOf,
  type BeneathRefusal,
} from '../../src/activities/tools/workspace-access/open-beneath';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

// The rules of the race-free I/O beneath a workspace root: which names a lookup accepts, and
// which refusal (kind, and the workspace-relative prefix where the walk stopped) each failure is.

/** Resolves with the refusal a BeneathError carries; fails when the call succeeds or throws anything else. */
async function refusalOf(promise: Promise<unknown>): Promise<BeneathRefusal> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BeneathError, `not a BeneathError: ${String(error)}`);
    return error.refusal;
  }
  assert.fail('expected a refusal');
}

async function listeningSocket(file: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  return server;
}

test('a BeneathError is named "BeneathError" and says "<kind> at <where>"', () => {
  const error = new BeneathError({ kind: 'missing', at: 'src/a.ts' });
  assert.equal(error.name, 'BeneathError');
  assert.equal(error.message, 'missing at src/a.ts');
});

test('entryPath() takes one path segment: "", ".", ".." and names with "/" are refused', async () => {
  const root = makeWorkspace();
  const directory = await open(root, 'r');
  try {
    assert.equal(entryPath(directory, 'a.txt'), `/proc/self/fd/${directory.fd}/a.txt`);
    assert.equal(entryPath(directory, '..a'), `/proc/self/fd/${directory.fd}/..a`);
    for (const name of ['', '.', '..', 'a/b', '/'])
      assert.throws(() => entryPath(directory, name), /not a single path segment/, JSON.stringify(name));
  } finally {
    await directory.close();
  }
});

test('segmentsOf() drops empty and "." segments: "./a//b/." is a, b and "." is the root', () => {
  assert.deepEqual(segmentsOf('./a//b/.'), ['a', 'b']);
  assert.deepEqual(segmentsOf('.'), []);
  assert.deepEqual(segmentsOf(''), []);
});

test('typeOf() names each kind of entry: file, directory, symlink, fifo, socket, device, other', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'file.txt': 'x' });
  mkdirSync(path.join(root, 'directory'));
  symlinkSync('file.txt', path.join(root, 'link'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  const server = await listeningSocket(path.join(root, 'socket'));
  try {
    assert.equal(typeOf(lstatSync(path.join(root, 'file.txt'))), 'file');
    assert.equal(typeOf(lstatSync(path.join(root, 'directory'))), 'directory');
    assert.equal(typeOf(lstatSync(path.join(root, 'link'))), 'symlink');
    assert.equal(typeOf(lstatSync(path.join(root, 'pipe'))), 'fifo');
    assert.equal(typeOf(lstatSync(path.join(root, 'socket'))), 'socket');
    assert.equal(typeOf(statSync('/dev/null')), 'device');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const none = {
    isFile: () => false,
    isDirectory: () => false,
    isSymbolicLink: () => false,
    isFIFO: () => false,
    isSocket: () => false,
    isCharacterDevice: () => false,
    isBlockDevice: () => false,
  };
  assert.equal(typeOf({ ...none, isBlockDevice: () => true } as unknown as Stats), 'device');
  assert.equal(typeOf(none as unknown as Stats), 'other');
});

test('a walk refused on the way names the prefix where it stopped, not the whole path', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'a/file.txt': 'x', 'a/real/x': 'x' });
  symlinkSync('real', path.join(root, 'a/link'));
  assert.deepEqual(await refusalOf(openDirectoryBeneath(root, ['a', 'file.txt', 'b', 'c'])), {
    kind: 'not-a-directory',
    at: 'a/file.txt',
  });
  assert.deepEqual(await refusalOf(openDirectoryBeneath(root, ['a', 'link', 'x'])), {
    kind: 'symlink',
    at: 'a/link',
    target: 'real',
  });
  assert.deepEqual(await refusalOf(openDirectoryBeneath(root, ['a', 'gone', 'deeper'])), {
    kind: 'missing',
    at: 'a/gone',
  });
});

test('only `create` makes missing directories: a plain walk or a read or update leaves none behind', async () => {
  const root = makeWorkspace();
  assert.deepEqual(await refusalOf(openDirectoryBeneath(root, ['new', 'deeper'])), {
    kind: 'missing',
    at: 'new',
  });
  assert.deepEqual(await refusalOf(openFileBeneath(root, ['new', 'x.txt'], 'update')), {
    kind: 'missing',
    at: 'new',
  });
  assert.deepEqual(await refusalOf(openFileBeneath(root, ['new', 'x.txt'], 'read')), {
    kind: 'missing',
    at: 'new',
  });
  assert.equal(existsSync(path.join(root, 'new')), false);
  const made = await openDirectoryBeneath(root, ['new', 'deeper'], { create: true });
  await made.close();
  assert.equal(statSync(path.join(root, 'new/deeper')).isDirectory(), true);
});

test('openFileBeneath: the root itself is not a file; "write" creates (saying so) and reopens an existing file', async () => {
  const root = makeWorkspace();
  assert.deepEqual(await refusalOf(openFileBeneath(root, [], 'read')), {
    kind: 'not-a-file',
    at: '.',
    type: 'directory',
  });
  const first = await openFileBeneath(root, ['out', 'x.txt'], 'write');
  await first.file.close();
  assert.equal(first.created, true);
  const second = await openFileBeneath(root, ['out', 'x.txt'], 'write');
  await second.file.close();
  assert.equal(second.created, false);
  assert.equal(second.info.isFile(), true);
});

test('"read" opens a file read-only; "update" and "write" can write it', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'a.txt': 'abc' });
  const read = await openFileBeneath(root, ['a.txt'], 'read');
  try {
    await assert.rejects(read.file.write('x'), (error) => codeOf(error) === 'EBADF');
  } finally {
    await read.file.close();
  }
  for (const access of ['update', 'write'] as const) {
    const opened = await openFileBeneath(root, ['a.txt'], access);
    try {
      await opened.file.write('z', 0);
    } finally {
      await opened.file.close();
    }
  }
});

test('a directory, a socket or a FIFO where a file is wanted is refused as not-a-file with its type', async () => {
  const root = makeWorkspace();
  mkdirSync(path.join(root, 'dir'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  const server = await listeningSocket(path.join(root, 'sock'));
  try {
    for (const access of ['read', 'update', 'write'] as const) {
      assert.deepEqual(
        await refusalOf(openFileBeneath(root, ['dir'], access)),
        {
          kind: 'not-a-file',
          at: 'dir',
          type: 'directory',
        },
        access,
      );
      assert.deepEqual(
        await refusalOf(openFileBeneath(root, ['sock'], access)),
        {
          kind: 'not-a-file',
          at: 'sock',
          type: 'socket',
        },
        access,
      );
      assert.deepEqual(
        await refusalOf(openFileBeneath(root, ['pipe'], access)),
        {
          kind: 'not-a-file',
          at: 'pipe',
          type: 'fifo',
        },
        access,
      );
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a link at the end of a file path is refused with its target, for every access', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'a.txt': 'x' });
  symlinkSync('a.txt', path.join(root, 'link'));
  for (const access of ['read', 'update', 'write'] as const)
    assert.deepEqual(
      await refusalOf(openFileBeneath(root, ['link'], access)),
      {
        kind: 'symlink',
        at: 'link',
        target: 'a.txt',
      },
      access,
    );
});

test('lstatBeneath describes a link at the end, refuses it with `refuseLink`, and stats the root for no segments', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'd/a.txt': 'x' });
  symlinkSync('a.txt', path.join(root, 'd/link'));
  assert.equal((await lstatBeneath(root, ['d', 'link'])).isSymbolicLink(), true);
  assert.deepEqual(await refusalOf(lstatBeneath(root, ['d', 'link'], { refuseLink: true })), {
    kind: 'symlink',
    at: 'd/link',
    target: 'a.txt',
  });
  assert.equal((await lstatBeneath(root, [])).isDirectory(), true);
  assert.deepEqual(await refusalOf(lstatBeneath(root, ['d', 'missing'])), {
    kind: 'missing',
    at: 'd/missing',
  });
});

test('readRegularFile refuses what is not a regular file, and reads a file of exactly maxBytes', async () => {
  const root = makeWorkspace();
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  writeFiles(root, { 'six.txt': 'small\n' });
  await assert.rejects(readRegularFile(path.join(root, 'pipe')), /pipe is not a regular file/);
  assert.equal((await readRegularFile(path.join(root, 'six.txt'), 6)).toString(), 'small\n');
  await assert.rejects(readRegularFile(path.join(root, 'six.txt'), 5), /larger than 5 bytes/);
});

test('codeOf() is the string code of a system error, and undefined for anything else', () => {
  assert.equal(codeOf(Object.assign(new Error('x'), { code: 'ENOENT' })), 'ENOENT');
  assert.equal(codeOf(Object.assign(new Error('x'), { code: 42 })), undefined);
  assert.equal(codeOf(undefined), undefined);
});

test('openChildDirectory creates nothing unless asked: a missing child is refused and stays missing', async () => {
  const root = makeWorkspace();
  const directory = await open(root, 'r');
  try {
    assert.deepEqual(await refusalOf(openChildDirectory(directory, 'gone')), { kind: 'missing', at: 'gone' });
  } finally {
    await directory.close();
  }
  assert.equal(existsSync(path.join(root, 'gone')), false);
});

test("two writers making the same new directories at once both succeed: the one that loses the mkdir race opens the winner's", async () => {
  const root = makeWorkspace();
  for (let round = 0; round < 20; round += 1) {
    const segments = [`round-${round}`, 'a', 'b'];
    const opened = await Promise.all(
      [1, 2, 3, 4].map(() => openDirectoryBeneath(root, segments, { create: true })),
    );
    await Promise.all(opened.map((handle) => handle.close()));
    assert.equal(statSync(path.join(root, ...segments)).isDirectory(), true);
  }
});

test('a link inside a directory is refused at its workspace-relative path, for every access', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'd/a.txt': 'x' });
  symlinkSync('a.txt', path.join(root, 'd/link'));
  for (const access of ['read', 'update', 'write'] as const)
    assert.deepEqual(
      await refusalOf(openFileBeneath(root, ['d', 'link'], access)),
      { kind: 'symlink', at: 'd/link', target: 'a.txt' },
      access,
    );
});

test('only "write" ever says it created the file: "read" and "update" of an existing one do not', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'a.txt': 'x' });
  for (const access of ['read', 'update'] as const) {
    const opened = await openFileBeneath(root, ['a.txt'], access);
    await opened.file.close();
    assert.equal(opened.created, false, access);
  }
});

test('no descriptor is left open: 30 opens, lookups, reads and refusals leave the process with as many as before', async () => {
  const root = makeWorkspace();
  writeFiles(root, { 'd/a.txt': 'abc' });
  symlinkSync('a.txt', path.join(root, 'd/link'));
  const before = readdirSync('/proc/self/fd').length;
  for (let round = 0; round < 5; round += 1) {
    const opened = await openFileBeneath(root, ['d', 'a.txt'], 'read');
    await opened.file.close();
    await (await openDirectoryBeneath(root, ['d'])).close();
    await lstatBeneath(root, ['d', 'a.txt']);
    await readRegularFile(path.join(root, 'd/a.txt'));
    await refusalOf(openFileBeneath(root, ['d', 'link'], 'read'));
    await refusalOf(lstatBeneath(root, ['d', 'link'], { refuseLink: true }));
  }
  assert.equal(readdirSync('/proc/self/fd').length, before);
});

test('a failure that is not a refusal (a name longer than 255 bytes) is thrown as it is, not called missing', async () => {
  const root = makeWorkspace();
  const long = 'x'.repeat(300);
  for (const access of ['read', 'write'] as const)
    await assert.rejects(openFileBeneath(root, [long], access), (error) => codeOf(error) === 'ENAMETOOLONG');
  await assert.rejects(openDirectoryBeneath(root, [long]), (error) => codeOf(error) === 'ENAMETOOLONG');
});
