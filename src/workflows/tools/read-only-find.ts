import { startsWithGlob } from './option-parser';
import type { ShellWord } from './shell-words';

/**
 * find's expression, as an allowlist of tests and actions that only read and print. find matches
 * its single-dash primaries exactly (no abbreviations), so `-delet` is an error, not `-delete`;
 * it is refused all the same. Not listed: -delete, -exec, -execdir, -ok, -okdir (run or delete),
 * -fprint, -fprint0, -fprintf, -fls (write files), -files0-from (starting points from a file),
 * -D (debug options).
 */

const OPERATORS = ['(', ')', '!', ',', '-not', '-a', '-and', '-o', '-or'];

const WITHOUT_VALUE = new Set([
  ...OPERATORS,
  ...['-print', '-print0', '-ls', '-prune', '-quit', '-true', '-false', '-empty', '-nouser', '-nogroup'],
  ...['-readable', '-writable', '-executable', '-depth', '-mount', '-xdev', '-noleaf', '-daystart'],
  ...['-follow', '-ignore_readdir_race', '-noignore_readdir_race', '-warn', '-nowarn'],
]);

const WITH_VALUE = new Set([
  ...['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex'],
  ...['-regextype', '-type', '-xtype', '-size', '-newer', '-anewer', '-cnewer', '-mtime', '-mmin'],
  ...['-atime', '-amin', '-ctime', '-cmin', '-used', '-user', '-group', '-uid', '-gid', '-perm'],
  ...['-links', '-inum', '-samefile', '-lname', '-ilname', '-maxdepth', '-mindepth', '-fstype'],
  ...['-printf', '-context'],
]);

/** -newerXY compares with a reference file or time (X, Y among a B c m t). */
const NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

/** Options that must come before the starting points. */
const LEADING = ['-H', '-L', '-P'];

/** Why `find ARGS` is not read-only, or undefined when it is. */
export function whyFindIsNotReadOnly(args: readonly ShellWord[]): string | undefined {
  let index = 0;
  while (args[index] !== undefined && LEADING.includes(args[index]?.text ?? '')) index += 1;
  // Starting points run up to the first word that looks like an expression.
  for (; index < args.length && !startsExpression(args[index] as ShellWord); index += 1) {
    const reason = whyUnseen(args[index] as ShellWord);
    if (reason !== undefined) return reason;
  }
  for (; index < args.length; index += 1) {
    const word = args[index] as ShellWord;
    if (WITHOUT_VALUE.has(word.text)) continue;
    if (!WITH_VALUE.has(word.text) && !NEWER_XY.test(word.text))
      return `find ${word.text} is not a known read-only test or action`;
    const value = args[index + 1];
    if (value === undefined) return `find ${word.text} needs a value`;
    const reason = whyUnseen(value);
    if (reason !== undefined) return reason;
    index += 1;
  }
  return undefined;
}

function startsExpression(word: ShellWord): boolean {
  return word.text.startsWith('-') || OPERATORS.includes(word.text);
}

/** A word that starts with a glob may expand to several, one of them `-delete`. */
function whyUnseen(word: ShellWord): string | undefined {
  return startsWithGlob(word)
    ? `${word.text} may expand to file names that find reads as actions`
    : undefined;
}
