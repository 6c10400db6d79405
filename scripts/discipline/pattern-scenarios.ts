import {
  baseFiles,
  call,
  MODULES,
  NEVER,
  onTask,
  repeat,
  type DisciplineScenario,
  type Turn,
} from './scenario-kit';
import { POLL_SCENARIOS } from './poll-scenarios';

/**
 * Issue 22's patterns beyond the talkers: cycles of length 2 and 4, a model that parrots one
 * boilerplate answer at every checkpoint, and floods of identical parallel calls (once, which
 * deserves a warning only, and again after the warning, which must stop).
 */

/** Two reads in turn, each giving the same result every time. */
const cycleOfTwo: DisciplineScenario = {
  name: 'cycle-2',
  kind: 'misbehaving',
  behaviour: 'a 2-cycle: reads module-3 and module-4 in turn, the same results every time',
  goodCallsBefore: 2,
  turns: [
    ...repeat(20, (round): Turn[] => [
      {
        text:
          round === 0
            ? 'Reading src/module-3.ts, where the README says old() is still used; the task needs that call site.'
            : `Found that module-4 also returns old() directly (look ${round + 1}); to settle which one the task means, next I will read module-3 again.`,
        toolCalls: [call('read_file', { path: 'src/module-3.ts' })],
      },
      {
        text:
          round === 0
            ? 'Found that module-3 returns old() directly; next I will check whether module-4 wraps it, for the task.'
            : `Found module-3 unchanged: run3() still returns old(). Next I will compare it with module-4 again for the task (look ${round + 1}).`,
        toolCalls: [call('read_file', { path: 'src/module-4.ts' })],
      },
    ]).flat(),
    { text: NEVER },
  ],
  files: baseFiles,
};

/** read → search → list → read, round and round: four different calls, each with its old result. */
const cycleOfFour: DisciplineScenario = {
  name: 'cycle-4',
  kind: 'misbehaving',
  behaviour: 'a 4-step rotation: read module-5, search old(), list src, read README, repeat',
  goodCallsBefore: 4,
  turns: [
    ...repeat(10, (round): Turn[] => {
      const again = round === 0 ? '' : ` (round ${round + 1})`;
      return [
        {
          text: `For the task, next I will read src/module-5.ts to see how run5() calls old()${again}.`,
          toolCalls: [call('read_file', { path: 'src/module-5.ts' })],
        },
        {
          text: `Found that run5() returns old(); next I will search src for every other call site of the task${again}.`,
          toolCalls: [call('search', { pattern: 'old\\(\\)', path: 'src' })],
        },
        {
          text: `The search found ${MODULES} modules calling old(); next I will list src to make sure the task misses none${again}.`,
          toolCalls: [call('list_dir', { path: 'src' })],
        },
        {
          text: `The listing confirmed the ${MODULES} hits; next I will reread the README for the exact rename the task asks${again}.`,
          toolCalls: [call('read_file', { path: 'README.md' })],
        },
      ];
    }).flat(),
    { text: NEVER },
  ],
  files: baseFiles,
};

/** The same answer at every checkpoint, whatever happened since the one before. */
const BOILERPLATE =
  '1. The plan still matches the task. 2. The recent steps confirmed the approach works. 3. Next I will continue with the remaining steps.';
const parrotWork: Turn[] = repeat(MODULES, (index): Turn[] => {
  const file = `src/module-${index + 1}.ts`;
  return [
    {
      text: onTask(`module ${index + 1}`, `read ${file}`),
      toolCalls: [call('read_file', { path: file })],
    },
    {
      text: onTask(`run${index + 1}() calling old()`, 'rename the call'),
      toolCalls: [call('edit_file', { path: file, oldString: 'old()', newString: 'renamed()' })],
    },
    {
      text: onTask(`module ${index + 1} renamed`, 'add it to the changelog'),
      toolCalls: [
        call('edit_file', {
          path: 'CHANGELOG.md',
          oldString: '## Unreleased\n',
          newString: `## Unreleased\n- module ${index + 1}: old() renamed to renamed()\n`,
        }),
      ],
    },
  ];
}).flat();

const parrotedCheckpoints: DisciplineScenario = {
  name: 'parroted-checkpoints',
  kind: 'misbehaving',
  behaviour:
    'real work (rename and changelog, 37 calls), but every reply, checkpoint answers included, is one fixed boilerplate text (from the first checkpoint on)',
  goodCallsBefore: 7,
  turns: [
    // Its one status line, every turn: a checkpoint gets the same text as any other turn. (The
    // scripted model cannot see when a checkpoint comes; a real parrot answers each with it.)
    ...parrotWork.map((turn) => ({ ...turn, text: BOILERPLATE })),
    {
      text: BOILERPLATE,
      toolCalls: [call('search', { pattern: 'old\\(\\)', path: 'src' })],
    },
    { text: 'Renamed old() to renamed() in all 12 modules and logged each one in CHANGELOG.md.' },
  ],
  files: { ...baseFiles, 'CHANGELOG.md': '# Changelog\n\n## Unreleased\n' },
};

const flood = (file: string) => repeat(5, () => call('read_file', { path: file }));

/** One slip: five identical parallel reads in one turn, then careful work. A warning, not a stop. */
const floodOnce: DisciplineScenario = {
  name: 'flood-once',
  kind: 'misbehaving',
  expect: 'warn',
  behaviour: 'one turn of 5 identical parallel reads (no warning before), then good work: warn only',
  task: 'rename old() to renamed() in src/module-1.ts to src/module-4.ts',
  goodCallsBefore: 0,
  turns: [
    { text: 'For the task, I will read src/module-1.ts first.', toolCalls: flood('src/module-1.ts') },
    {
      text: onTask('old() in module 1', 'rename it'),
      toolCalls: [call('edit_file', { path: 'src/module-1.ts', oldString: 'old()', newString: 'renamed()' })],
    },
    ...repeat(3, (index): Turn[] => {
      const file = `src/module-${index + 2}.ts`;
      return [
        {
          text: onTask(`module ${index + 2}`, `read ${file}`),
          toolCalls: [call('read_file', { path: file })],
        },
        {
          text: onTask(`old() in ${file}`, 'rename it'),
          toolCalls: [call('edit_file', { path: file, oldString: 'old()', newString: 'renamed()' })],
        },
      ];
    }).flat(),
    { text: 'Renamed old() in modules 1 to 4; the other modules are for the next task.' },
  ],
  files: baseFiles,
};

/** The same flood again after the warning about the first one. */
const floodRepeated: DisciplineScenario = {
  name: 'flood-repeated',
  kind: 'misbehaving',
  behaviour: 'a turn of 5 identical parallel reads, and the same flood again after the warning',
  goodCallsBefore: 0,
  turns: [
    ...repeat(8, (index) => ({
      text:
        index === 0
          ? 'For the task, I will read src/module-1.ts first.'
          : `Found src/module-1.ts as before; for the task I will read it again, all at once (batch ${index + 1}), to be sure nothing changed.`,
      toolCalls: flood('src/module-1.ts'),
    })),
    { text: NEVER },
  ],
  files: baseFiles,
};

export const PATTERN_SCENARIOS: DisciplineScenario[] = [
  cycleOfTwo,
  cycleOfFour,
  parrotedCheckpoints,
  floodOnce,
  floodRepeated,
  ...POLL_SCENARIOS,
];
