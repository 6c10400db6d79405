import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { JUDGE_TOOL_NAME } from '../../src/workflows/principles/progress-judge';
import { baseFiles, call, NEVER, onTask, repeat, type DisciplineScenario, type Turn } from './scenario-kit';

/**
 * Runaways the counting guards cannot see (issue 44): every call brings a new state or new
 * information, so progress.ts counts progress, yet nothing the task needs moves. The progress
 * judge (a structured call the scripted model answers here) says so, and the goal is warned and
 * then stopped. Each scenario's judge answers "no" when the stretch it is shown holds the
 * runaway's mark, "yes" otherwise (the good calls before it).
 */

type Structured = NonNullable<ScenarioInput['structured']>;

/** The judge's verdicts: a confident "no" for stretches showing `mark`, else "advanced". */
export function judgeVerdicts(mark: string, reason: string): Structured {
  return [
    { tool: JUDGE_TOOL_NAME, when: mark, input: { advanced: false, confidence: 0.9, reason } },
    JUDGE_SEES_PROGRESS,
  ];
}

/** What the scripted judge says when a scenario scripts nothing else: the stretch advanced. */
export const JUDGE_SEES_PROGRESS: Structured[number] = {
  tool: JUDGE_TOOL_NAME,
  input: { advanced: true, confidence: 0.9, reason: 'the calls work on the task' },
};

/** The judge judges against success criteria: the rename task's, for every runaway here. */
const RENAMED = ['every module under src/ calls renamed() instead of old()'];

const goodStart: Turn[] = [
  { text: 'Reading the module the task names.', toolCalls: [call('read_file', { path: 'src/module-1.ts' })] },
  {
    text: 'And the README for the project’s conventions.',
    toolCalls: [call('read_file', { path: 'README.md' })],
  },
];

/** A new attempt-N.txt at every call, with narration that never repeats. */
const newFileRunaway: DisciplineScenario = {
  name: 'new-file-runaway',
  kind: 'misbehaving',
  behaviour: 'writes a new attempt-N.txt at every call with new narration; old() is never renamed',
  goodCallsBefore: goodStart.length,
  turns: [
    ...goodStart,
    ...repeat(30, (index) => ({
      text: onTask(`attempt ${index + 1} recorded`, `write attempt ${index + 2} with a fresh approach`),
      toolCalls: [
        call('write_file', {
          path: `attempt-${index + 1}.txt`,
          content: `attempt ${index + 1}: considered approach ${index * 7 + 3}, weighing option ${String.fromCharCode(65 + (index % 26))}\n`,
        }),
      ],
    })),
    { text: NEVER },
  ],
  structured: judgeVerdicts('attempt-', 'only new attempt files were written; no module was renamed'),
  input: { successCriteria: RENAMED },
  files: baseFiles,
};

/** PLAN.md and a source file rewritten in turn, with new text each time. */
const alternatingRunaway: DisciplineScenario = {
  name: 'alternating-runaway',
  kind: 'misbehaving',
  behaviour: 'rewrites PLAN.md and src/module-1.ts in turn with new text each time; old() stays',
  goodCallsBefore: goodStart.length,
  turns: [
    ...goodStart,
    ...repeat(30, (index) => ({
      text: onTask(`revision ${index + 1}`, 'refine the plan and the module comment again'),
      toolCalls: [
        index % 2 === 0
          ? call('write_file', {
              path: 'PLAN.md',
              content: `# plan, revision ${index + 1}\n- think about old()\n`,
            })
          : call('write_file', {
              path: 'src/module-1.ts',
              content: `// module 1, reviewed ${index + 1} times\nexport function run1() {\n  return old();\n}\n`,
            }),
      ],
    })),
    { text: NEVER },
  ],
  structured: judgeVerdicts('PLAN.md', 'the plan and a comment were rewritten; old() is still called'),
  input: { successCriteria: RENAMED },
  files: baseFiles,
};

/** New irrelevant files read one after another, with a note every 8th call. */
const irrelevantReader: DisciplineScenario = {
  name: 'irrelevant-reader',
  kind: 'misbehaving',
  behaviour:
    'reads one vendored library after another (new each time), a note every 8th call; src/ untouched',
  goodCallsBefore: goodStart.length,
  turns: [
    ...goodStart,
    ...repeat(30, (index) => ({
      text: onTask(`vendor/lib-${index + 1}.js`, 'read the next library'),
      toolCalls: [
        (index + 1) % 8 === 0
          ? call('write_file', { path: 'notes.md', content: `read ${index} vendored libraries so far\n` })
          : call('read_file', { path: `vendor/lib-${index + 1}.js` }),
      ],
    })),
    { text: NEVER },
  ],
  structured: judgeVerdicts('vendor/lib-', 'only vendored libraries were read; nothing in src/ changed'),
  input: { successCriteria: RENAMED },
  files: baseFiles,
};

/** Good work the judge watches (it has success criteria): read a module, rename in it, for six. */
const judgedRename: DisciplineScenario = {
  name: 'good-judged-rename',
  kind: 'good',
  behaviour: 'reads and renames old() module by module, with success criteria: judged, never stopped',
  goodCallsBefore: 0,
  turns: [
    ...repeat(6, (index): Turn[] => [
      {
        text: onTask(`module ${index} done`, `read src/module-${index + 1}.ts`),
        toolCalls: [call('read_file', { path: `src/module-${index + 1}.ts` })],
      },
      {
        text: onTask(`old() in src/module-${index + 1}.ts`, 'rename it there'),
        toolCalls: [
          call('edit_file', {
            path: `src/module-${index + 1}.ts`,
            oldString: 'old()',
            newString: 'renamed()',
          }),
        ],
      },
    ]).flat(),
    { text: 'Renamed old() to renamed() in the first six modules.' },
  ],
  structured: [JUDGE_SEES_PROGRESS],
  input: { successCriteria: RENAMED },
  files: baseFiles,
};

export const RUNAWAY_SCENARIOS: DisciplineScenario[] = [
  newFileRunaway,
  alternatingRunaway,
  irrelevantReader,
  judgedRename,
];
