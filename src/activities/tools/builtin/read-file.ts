import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { HYPOTHESIS_RECOMMENDED, hypothesisField } from '../../../workflows/tools/hypothesis-field';
import type { FileHandle } from 'node:fs/promises';
import { suggestCall } from '../../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { escapeRegExp, failure, quoteShell, success } from '../tool-outcomes';
import { outcomeOfRefusal, statWorkspacePath } from '../workspace';
import { openFileBeneath } from '../workspace-access/open-beneath';
import { defineTool } from '../define-tool';
import type { ToolImplementation } from '../tool-context';
import { mediaKind, mediaOutcome, READ_FILE_MAX_ATTACHMENT_BYTES } from './read-file-media';

/** The most lines one read returns; larger files get an outline and are read in ranges. */
export const READ_FILE_MAX_LINES = 2000;

export const readFileInputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root, e.g. "src/app.ts".'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('First line to read (1-based). Use with `limit` to read part of a large file.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(READ_FILE_MAX_LINES)
    .optional()
    .describe(`How many lines to read from \`offset\` (at most ${READ_FILE_MAX_LINES}).`),
  hypothesis: hypothesisField,
});
export type ReadFileInput = z.infer<typeof readFileInputSchema>;

/** Characters one read returns at most (long lines count too). */
export const READ_FILE_MAX_CHARACTERS = 100_000;
/** Bytes read from disk at most: enough to outline any text file a model should be reading. */
const SCAN_LIMIT_BYTES = 16 * 1024 * 1024;
const OUTLINE_MAX_ENTRIES = 150;
const OUTLINE_LINE_CHARACTERS = 120;
/** Lines suggested per ranged read in candidates. */
const SUGGESTED_RANGE = 200;

export const readFile: ToolImplementation<ReadFileInput> = async (input, context) => {
  const existing = await statWorkspacePath({
    workspace: context.workspace,
    path: input.path,
    toolName: 'read_file',
    kind: 'file',
  });
  if (!existing.ok) return existing.outcome;
  const {
    path: { segments, relative },
    info,
  } = existing;
  if (info.isDirectory()) return directoryOutcome(relative);
  if (!info.isFile()) return notRegularFileOutcome(relative);
  let opened;
  try {
    // Opened without following links and checked again on the descriptor: the entry may have
    // been swapped since the stat above.
    opened = await openFileBeneath(context.workspace, segments, 'read');
  } catch (error) {
    return outcomeOfRefusal(
      error,
      { workspace: context.workspace, toolName: 'read_file', kind: 'file' },
      relative,
    );
  }
  const size = opened.info.size;
  let buffer: Buffer;
  try {
    buffer = await readHead(opened.file, Math.min(size, SCAN_LIMIT_BYTES));
  } finally {
    await opened.file.close();
  }

  // Images and PDFs go to the model as image/document blocks, before the text-only rule below.
  const media = mediaKind(buffer);
  if (media !== undefined) {
    const whole = buffer.length >= size ? buffer : undefined; // the size limit is mediaOutcome's
    const ranged = input.offset !== undefined || input.limit !== undefined;
    return mediaOutcome({ relative, bytes: whole, size, kind: media, ranged });
  }
  if (buffer.subarray(0, 8000).includes(0)) return binaryOutcome(relative, size);
  const text = buffer.toString('utf8');
  const lines = splitLines(text);
  const scannedWhole = buffer.length >= size;
  const whole = input.offset === undefined && input.limit === undefined;

  if (whole) {
    if (size === 0)
      return success({ content: `(${relative} is empty)`, facts: { bytes: 0, emptyOutput: true } });
    if (scannedWhole && lines.length <= READ_FILE_MAX_LINES && text.length <= READ_FILE_MAX_CHARACTERS) {
      return success({
        content: numbered(lines, 1),
        facts: { bytes: size, truncated: false, emptyOutput: false },
      });
    }
    return outlineOutcome({ relative, lines, size, scannedWhole });
  }
  return rangeOutcome({ relative, lines, size, scannedWhole, offset: input.offset ?? 1, limit: input.limit });
};

async function readHead(file: FileHandle, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, 0);
  return buffer.subarray(0, bytesRead);
}

/** Lines without their terminators; a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function numbered(lines: readonly string[], first: number): string {
  return lines.map((line, index) => `${first + index}\t${line}`).join('\n');
}

function rangeOutcome(options: {
  relative: string;
  lines: readonly string[];
  size: number;
  scannedWhole: boolean;
  offset: number;
  limit: number | undefined;
}): ToolOutcome {
  const { relative, lines, size, offset } = options;
  const total = lines.length;
  const totalLabel = options.scannedWhole ? `${total}` : `at least ${total}`;
  if (offset > total) {
    if (total === 0)
      return success({ content: `(${relative} is empty)`, facts: { bytes: size, emptyOutput: true } });
    return failure({
      content: `offset ${offset} is past the end of ${relative}, which has ${totalLabel} lines.`,
      candidates: [
        suggestCall('read_file', {
          path: relative,
          offset: Math.max(1, total - SUGGESTED_RANGE + 1),
          limit: SUGGESTED_RANGE,
        }),
        suggestCall('read_file', { path: relative, offset: 1, limit: SUGGESTED_RANGE }),
      ],
      facts: { bytes: size, emptyOutput: true },
    });
  }
  const wanted = lines.slice(offset - 1, offset - 1 + (options.limit ?? READ_FILE_MAX_LINES));
  const shown: string[] = [];
  let characters = 0;
  let cut = false;
  for (const line of wanted) {
    const remaining = READ_FILE_MAX_CHARACTERS - characters;
    if (remaining <= 0) {
      cut = true;
      break;
    }
    if (line.length > remaining) {
      shown.push(`${line.slice(0, remaining)}[… line cut: ${line.length - remaining} more characters …]`);
      cut = true;
      break;
    }
    shown.push(line);
    characters += line.length + 1;
  }
  const last = offset + shown.length - 1;
  const parts = [`Lines ${offset}-${last} of ${totalLabel} in ${relative}:`, numbered(shown, offset)];
  if (last < total || !options.scannedWhole) {
    parts.push(`(more lines follow: continue with offset ${last + 1})`);
  }
  return success({
    content: parts.join('\n'),
    facts: {
      bytes: size,
      emptyOutput: shown.length === 0,
      // The result shows less than the whole file.
      truncated: cut || offset > 1 || last < total || !options.scannedWhole,
    },
  });
}

/**
 * Too large to read whole: a language-neutral outline (numbered lines that start in column one
 * and contain a letter or digit, i.e. top-level declarations, headings, sections) so the model
 * can pick a range instead of flooding its context.
 */
