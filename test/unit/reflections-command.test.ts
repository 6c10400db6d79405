import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { CliError } from '../../src/cli/cli-error';
import { registerReflectionCommands } from '../../src/cli/reflections-command';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { taskIdentity, type ReflectionStore } from '../../src/activities/reflection-store/reflection-store';
import type { TaskReflection } from '../../src/workflows/reflection/task-reflection';

const research = 'Research AI trends and write a report';
const triage = 'Triage the open issues\nand label each one';

const researchReflection: TaskReflection = {
  refinedDescription: 'Research the three most cited AI trends.\nCite a source for each.',
  refinedExpectedOutput: 'Markdown with exactly three sections.',
  observations: ['The first run listed eight trends.', 'Sources were missing.'],
  suggestions: ['Cap the list at three.'],
  reflectedAt: '2025-03-02T09:30:00.000Z',
  runCount: 3,
};

const triageReflection: TaskReflection = {
  refinedDescription: '\n  Label every open issue \u001b[31mbug\u001b[0m or feature.',
  refinedExpectedOutput: 'One line per issue.',
  observations: [],
  suggestions: [],
  reflectedAt: '2025-03-01T08:00:00.000Z',
  runCount: 1,
};

interface Harness {
  program: Command;
  lines: string[];
  closes: () => number;
  run: (...args: string[]) => Promise<void>;
}

/** A fresh program with the reflection commands over a memory store holding two reflections. */
async function harness(options: { withDescriptions?: boolean } = {}): Promise<Harness> {
  const memory = createMemoryReflectionStore({ warn: () => {} });
  const withDescriptions = options.withDescriptions ?? true;
  await memory.store(
    taskIdentity(research),
    researchReflection,
    withDescriptions ? { taskDescription: research } : undefined,
  );
  await memory.store(
    taskIdentity(triage),
    triageReflection,
    withDescriptions ? { taskDescription: triage } : undefined,
  );
  let closed = 0;
  const store: ReflectionStore = {
    store: (identity, reflection, storeOptions) => memory.store(identity, reflection, storeOptions),
    retrieve: (identity) => memory.retrieve(identity),
    list: () => memory.list(),
    close: () => {
      closed += 1;
      return Promise.resolve();
    },
  };
  const lines: string[] = [];
  const program = new Command('keel')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerReflectionCommands(program, { storeFactory: () => store, print: (line) => lines.push(line) });
  return {
    program,
    lines,
    closes: () => closed,
    run: async (...args) => {
      await program.parseAsync(args, { from: 'user' });
    },
  };
}

test('keel reflections lists identity, runs, time and first line in aligned columns, newest first', async () => {
  const { lines, run, closes } = await harness();
  await run('reflections');
  assert.equal(lines.length, 3);
  const [header, newest, older] = lines as [string, string, string];
  assert.match(header, /^IDENTITY\s+RUNS\s+REFLECTED AT\s+REFINED DESCRIPTION$/);
  assert.match(
    newest,
    new RegExp(
      `^${taskIdentity(research)}\\s+3\\s+2025-03-02T09:30:00.000Z\\s+Research the three most cited AI trends\\.$`,
    ),
  );
  // The first non-blank line, with the terminal escape sequence removed.
  assert.match(
    older,
    new RegExp(
      `^${taskIdentity(triage)}\\s+1\\s+2025-03-01T08:00:00.000Z\\s+Label every open issue \\[31mbug\\[0m or feature\\.$`,
    ),
  );
  assert.equal(older.includes('\u001b'), false, 'no escape character reaches the terminal');
  // Aligned: every column starts at the same offset on every line.
  for (const title of ['RUNS', 'REFLECTED AT', 'REFINED DESCRIPTION']) {
    const offset = header.indexOf(title);
    assert.ok(offset > 0);
    assert.notEqual(newest[offset - 1], undefined);
    assert.equal(newest[offset - 1], ' ', `column ${title} aligned`);
    assert.notEqual(newest[offset], ' ', `column ${title} starts at its header`);
    assert.notEqual(older[offset], ' ', `column ${title} starts at its header`);
  }
  assert.equal(closes(), 1, 'the store is closed after listing');
});

