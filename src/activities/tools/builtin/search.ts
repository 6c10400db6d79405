import { RE2JS } from 're2js';
import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { HYPOTHESIS_RECOMMENDED, hypothesisField } from '../../../workflows/tools/hypothesis-field';
import { shorten } from '../../../workflows/tools/suggest-call';
import { suggestCall } from '../../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { escapeRegExp, failure, quoteShell, success } from '../tool-outcomes';
import { walkFiles } from '../walk-files';
import { outcomeOfRefusal, statWorkspacePath } from '../workspace';
import { BeneathError, openFileBeneath, readRegularFile, typeOf } from '../workspace-access/open-beneath';
import { defineTool } from '../define-tool';
import type { ToolImplementation } from '../tool-context';

export const SEARCH_MAX_RESULTS = 500;

export const searchInputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression (RE2 syntax: like JavaScript, without backreferences or lookaround) matched against each line, e.g. "parse(Config|Options)".',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'File or directory to search, relative to the workspace root; omit or "." for the whole workspace.',
    ),
  caseInsensitive: z.boolean().optional().describe('Match regardless of letter case. Default false.'),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_MAX_RESULTS)
    .optional()
    .describe('How many matching lines to show (default 100); all matches are still counted.'),
  hypothesis: hypothesisField,
});
export type SearchInput = z.infer<typeof searchInputSchema>;

export const SEARCH_DEFAULT_RESULTS = 100;
/** Files larger than this are skipped in directory searches (generated or data files, mostly). */
export const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
/** Files scanned at most per search, so one call stays bounded on a huge tree. */
export const SEARCH_MAX_FILES = 5000;
const MATCH_LINE_CHARACTERS = 200;

