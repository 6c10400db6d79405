import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { hypothesisField } from '../../../workflows/tools/hypothesis-field';
import type { FileHandle } from 'node:fs/promises';
import { suggestCall } from '../../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { escapeRegExp, failure, quoteShell, success } from '../tool-outcomes';
import { withWorkspaceFile } from '../workspace-access/workspace-file';
import { defineTool } from '../define-tool';
import type { ToolImplementation } from '../tool-context';
import { fileStateDigest } from './state-digest';
import { dropPrivilegeBits, privilegeSentence } from './privilege-bits';

export const editFileInputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root.'),
  oldString: z
    .string()
    .min(1)
    .describe(
      'Exact text to replace, including whitespace and indentation. It must occur exactly once in the file: include enough surrounding lines to make it unique. Do not include read_file line numbers.',
    ),
  newString: z.string().describe('The text that replaces oldString.'),
  hypothesis: hypothesisField,
});
export type EditFileInput = z.infer<typeof editFileInputSchema>;

/** Lines of context around a match suggested for reading. */
const CONTEXT_LINES = 5;
const LINES_LISTED = 10;

export const editFile: ToolImplementation<EditFileInput> = (input, context) =>
  withWorkspaceFile(
    { context, path: input.path, toolName: 'edit_file', access: 'update' },
    (file, relative) => edit(input, relative, file),
  );

/** Larger files are edited with a command (sed, a script): edit_file reads the whole file. */
export const EDIT_FILE_MAX_BYTES = 16 * 1024 * 1024;

async function edit(input: EditFileInput, relative: string, file: FileHandle): Promise<ToolOutcome> {
  const size = (await file.stat()).size;
  if (size > EDIT_FILE_MAX_BYTES) {
    return failure({
      content: `${relative} has ${size} bytes, more than edit_file reads (${EDIT_FILE_MAX_BYTES}); nothing was changed.`,
      candidates: [
        `${suggestCall('run_command', { command: `sed -n '1,40p' ${quoteShell(relative)}` })} — look at its start`,
        'Change it with a command (sed, a script) that does not load the whole file',
      ],
    });
  }
  const content = await file.readFile('utf8');
  const positions = occurrences(content, input.oldString);
  const oldLineCount = input.oldString.split('\n').length;
  if (positions.length === 0) return notFoundOutcome({ input, relative, content, oldLineCount });
  if (positions.length > 1) {
    const lines = positions.map((position) => lineOf(content, position));
    const listed = lines.slice(0, LINES_LISTED).join(', ') + (lines.length > LINES_LISTED ? ', …' : '');
    return failure({
      content: `oldString occurs ${positions.length} times in ${relative} (at lines ${listed}); it must occur exactly once. Nothing was changed.`,
      candidates: [
        ...lines
          .slice(0, 2)
          .map((line) => `${readAround(relative, line, oldLineCount)} — read the occurrence at line ${line}`),
        'Make oldString longer with neighbouring lines that occur only around the place you mean, then call edit_file again',
      ],
      facts: { matchCount: positions.length },
    });
  }
  if (input.oldString === input.newString) {
    return failure({
      content: `oldString and newString are identical; nothing to change in ${relative}.`,
      candidates: [
        `${readAround(relative, lineOf(content, positions[0] ?? 0), oldLineCount)} — check the current text`,
        'Call edit_file with the newString you intend',
      ],
      facts: { matchCount: 1 },
    });
  }

  const position = positions[0] ?? 0;
  // Slices, not String.replace: newString may contain "$&" and similar replacement patterns.
  const updated =
    content.slice(0, position) + input.newString + content.slice(position + input.oldString.length);
  const bytes = Buffer.from(updated, 'utf8');
  await file.truncate(0);
  await file.write(bytes, 0, bytes.length, 0);
  const removed = await dropPrivilegeBits(file, relative);
  const line = lineOf(content, position);
  return success({
    content: `Edited ${relative} at line ${line}: ${oldLineCount} lines replaced by ${input.newString.split('\n').length}.${privilegeSentence(removed)}`,
    facts: { matchCount: 1, bytes: bytes.length },
    effects: {
      created: [],
      modified: [relative],
      deleted: [],
      stateDigest: fileStateDigest(relative, bytes),
    },
  });
}

/** Non-overlapping start positions of needle in text. */
function occurrences(text: string, needle: string): number[] {
  const positions: number[] = [];
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) {
    positions.push(index);
  }
  return positions;
}

function lineOf(text: string, position: number): number {
  let line = 1;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < position;
    index = text.indexOf('\n', index + 1)
  )
    line += 1;
  return line;
}

function readAround(relative: string, line: number, lineCount: number): string {
  const offset = Math.max(1, line - CONTEXT_LINES);
  return suggestCall('read_file', { path: relative, offset, limit: lineCount + 2 * CONTEXT_LINES });
}

/**
 * Zero matches usually means the text drifted (whitespace, an earlier edit) or line numbers from
 * read_file were copied in; point at where the first line of oldString still appears, if anywhere.
 */
function notFoundOutcome(options: {
  input: EditFileInput;
  relative: string;
  content: string;
  oldLineCount: number;
}): ToolOutcome {
  const { input, relative, content, oldLineCount } = options;
  const firstLine =
    input.oldString
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  const fileLines = content.split('\n');
  const foundAt = firstLine === '' ? -1 : fileLines.findIndex((line) => line.includes(firstLine));
  const notes = [`oldString was not found in ${relative}; nothing was changed.`];
  if (/^\s*\d+\t/m.test(input.oldString)) {
    notes.push('It seems to contain line numbers from read_file ("12\\t…"); they are not part of the file.');
  }
  const candidates: string[] = [];
  if (foundAt >= 0) {
    notes.push(`Its first line occurs at line ${foundAt + 1}; the lines after it differ.`);
    candidates.push(`${readAround(relative, foundAt + 1, oldLineCount)} — read the current text there`);
  } else {
    candidates.push(
      `${suggestCall('read_file', { path: relative, ...(fileLines.length > 200 ? { offset: 1, limit: 200 } : {}) })} — read the current text`,
    );
  }
  if (firstLine !== '') {
    candidates.push(
      `${suggestCall('search', { pattern: escapeRegExp(firstLine), path: relative })} — find where that text is now`,
    );
  }
  candidates.push(
    'Copy oldString exactly from the file, with its whitespace and indentation, then call edit_file again',
  );
  return failure({ content: notes.join(' '), candidates, facts: { matchCount: 0 } });
}

/** The built-in edit_file tool, defined with the same public API as any user tool. */
export const editFileTool = defineTool({
  name: 'edit_file',
  input: editFileInputSchema,
  reversibility: Reversibility.Mutating,
  description:
    'Replace one exact occurrence of oldString with newString in a file. Fails, changing nothing, when oldString occurs zero times or more than once, and says how many times it occurs.',
  summarize: (input) => `edit_file: ${input.path}`,
  execute: editFile,
});
