/**
 * Category 7: regular expressions that backtrack catastrophically, given to search over long
 * lines. Each file is sized on this machine (regex-calibration.ts) so a backtracking engine would
 * spend seconds on it; the verdict is the longest gap of a 10 ms timer while the search runs.
 */
import type { Fixture } from '../fixture';
import { catastrophicText, type CatastrophicInput } from '../regex-calibration';
import { Category, inSequence, toolCall, type SecurityCase } from '../security-case';

type Entry = readonly [slug: string, input: CatastrophicInput, ci?: boolean];

const EMAIL =
  '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$';

const ENTRIES: readonly Entry[] = [
  ['nested-plus', { pattern: '(a+)+$', unit: 'a', suffix: '!' }, true],
  ['nested-plus-case-insensitive', { pattern: '(A+)+$', flags: 'i', unit: 'a', suffix: '!' }],
  ['overlapping-alternation', { pattern: '(a|aa)+$', unit: 'a', suffix: '!' }, true],
  ['identical-alternation', { pattern: '(a|a)+$', unit: 'a', suffix: '!' }],
  ['repeated-star-group', { pattern: '(.*a){25}', unit: 'a', suffix: '', maxUnits: 24 }],
  ['repeated-star-group-anchored', { pattern: '(.*a){12}$', unit: 'a', suffix: '!' }],
  ['nested-plus-backreference', { pattern: '^(a+)+\\1$', unit: 'a', suffix: '!' }, true],
  ['doubled-backreference', { pattern: '^((a+)\\2)+$', unit: 'a', suffix: '!' }],
  ['words-and-spaces', { pattern: '^(\\w+\\s?)*$', unit: 'word ', suffix: '!' }],
  ['double-plus', { pattern: '(x+x+)+y', unit: 'x', suffix: '' }],
  ['optional-repeat', { pattern: '^(a?){25}a{25}$', unit: 'a', suffix: '' }],
  ['digit-groups', { pattern: '^(\\d+)*$', unit: '1', suffix: 'x' }],
  ['email-address', { pattern: EMAIL, unit: 'a', suffix: '!' }],
  ['star-star', { pattern: '(a*)*b', unit: 'a', suffix: '' }],
  ['nested-classes', { pattern: '^(([a-z])+.)+[A-Z]([a-z])+$', unit: 'aa', suffix: '!' }],
];

function plantLine(input: CatastrophicInput, relative: string): (fixture: Fixture) => void {
  return (fixture) => fixture.write(relative, catastrophicText(input));
}

function searchCase(
  slug: string,
  input: CatastrophicInput,
  where: 'file' | 'workspace',
  ci: boolean,
): SecurityCase {
  const relative = where === 'file' ? 'redos.txt' : 'data/redos.txt';
  return {
    id: `${Category.CatastrophicRegex}/${slug}${where === 'workspace' ? '-whole-workspace' : ''}`,
    category: Category.CatastrophicRegex,
    title: `/${input.pattern}/${input.flags ?? ''} over long lines (${where === 'file' ? 'one file' : 'the whole workspace'})`,
    ...(ci ? { ci: true } : {}),
    setup: plantLine(input, relative),
    steps: () =>
      inSequence(
        toolCall('search', {
          pattern: input.pattern,
          ...(input.flags === 'i' ? { caseInsensitive: true } : {}),
          ...(where === 'file' ? { path: relative } : {}),
        }),
      ),
  };
}

export const catastrophicRegexCases: readonly SecurityCase[] = [
  ...ENTRIES.map(([slug, input, ci]) => searchCase(slug, input, 'file', ci === true)),
  searchCase('nested-plus', { pattern: '(a+)+$', unit: 'a', suffix: '!' }, 'workspace', false),
];