export const search: ToolImplementation<SearchInput> = async (input, context) => {
  let regex: RE2JS;
  try {
    // RE2 (linear time), not the backtracking RegExp: a pattern like (a+)+$ on a long line kept
    // a worker's event loop busy for seconds, stalling every other goal on it. RE2 has no
    // backreferences or lookaround; such a pattern is refused with what to do instead.
    regex = RE2JS.compile(input.pattern, input.caseInsensitive === true ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    return invalidPatternOutcome(input, error instanceof Error ? error.message : String(error));
  }
  const existing = await statWorkspacePath({
    workspace: context.workspace,
    path: input.path ?? '.',
    toolName: 'search',
  });
  if (!existing.ok) return existing.outcome;
  const {
    path: { segments, relative },
    info,
  } = existing;

  const maxResults = input.maxResults ?? SEARCH_DEFAULT_RESULTS;
  const shown: string[] = [];
  let matchCount = 0;
  let filesScanned = 0;
  let filesWithMatches = 0;
  let skipped = 0;
  let hitFileLimit = false;

  const scan = (text: string, displayPath: string): void => {
    let matchedHere = false;
    text.split('\n').forEach((line, index) => {
      if (!regex.test(line)) return;
      matchCount += 1;
      matchedHere = true;
      if (shown.length < maxResults) {
        const trimmed = line.trim();
        const short =
          trimmed.length > MATCH_LINE_CHARACTERS ? `${trimmed.slice(0, MATCH_LINE_CHARACTERS)}…` : trimmed;
        shown.push(`${displayPath}:${index + 1}: ${short}`);
      }
    });
    if (matchedHere) filesWithMatches += 1;
  };

  if (info.isFile()) {
    filesScanned = 1;
    let content: Buffer;
    try {
      content = await readBeneath(context.workspace, segments);
    } catch (error) {
      return outcomeOfRefusal(
        error,
        { workspace: context.workspace, toolName: 'search', kind: 'file' },
        relative,
      );
    }
    if (isBinary(content)) skipped += 1;
    else scan(content.toString('utf8'), relative);
  } else if (!info.isDirectory()) {
    return outcomeOfRefusal(
      new BeneathError({ kind: 'not-a-file', at: relative, type: typeOf(info) }),
      { workspace: context.workspace, toolName: 'search' },
      relative,
    );
  } else {
    for await (const file of walkFiles({
      root: context.workspace,
      start: relative,
      signal: context.signal,
    })) {
      if (file.kind === 'symlink' || file.size > SEARCH_MAX_FILE_BYTES) {
        skipped += 1;
        continue;
      }
      if (filesScanned >= SEARCH_MAX_FILES) {
        hitFileLimit = true;
        break;
      }
      filesScanned += 1;
      if (filesScanned % 200 === 0) context.heartbeat();
      let content: Buffer;
      try {
        content = await readRegularFile(file.path, SEARCH_MAX_FILE_BYTES);
      } catch {
        skipped += 1;
        continue;
      }
      if (isBinary(content)) skipped += 1;
      else scan(content.toString('utf8'), file.relative);
    }
  }

  const notes = [
    skipped > 0 ? `${skipped} files skipped (binary, symbolic link, unreadable or over 1 MB).` : '',
    hitFileLimit ? `Stopped after ${SEARCH_MAX_FILES} files: narrow the path to search the rest.` : '',
  ].filter((note) => note !== '');
  const where = `in ${relative} (${filesScanned} files searched)`;
  if (matchCount === 0) {
    return noMatchesOutcome({
      input,
      relative,
      content: [`No lines match /${input.pattern}/ ${where}.`, ...notes].join('\n'),
    });
  }
  const truncated = shown.length < matchCount || hitFileLimit;
  const summary = `${matchCount} matching lines in ${filesWithMatches} files ${where}${shown.length < matchCount ? `; first ${shown.length} shown` : ''}:`;
  return success({
    content: [summary, ...shown, ...notes].join('\n'),
    facts: { matchCount, emptyOutput: false, truncated },
  });
};

async function readBeneath(workspace: string, segments: readonly string[]): Promise<Buffer> {
  const { file } = await openFileBeneath(workspace, segments, 'read');
  try {
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/** NUL bytes near the start mean binary, the same heuristic git and grep use. */
function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

function invalidPatternOutcome(input: SearchInput, message: string): ToolOutcome {
  return failure({
    content: `Invalid regular expression /${input.pattern}/: ${message}.`,
    candidates: [
      `${suggestCall('search', { ...withoutHypothesis(input), pattern: escapeRegExp(input.pattern) })} — search for the text literally`,
      'Fix the pattern (RE2 syntax: escape ( ) [ ] { } . * + ? with a backslash to match them literally; backreferences such as \\1 and lookaround such as (?=…) are not supported)',
    ],
    facts: { matchCount: 0, emptyOutput: true },
  });
}

/** Zero matches: widen the pattern, look elsewhere, ignore case. */
function noMatchesOutcome(options: { input: SearchInput; relative: string; content: string }): ToolOutcome {
  const { input, relative } = options;
  const base = withoutHypothesis(input);
  const candidates: string[] = [];
  const wider = widerPattern(input.pattern);
  if (wider !== undefined)
    candidates.push(`${suggestCall('search', { ...base, pattern: wider })} — a wider pattern`);
  if (relative !== '.') {
    candidates.push(`${suggestCall('search', { ...base, path: '.' })} — search the whole workspace`);
  } else {
    candidates.push(
      `${suggestCall('list_dir', { path: '.' })} — check the layout; the text may be in a skipped or generated file`,
    );
  }
  if (input.caseInsensitive !== true) {
    candidates.push(`${suggestCall('search', { ...base, caseInsensitive: true })} — ignore letter case`);
  } else if (escapeRegExp(input.pattern) !== input.pattern) {
    candidates.push(
      `${suggestCall('search', { ...base, pattern: escapeRegExp(input.pattern) })} — match the text literally`,
    );
  }
  if (candidates.length < 2) {
    const word = (input.pattern.match(/[\p{L}\p{N}_]+/gu) ?? [input.pattern])[0] ?? input.pattern;
    candidates.push(
      `${suggestCall('run_command', { command: `find . -iname ${quoteShell(`*${word}*`)} -not -path '*/node_modules/*' -not -path '*/.git/*'` })} — look for files named like it`,
    );
  }
  return failure({
    content: options.content,
    candidates,
    facts: { matchCount: 0, emptyOutput: true, truncated: false },
  });
}

/** The longest word of the pattern, or a shorter prefix of a single word; undefined if nothing wider. */
function widerPattern(pattern: string): string | undefined {
  const words = pattern.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const longest = words.reduce((best, word) => (word.length > best.length ? word : best), '');
  if (longest.length >= 3 && longest !== pattern) return longest;
  if (longest.length >= 6) return longest.slice(0, Math.ceil(longest.length / 2));
  return undefined;
}

function withoutHypothesis(input: SearchInput): Omit<SearchInput, 'hypothesis'> {
  const { hypothesis: _hypothesis, ...rest } = input;
  return rest;
}

/** The built-in search tool, defined with the same public API as any user tool. */
export const searchTool = defineTool({
  name: 'search',
  input: searchInputSchema,
  reversibility: Reversibility.ReadOnly,
  description: [
    'Search file contents in the workspace with a regular expression, line by line. Returns "path:line: text" for each matching line and the total match count.',
    'Skips node_modules, .git, binary files, symbolic links and files over 1 MB.',
    `Searching the whole workspace is costly: ${HYPOTHESIS_RECOMMENDED}`,
  ].join(' '),
  summarize: (input) =>
    `search: /${shorten(input.pattern, 60)}/${input.caseInsensitive === true ? 'i' : ''} in ${input.path ?? '.'}`,
  execute: search,
});
