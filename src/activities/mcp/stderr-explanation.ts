/**
 * What a server that died at start wrote, cut to the line that explains it. The last line is
 * often noise: Node ends an uncaught error with its version banner ("Node.js v20.19.0"), Python
 * with the traceback's last frame or the error, many CLIs with a usage line. So the first line
 * that names an error wins; the last line that is not noise is the fallback.
 */

/** `Error: …`, `TypeError: …`, `ModuleNotFoundError: …`, `panic: …`: the error itself. */
const ERROR_LINE = /(\b[A-Za-z]*(Error|Exception)\b:|^(panic|fatal|error)\b:?)/i;

/** Lines that say something went wrong without naming an error type. */
const PROBLEM_LINE =
  /\b(error|cannot|can't|could not|not found|no such|denied|not allowed|not permitted|refused|missing|required|invalid|failed|usage)\b|ENOENT|EACCES|EADDRINUSE|ECONNREFUSED|EPERM/i;

/**
 * Lines that never explain: Node's banner, stack frames, a caret under echoed source, the
 * `throw …` source line Node prints above an uncaught error (it names Error without being one).
 */
const NOISE_LINE = [
  /^Node\.js v\d/,
  /^\s*at\s/,
  /^\s*\^+\s*$/,
  /^\s*throw\b/,
  /^\s*File "/,
  /^Traceback \(most recent call last\)/,
  /^[\s{}[\](),]*$/,
];

const MAX_LINE_CHARS = 300;

/** At most two lines of `stderr`, joined with " | ", that say why the server stopped; '' for none. */
export function explainingStderr(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !NOISE_LINE.some((noise) => noise.test(line)));
  const index = firstIndex(lines, ERROR_LINE) ?? firstIndex(lines, PROBLEM_LINE) ?? lines.length - 1;
  const chosen = lines[index];
  if (chosen === undefined) return '';
  // A second line only when it adds to the first: "Error: …" then "Did you mean …?" / a hint.
  const next = lines[index + 1];
  const shown =
    next !== undefined && PROBLEM_LINE.test(next) && !ERROR_LINE.test(next) ? [chosen, next] : [chosen];
  return shown
    .map((line) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line))
    .join(' | ');
}

function firstIndex(lines: readonly string[], pattern: RegExp): number | undefined {
  const index = lines.findIndex((line) => pattern.test(line));
  return index < 0 ? undefined : index;
}
