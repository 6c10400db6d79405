import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';

/**
 * A tool that does not stop when told (issue 48's rewinds): `late_write` waits until its call is
 * cancelled — the run it belongs to has ended — and then still writes its file, a moment later.
 * A restore that did not wait for it would find that file written into the restored workspace.
 */
export function lateWriterTool(options: { lateByMs: number; giveUpAfterMs: number }) {
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let finished = false;
  const tool = defineTool({
    name: 'late_write',
    description: 'Write a file, slowly.',
    input: z.object({ path: z.string() }),
    reversibility: 'mutating',
    execute: async (input, context) => {
      started();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.giveUpAfterMs);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      await new Promise((resolve) => setTimeout(resolve, options.lateByMs));
      await writeFile(path.join(context.workspace, input.path), 'written late\n');
      finished = true;
      return 'written';
    },
  });
  return { tool, running, finished: () => finished };
}
