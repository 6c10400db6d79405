import { z } from 'zod';
import { defineTool, readWorkspaceFile } from 'keel';

/** A read-only tool: it runs without approval, and Temporal may retry it freely. */
export const countWords = defineTool({
  name: 'count_words',
  description: 'Count the words of a text file in the workspace. Read-only.',
  input: z.object({ path: z.string().min(1).describe('relative to the workspace, e.g. "notes.md"') }),
  reversibility: 'read-only',
  summarize: (input) => `count_words: ${input.path}`,
  async execute(input, context) {
    // Inside the workspace only, no symbolic link followed: a refusal tells the model why.
    const file = await readWorkspaceFile(context, input.path, { toolName: 'count_words' });
    if (!file.ok) return file.outcome;
    const text = file.content.toString('utf8');
    const words = text.split(/\s+/).filter((word) => word !== '').length;
    return { path: input.path, words }; // any JSON value goes to the model as JSON
  },
});