test('keel reflections with nothing stored says so', async () => {
  const lines: string[] = [];
  const program = new Command('keel').exitOverride();
  registerReflectionCommands(program, {
    storeFactory: () => createMemoryReflectionStore({ warn: () => {} }),
    print: (line) => lines.push(line),
  });
  await program.parseAsync(['reflections'], { from: 'user' });
  assert.deepEqual(lines, ['no reflections stored']);
});

test('keel reflections show <identity> prints the whole reflection with the stored description', async () => {
  const { lines, run, closes } = await harness();
  await run('reflections', 'show', taskIdentity(research));
  assert.deepEqual(lines, [
    `task: ${research}`,
    `identity: ${taskIdentity(research)}`,
    'runs: 3',
    'reflected at: 2025-03-02T09:30:00.000Z',
    'refined description:',
    '  Research the three most cited AI trends.',
    '  Cite a source for each.',
    'output guidance: Markdown with exactly three sections.',
    'observations:',
    '  - The first run listed eight trends.',
    '  - Sources were missing.',
    'suggestions:',
    '  - Cap the list at three.',
  ]);
  assert.equal(closes(), 1);
});

test('keel reflections show <description> finds it by hashing the words, even unquoted', async () => {
  const { lines, run } = await harness({ withDescriptions: false });
  await run('reflections', 'show', ...research.split(' '));
  assert.equal(lines[0], `task: ${research}`, 'the description given is the description shown');
  assert.equal(lines[1], `identity: ${taskIdentity(research)}`);
  assert.ok(lines.includes('runs: 3'));
});

test('keel reflections show by identity without a stored description omits the task line', async () => {
  const { lines, run } = await harness({ withDescriptions: false });
  await run('reflections', 'show', taskIdentity(triage));
  assert.deepEqual(lines, [
    `identity: ${taskIdentity(triage)}`,
    'runs: 1',
    'reflected at: 2025-03-01T08:00:00.000Z',
    'refined description: Label every open issue [31mbug[0m or feature.',
    'output guidance: One line per issue.',
    'observations: none',
    'suggestions: none',
  ]);
});

test('keel reflections show with a multi-line stored description indents it', async () => {
  const { lines, run } = await harness();
  await run('reflections', 'show', triage);
  assert.deepEqual(lines.slice(0, 3), ['task:', '  Triage the open issues', '  and label each one']);
});

test('keel reflections show for an unknown task throws a one-line CliError and still closes', async () => {
  const { lines, run, closes } = await harness();
  const unknown = 'Write a poem';
  await assert.rejects(run('reflections', 'show', unknown), (error: unknown) => {
    assert.ok(error instanceof CliError);
    assert.equal(
      error.message,
      `no reflection stored for "${unknown}" (task identity ${taskIdentity(unknown)})`,
    );
    return true;
  });
  // An identity nothing is stored under is not found either (it is also tried as a description).
  await assert.rejects(run('reflections', 'show', 'f'.repeat(64)), CliError);
  assert.deepEqual(lines, []);
  assert.equal(closes(), 2);
});

test('a failing store becomes one CliError line naming the reflection store', async () => {
  let closed = false;
  const broken: ReflectionStore = {
    store: () => Promise.resolve(),
    retrieve: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
    list: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432\n    at somewhere')),
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
  const program = new Command('keel').exitOverride();
  registerReflectionCommands(program, { storeFactory: () => broken, print: () => {} });
  await assert.rejects(program.parseAsync(['reflections'], { from: 'user' }), (error: unknown) => {
    assert.ok(error instanceof CliError);
    assert.equal(error.message, 'reflection store: connect ECONNREFUSED 127.0.0.1:5432');
    return true;
  });
  assert.equal(closed, true);
});

test('the default store comes from KEEL_REFLECTION_*; a bad setting is a CliError', async () => {
  const saved = process.env.KEEL_REFLECTION_STORE;
  process.env.KEEL_REFLECTION_STORE = 'sqlite';
  try {
    const program = new Command('keel').exitOverride();
    registerReflectionCommands(program, { print: () => {} });
    await assert.rejects(program.parseAsync(['reflections'], { from: 'user' }), (error: unknown) => {
      assert.ok(error instanceof CliError);
      assert.match(error.message, /^KEEL_REFLECTION_STORE must be memory, file or postgres/);
      return true;
    });
  } finally {
    if (saved === undefined) delete process.env.KEEL_REFLECTION_STORE;
    else process.env.KEEL_REFLECTION_STORE = saved;
  }
});
