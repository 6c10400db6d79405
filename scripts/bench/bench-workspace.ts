import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WORKSPACE_FILES } from './bench-scenario';

/** The workspace every system works in: the files the reads find. */
export function prepareWorkspace(directory: string): void {
  mkdirSync(path.join(directory, 'files'), { recursive: true });
  mkdirSync(path.join(directory, 'out'), { recursive: true });
  for (let index = 0; index < WORKSPACE_FILES; index++) {
    const lines = Array.from(
      { length: 6 },
      (_, line) => `line ${line + 1} of file ${index}: some text to read`,
    );
    writeFileSync(path.join(directory, 'files', `file-${index}.txt`), `${lines.join('\n')}\n`);
  }
}
