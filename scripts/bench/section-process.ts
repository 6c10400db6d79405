import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const REPOSITORY = path.resolve(__dirname, '../..');

/**
 * Runs a bench section's script in a process of its own (its own dev server and Temporal runtime)
 * and returns the JSON it wrote to `json`, unchecked: the caller parses it with its schema. The
 * script's lines go to `log`; its stderr is kept only to explain a failure.
 */
export async function runSectionProcess(options: {
  /** The script, from the repository's root. */
  script: string;
  args: readonly string[];
  json: string;
  log: (line: string) => void;
}): Promise<unknown> {
  const child = spawn(process.execPath, ['--import', 'tsx', options.script, ...options.args], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) options.log(line);
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (pending !== '') options.log(pending);
  if (code !== 0)
    throw new Error(`${options.script} exited ${code}: ${errors.trim().split('\n').slice(-5).join(' ')}`);
  return JSON.parse(readFileSync(options.json, 'utf8')) as unknown;
}
