/**
 * A throwaway PostgreSQL server for one test file: initdb into a temp directory, started with
 * pg_ctl on 127.0.0.1 and a free port, socket in the temp directory, fsync off (nothing here
 * needs to survive). stop() kills only this server (pg_ctl by its data directory) and deletes
 * the directory; it also runs when the process exits, so a crashed test leaves nothing behind.
 *
 * PostgreSQL refuses to run as root; when the tests do, the binaries run as the `postgres` OS
 * user through runuser and the temp directory is handed to that user.
 */
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from '../../src/dev-server/dev-server';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

export const MISSING_POSTGRES_MESSAGE =
  'PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin or KEEL_PG_BIN: ' +
  'install them with `apt-get install postgresql` (scripts/ensure-postgres.sh does it) or set KEEL_PG_BIN to their directory.';

export interface PostgresServer {
  /** A database created for the caller on this server. */
  readonly connectionString: string;
  readonly port: number;
  /** Creates another empty database and returns its connection string (isolates tests). */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/** The directory holding initdb and pg_ctl: KEEL_PG_BIN first, else the newest installed version. */
export function findPostgresBinaries(options: { env?: NodeJS.ProcessEnv; searchRoot?: string } = {}): string {
  const explicit = (options.env ?? process.env).KEEL_PG_BIN;
  if (explicit) {
    if (hasServerBinaries(explicit)) return explicit;
    throw new Error(MISSING_POSTGRES_MESSAGE);
  }
  const root = options.searchRoot ?? '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = readdirSync(root);
  } catch {
    versions = [];
  }
  const candidates = versions
    .sort((left, right) => Number.parseFloat(right) - Number.parseFloat(left))
    .map((version) => path.join(root, version, 'bin'))
    .filter(hasServerBinaries);
  const newest = candidates[0];
  if (!newest) throw new Error(MISSING_POSTGRES_MESSAGE);
  return newest;
}

function hasServerBinaries(directory: string): boolean {
  try {
    accessSync(path.join(directory, 'initdb'), constants.X_OK);
    accessSync(path.join(directory, 'pg_ctl'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const binaries = findPostgresBinaries();
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(path.join(tmpdir(), 'keel-pg-'));
  const dataDirectory = path.join(directory, 'data');
  if (asRoot) handToPostgresUser(directory);
  // As root, every binary runs as `postgres`; otherwise as ourselves.
  const command = (binary: string, args: string[]): [string, string[]] =>
    asRoot
      ? ['runuser', ['-u', 'postgres', '--', path.join(binaries, binary), ...args]]
      : [path.join(binaries, binary), args];
  const pgCtlStop = (mode: string) => command('pg_ctl', ['-D', dataDirectory, '-m', mode, '-w', 'stop']);

  let stopped = false;
  const stopOnExit = () => {
    try {
      execFileSync(...pgCtlStop('immediate'), { stdio: 'ignore' });
    } catch {
      // Not running (never started, or already stopped).
    }
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', stopOnExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stopOnExit);
    try {
      await run(...pgCtlStop('fast'));
    } catch {
      // Already gone; the directory still goes.
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  };

  try {
    await runOrExplain(
      command('initdb', [
        '-D',
        dataDirectory,
        '-U',
        'postgres',
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ]),
      'initdb',
    );
    const port = await freePort();
    const logFile = path.join(directory, 'server.log');
    const settings = [
      '-c listen_addresses=127.0.0.1',
      `-p ${port}`,
      `-k ${directory}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c shared_buffers=16MB',
    ].join(' ');
    await runOrExplain(
      command('pg_ctl', ['-D', dataDirectory, '-l', logFile, '-o', settings, '-w', '-t', '60', 'start']),
      'pg_ctl start',
      logFile,
    );
    const base = `postgresql://postgres@127.0.0.1:${port}`;
    let databases = 0;
    const createDatabase = async () => {
      const name = `keel_test_${++databases}`;
      const client = new Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`); // generated name: no user input
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    };
    const connectionString = await createDatabase();
    return { connectionString, port, createDatabase, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function handToPostgresUser(directory: string): void {
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error(
      'PostgreSQL will not run as root and there is no `postgres` OS user: install the server with `apt-get install postgresql`, which creates it.',
    );
  }
  chownSync(directory, uid, gid);
}

/** Runs a binary; on failure throws one line: the last line of its stderr, or of its log file. */
async function runOrExplain([file, args]: [string, string[]], what: string, logFile?: string): Promise<void> {
  try {
    await run(file, args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    let log = '';
    try {
      log = logFile ? readFileSync(logFile, 'utf8') : '';
    } catch {
      // No log written: stderr has to do.
    }
    const reason = lastLine(log) || lastLine(stderr) || (error as Error).message;
    throw new Error(`${what} failed: ${reason}`, { cause: error });
  }
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .pop() ?? ''
  );
}
