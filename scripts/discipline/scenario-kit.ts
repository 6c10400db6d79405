import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';

/**
 * What every discipline scenario is made of, shared by the scenario files (kept apart from the
 * suite itself so that the files of scenarios import it and not each other).
 */
export interface DisciplineScenario {
  name: string;
  kind: 'misbehaving' | 'good';
  /**
   * What the guards should do to a misbehaving scenario: `stop` it (the default), or only `warn`
   * it (a one-off slip such as a single flood of parallel calls: a stop there is a false stop).
   */
  expect?: 'stop' | 'warn';
  /** What it does wrong (or right), one line for the table's notes. */
  behaviour: string;
  /** Tool calls made before the misbehaviour starts; steps are counted from the next one. */
  goodCallsBefore: number;
  turns: ScenarioInput['turns'];
  /** The goal's text after the routing marker (default: the rename task most scenarios act on). */
  task?: string;
  input?: Partial<GoalInput>;
  /** Files the workspace starts with. */
  files: Record<string, string>;
  /** Structured answers (the progress judge's verdicts); by default the judge sees progress. */
  structured?: ScenarioInput['structured'];
  /** A human who denies every approval request of the goal (the runner plays them and counts). */
  human?: 'deny';
}

export type Turn = ScenarioInput['turns'][number];
export const call = (name: string, input: Record<string, unknown>) => ({ name, input });
export const repeat = <T = Turn>(times: number, turn: (index: number) => T): T[] =>
  Array.from({ length: times }, (_, index) => turn(index));
/** A reply that answers the checkpoint's three questions in passing (the judge is generous). */
export const onTask = (found: string, next: string) => `Still on task: found ${found}; next I will ${next}.`;
export const NEVER = 'never reached: a guard should have stopped this scenario';
export const DEFAULT_TASK = 'rename old() to renamed() in src/ and keep the project tidy';

export const MODULES = 12;
const moduleFiles = Object.fromEntries(
  Array.from({ length: MODULES }, (_, index) => [
    `src/module-${index + 1}.ts`,
    `// module ${index + 1}\nexport function run${index + 1}() {\n  return old();\n}\n`,
  ]),
);
const vendorFiles = Object.fromEntries(
  Array.from({ length: 30 }, (_, index) => [
    `vendor/lib-${index + 1}.js`,
    `// vendored library ${index + 1}\n`,
  ]),
);
export const baseFiles: Record<string, string> = {
  'README.md': '# demo project\nRename old() to renamed() in src/.\n',
  'notes.md': 'remember the milk\n',
  'config.json': '{ "level": 1 }\n',
  ...moduleFiles,
  ...vendorFiles,
};

/** Lays out a scenario's files in an empty workspace. */
export function prepareWorkspace(directory: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(directory, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}
