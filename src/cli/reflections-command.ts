import type { Command } from 'commander';
import type * as CreateReflectionStore from '../activities/reflection-store/create-reflection-store';
import type * as KeelConfig from '../config/keel-config';
import type * as ReflectionStoreSettings from '../config/reflection-store-settings';
import {
  lookupReflection,
  taskIdentity,
  type ReflectionStore,
  type StoredReflection,
} from '../activities/reflection-store/reflection-store';
import type { TaskReflection } from '../workflows/reflection/task-reflection';
import { CliError } from './cli-error';

/**
 * `keel reflections` and `keel reflections show <identity | description>`: what keel has learned
 * about each task across runs (issue 5). They read the reflection store directly, so they work
 * without a Temporal server.
 */

export interface ReflectionCommandOptions {
  /**
   * The store to read, and where it is (said when it holds nothing); by default the worker's:
   * KEEL_REFLECTION_* and keel.config.yaml (see reflectionStoreSettings). Closed after use.
   */
  storeFactory?: () => ReflectionStore & { description?: string };
  print?: (line: string) => void;
}

/** Longest first line the list shows before cutting it with an ellipsis. */
const SUMMARY_WIDTH = 80;

export function registerReflectionCommands(program: Command, options: ReflectionCommandOptions = {}): void {
  const storeFactory = options.storeFactory ?? storeFromSettings;
  const print = options.print ?? ((line: string) => console.log(line));

  const reflections = program
    .command('reflections')
    .description('list what keel has learned about each task (identity, runs, last reflection, first line)')
    .action(async () => {
      let where: string | undefined;
      const entries = await withStore(storeFactory, (store) => {
        where = store.description;
        return store.list();
      });
      if (entries.length === 0) return print(`no reflections stored${where ? `: looked in ${where}` : ''}`);
      listLines(entries).forEach((line) => print(line));
    });

  reflections
    .command('show')
    .description('print the reflection stored for a task')
    .argument('<identity-or-description...>', 'a 64-character task identity, or the task description')
    .action(async (words: string[]) => {
      const query = words.join(' ');
      const found = await withStore(storeFactory, async (store) => {
        const where = store.description;
        const match = await lookupReflection(store, query);
        if (!match) return { where, match: undefined };
        const description =
          match.taskIdentity === taskIdentity(query)
            ? query
            : (await store.list()).find((entry) => entry.taskIdentity === match.taskIdentity)
                ?.taskDescription;
        return {
          where,
          match: { ...match, ...(description === undefined ? {} : { taskDescription: description }) },
        };
      });
      if (!found.match) {
        throw new CliError(
          `no reflection stored for ${JSON.stringify(shorten(printable(query), SUMMARY_WIDTH))} ` +
            `(task identity ${taskIdentity(query)})${found.where ? `; looked in ${found.where}` : ''}`,
        );
      }
      showLines(found.match).forEach((line) => print(line));
    });
}

/** Aligned columns: identity, runs, when, and the first line of the refined description. */
export function listLines(entries: readonly StoredReflection[]): string[] {
  const rows = entries.map((entry) => [
    entry.taskIdentity,
    String(entry.reflection.runCount),
    entry.reflection.reflectedAt,
    shorten(firstLine(entry.reflection.refinedDescription), SUMMARY_WIDTH),
  ]);
  const header = ['IDENTITY', 'RUNS', 'REFLECTED AT', 'REFINED DESCRIPTION'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  // The last column is not padded, so lines carry no trailing spaces.
  const format = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ');
  return [format(header), ...rows.map(format)];
}

/** The whole reflection, labelled, with multi-line text indented under its label. */
export function showLines(found: {
  taskIdentity: string;
  reflection: TaskReflection;
  taskDescription?: string;
}): string[] {
  const { reflection } = found;
  return [
    ...(found.taskDescription === undefined ? [] : labelled('task', found.taskDescription)),
    `identity: ${found.taskIdentity}`,
    `runs: ${reflection.runCount}`,
    `reflected at: ${reflection.reflectedAt}`,
    ...labelled('refined description', reflection.refinedDescription),
    ...labelled('output guidance', reflection.refinedExpectedOutput),
    ...listed('observations', reflection.observations),
    ...listed('suggestions', reflection.suggestions),
  ];
}

function labelled(label: string, text: string): string[] {
  const lines = printable(text).trim().split('\n');
  if (lines.length === 1) return [`${label}: ${lines[0] || '(empty)'}`];
  return [`${label}:`, ...lines.map((line) => (line.trim() ? `  ${line}` : ''))];
}

function listed(label: string, items: readonly string[]): string[] {
  const present = items.map((item) => printable(item).trim()).filter((item) => item.length > 0);
  if (present.length === 0) return [`${label}: none`];
  return [`${label}:`, ...present.map((item) => `  - ${item.replace(/\n/g, '\n    ')}`)];
}

/**
 * Reflections are model output: control characters (terminal escape sequences among them) are
 * dropped before printing, keeping only newlines and tabs.
 */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

function firstLine(text: string): string {
  return (
    printable(text)
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line.length > 0) ?? ''
  );
}

function shorten(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/**
 * Opens the store, runs `work`, and always closes it. Store failures become one CLI line naming
 * the store, so a database connection error is not mistaken for an unreachable Temporal.
 */
async function withStore<Result>(
  storeFactory: () => ReflectionStore & { description?: string },
  work: (store: ReflectionStore & { description?: string }) => Promise<Result>,
): Promise<Result> {
  const store = storeFactory();
  try {
    return await work(store);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`reflection store: ${message.split('\n')[0] ?? message}`);
  } finally {
    await store.close?.();
  }
}

/**
 * The worker's store, read through the same settings the worker reads. Its modules (yaml, pg) are
 * loaded here, when a reflections command runs, so they do not slow every other command's start.
 */
function storeFromSettings(): ReflectionStore & { description: string } {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { ReflectionStoreConfigError, createReflectionStore } =
    require('../activities/reflection-store/create-reflection-store') as typeof CreateReflectionStore;
  const { KeelConfigError } = require('../config/keel-config') as typeof KeelConfig;
  const { reflectionStoreSettings } =
    require('../config/reflection-store-settings') as typeof ReflectionStoreSettings;
  /* eslint-enable @typescript-eslint/no-require-imports */
  try {
    const settings = reflectionStoreSettings({ cwd: process.cwd(), env: process.env });
    return Object.assign(createReflectionStore(settings.config, { warn: () => {} }), {
      description: settings.description,
    });
  } catch (error) {
    if (error instanceof ReflectionStoreConfigError || error instanceof KeelConfigError)
      throw new CliError(error.message);
    throw error;
  }
}
