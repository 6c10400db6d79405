/**
 * How long `keel --help` takes to start, against a bare `node -e ''` on the same machine, so the
 * number means something on a busy or slow computer too. Prints medians and ratios; asserts
 * nothing (timings are no test). Run after `npm run build`:
 *
 *   npm run -s bench:cli            compiled (dist/) and from source (tsx), 7 runs each
 *   npm run -s bench:cli -- 15      15 runs each
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const KEEL = path.join(ROOT, 'bin/keel.js');
const runs = Number(process.argv[2] ?? 7);

function medianMs(args: string[], env: NodeJS.ProcessEnv = {}): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

// The launcher's own freshness rule, asked of the launcher (plain CommonJS, outside the TS project).
const current = spawnSync(
  process.execPath,
  ['-p', `require(${JSON.stringify(path.join(ROOT, 'bin/load-keel.js'))}).compiledIsCurrent()`],
  { encoding: 'utf8' },
).stdout.trim();
if (current !== 'true')
  console.log('note: dist/ is missing or older than src/ (npm run build): "compiled" runs from source too');

const node = medianMs(['-e', '']);
const compiled = medianMs([KEEL, '--help']);
const source = medianMs([KEEL, '--help'], { KEEL_FROM_SOURCE: '1' });
const line = (label: string, ms: number) =>
  console.log(
    `${label.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / node).toFixed(1).padStart(5)} × node`,
  );
console.log(`median of ${runs} runs each`);
line("node -e ''", node);
line('keel --help (dist/, compiled)', compiled);
line('keel --help (src/ through tsx)', source);
