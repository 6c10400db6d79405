import { resultDigest } from './loop-guard';

/**
 * What a result says, without what only the moment of the call says (issue 44): keel's own
 * "Exit code 0 after 2.1 s.", durations a tool prints ("12 ms", "in 3.40s", "Time: 0.52 s"),
 * clock times and dates, and tool-call ids. Two runs of one command that differ only there gave
 * the same result: comparing them raw made a poll stop at call 8 in one run and 9 in another, and
 * let a grep loop with identical output escape the loop and cycle guards.
 *
 * Pure and deterministic (workflow code). Numbers that are not timings stay: "40% built" and
 * "41% built" are different results, so output that moves still moves.
 */

const NOISE: ReadonlyArray<readonly [RegExp, string]> = [
  // ISO-like timestamps and dates: 2026-12-02T05:37:21.123Z, 2026-12-02 05:37:21
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<time>'],
  // Clock times: 05:37:21, 05:37:21.123
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  // Tool-call ids (Anthropic's and the usual others).
  [/\b(?:toolu|call|tool_call)_[A-Za-z0-9_-]{6,}\b/g, '<call-id>'],
  // Minutes and seconds run together: 1m20s, 2m0.5s.
  [/\b\d+m\d+(?:\.\d+)?s\b/g, '<duration>'],
  // Durations: a number with a time unit (2.1 s, 12ms, 3.40s, 1.5 sec, 2 seconds, 300µs, 2 min).
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds?|min|mins|minutes?)\b/g, '<duration>'],
];

/** The result text with timings, timestamps and call ids replaced by fixed placeholders. */
export function withoutNoise(text: string): string {
  let cleaned = text;
  for (const [pattern, placeholder] of NOISE) cleaned = cleaned.replace(pattern, placeholder);
  return cleaned;
}

/** The digest two results are compared by: the same when they differ only in noise. */
export function resultFingerprint(text: string): string {
  return resultDigest(withoutNoise(text).trim());
}