function outlineOutcome(options: {
  relative: string;
  lines: readonly string[];
  size: number;
  scannedWhole: boolean;
}): ToolOutcome {
  const { relative, lines, size } = options;
  const entries: number[] = [];
  lines.forEach((line, index) => {
    if (/^\S/.test(line) && /[\p{L}\p{N}]/u.test(line)) entries.push(index + 1);
  });
  // Too many top-level lines (logs, data): sample evenly so the outline still spans the file.
  const step = Math.max(1, Math.ceil(entries.length / OUTLINE_MAX_ENTRIES));
  const shown = entries.filter((_, index) => index % step === 0);
  const outline = shown.map((lineNumber) => {
    const line = lines[lineNumber - 1] ?? '';
    const short = line.length > OUTLINE_LINE_CHARACTERS ? `${line.slice(0, OUTLINE_LINE_CHARACTERS)}…` : line;
    return `${lineNumber}\t${short}`;
  });
  const middle = shown[Math.floor(shown.length / 2)] ?? Math.max(1, Math.floor(lines.length / 2));
  const lineCount = options.scannedWhole
    ? `${lines.length} lines`
    : `at least ${lines.length} lines (first 16 MiB scanned)`;
  const header = [
    `${relative} is too large to read whole: ${lineCount}, ${size} bytes (one read returns at most ${READ_FILE_MAX_LINES} lines or ${READ_FILE_MAX_CHARACTERS} characters).`,
    shown.length === 0
      ? 'No outline: no line starts in column one.'
      : `Outline (top-level lines, ${shown.length} of ${entries.length} shown):`,
  ];
  return failure({
    content: [...header, ...outline].join('\n'),
    candidates: [
      `${suggestCall('read_file', { path: relative, offset: 1, limit: SUGGESTED_RANGE })} — read the beginning`,
      `${suggestCall('read_file', { path: relative, offset: middle, limit: SUGGESTED_RANGE })} — read from line ${middle} of the outline`,
      `${suggestCall('search', { pattern: 'WHAT_YOU_NEED', path: relative })} — find the lines you need, then read around them`,
    ],
    facts: { bytes: size, truncated: true, emptyOutput: false },
  });
}

function directoryOutcome(relative: string): ToolOutcome {
  return failure({
    content: `"${relative}" is a directory, not a file.`,
    candidates: [
      `${suggestCall('list_dir', { path: relative })} — see its files`,
      `${suggestCall('search', { pattern: 'WHAT_YOU_NEED', path: relative })} — search inside it`,
    ],
  });
}

function notRegularFileOutcome(relative: string): ToolOutcome {
  return failure({
    content: `"${relative}" is not a regular file (a device, socket or pipe); reading it could block.`,
    candidates: [
      `${suggestCall('run_command', { command: `ls -l ${quoteShell(relative)}` })} — see what it is`,
      suggestCall('list_dir', {
        path: relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : '.',
      }),
    ],
  });
}

function binaryOutcome(relative: string, size: number): ToolOutcome {
  return failure({
    content: `"${relative}" looks binary (${size} bytes, contains NUL bytes); read_file only shows text.`,
    candidates: [
      `${suggestCall('run_command', { command: `file ${quoteShell(relative)}` })} — identify its format`,
      `${suggestCall('search', { pattern: escapeRegExp(relative.split('/').at(-1) ?? relative) })} — find what produces or uses it`,
    ],
    facts: { bytes: size },
  });
}

/** The built-in read_file tool, defined with the same public API as any user tool. */
export const readFileTool = defineTool({
  name: 'read_file',
  input: readFileInputSchema,
  reversibility: Reversibility.ReadOnly,
  description: [
    'Read a text file in the workspace. Lines come back numbered ("12\\tcontent"); the numbers are not part of the file.',
    `Images (PNG, JPEG, GIF, WebP) and PDFs up to ${READ_FILE_MAX_ATTACHMENT_BYTES} bytes come back attached, for you to see.`,
    `A file longer than ${READ_FILE_MAX_LINES} lines is not returned whole: you get an outline (numbered top-level lines) and then read the part you need with offset/limit.`,
    HYPOTHESIS_RECOMMENDED,
  ].join(' '),
  summarize(input) {
    if (input.offset === undefined && input.limit === undefined) return `read_file: ${input.path}`;
    const first = input.offset ?? 1;
    const last = input.limit === undefined ? 'end' : String(first + input.limit - 1);
    return `read_file: ${input.path} (lines ${first}-${last})`;
  },
  execute: readFile,
});
