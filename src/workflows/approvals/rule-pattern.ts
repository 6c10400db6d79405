/**
 * Glob patterns of approval rules. In paths `*` and `?` stay within one path segment, `**`
 * crosses segments (`src/**` covers everything under src/) and `**\/` also matches no segment
 * (`src/**\/*.ts` covers `src/a.ts`); in commands and inputs `*` matches any characters, spaces
 * included (`npm test*` covers `npm test -- --watch`). Everything else is literal.
 *
 * Matched with a table of reachable pattern positions, one subject character at a time, so the
 * time is at most pattern length × subject length whatever the two are: a model cannot write a
 * subject that makes a human's pattern backtrack for long. Pure, for the workflow.
 */

type Token =
  | { kind: 'char'; char: string }
  | { kind: 'one' }
  | { kind: 'any'; crossesSlash: boolean }
  /** `**\/` in a path: nothing, or any text ending with `/`. */
  | { kind: 'dirs' };

export type PatternFlavour = 'path' | 'text';

export const MAX_PATTERN_LENGTH = 1000;

export function globMatches(pattern: string, subject: string, flavour: PatternFlavour): boolean {
  if (flavour === 'text' && !holdsLiterals(pattern, subject)) return false;
  const tokens = tokenize(pattern, flavour);
  const start = new Array<boolean>(tokens.length + 1).fill(false);
  start[0] = true;
  let reachable = skipEmpty(tokens, start);
  for (const char of subject) {
    const next = new Array<boolean>(tokens.length + 1).fill(false);
    /** Inside a `**\/` past its start: only a `/` leads on (below), never nothing. */
    const inDirs: number[] = [];
    tokens.forEach((token, position) => {
      if (!reachable[position]) return;
      switch (token.kind) {
        case 'any':
          if (token.crossesSlash || char !== '/') next[position] = true;
          return;
        case 'dirs':
          inDirs.push(position);
          if (char === '/') next[position + 1] = true;
          return;
        case 'one':
          if (flavour === 'text' || char !== '/') next[position + 1] = true;
          return;
        case 'char':
          if (token.char === char) next[position + 1] = true;
      }
    });
    reachable = skipEmpty(tokens, next);
    for (const position of inDirs) reachable[position] = true;
  }
  return reachable[tokens.length] === true;
}

/**
 * In text, `*` and `?` take whole characters, so each literal run between them appears in any
 * subject the pattern matches: a native search rules most subjects out before the table pass
 * (speed only; not in paths, where `**\/` may match nothing and take its `/` along).
 */
function holdsLiterals(pattern: string, subject: string): boolean {
  return pattern.split(/[*?]+/).every((literal) => subject.includes(literal));
}

/**
 * Stars and `**\/` may match nothing: wherever one is reached, so is the position after it. A
 * `**\/` is skipped only where it is entered, not after it took characters: `**\/b` covers `x/b`,
 * never `xb`.
 */
function skipEmpty(tokens: readonly Token[], table: boolean[]): boolean[] {
  tokens.forEach((token, position) => {
    if (table[position] && (token.kind === 'any' || token.kind === 'dirs')) table[position + 1] = true;
  });
  return table;
}

function tokenize(pattern: string, flavour: PatternFlavour): Token[] {
  const tokens: Token[] = [];
  const characters = [...pattern];
  for (let index = 0; index < characters.length; index += 1) {
    const char = characters[index] ?? '';
    if (char === '?') tokens.push({ kind: 'one' });
    else if (char !== '*') tokens.push({ kind: 'char', char });
    else {
      let stars = 1;
      while (characters[index + 1] === '*') {
        stars += 1;
        index += 1;
      }
      if (flavour === 'path' && stars >= 2 && characters[index + 1] === '/') {
        index += 1;
        tokens.push({ kind: 'dirs' });
      } else tokens.push({ kind: 'any', crossesSlash: flavour === 'text' || stars >= 2 });
    }
  }
  return tokens;
}
