import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from 'keel';

/** A read-only tool: it runs without approval, and Temporal may retry it freely. */
export const countWords = defineTool({
  name: 'count_words',
  description: 'Count the words of a text file in the workspace. Read-only.',
  input: z.object({ path: z.string().min(1).describe('relative to the workspace, e.g. "notes.md"') }),
  reversibility: 'read-only',
  summarize: (input) => `count_words: ${input.path}`,
  async execute(input, context) {
    const text = await readFile(path.resolve(context.workspace, input.path), 'utf8');
    const words = text.split(/\s+/).filter((word) => word !== '').length;
    return { path: input.path, words }; // any JSON value goes to the model as JSON
  },
});
