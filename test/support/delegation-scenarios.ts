import { execFile } from 'node:child_process';
import path from 'node:path';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import type { ScenarioInput } from '../../src/scripted-model/scenario';

/**
 * The scripted parents and children of the delegation tests (issue 47), shared by
 * test/integration/delegation*.test.ts: each file starts its own harness with them.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

/** The CLI as users run it, in a process of its own. */
export function keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

export function of(ledger: LedgerEvent[], kind: string): LedgerEvent[] {
  return ledger.filter((event) => event.kind === kind);
}

const list = { name: 'list_dir', input: { path: '.' } };
const delegate = (task: string, extra: Record<string, unknown> = {}) => ({
  name: 'delegate',
  input: { task, ...extra },
});

export const delegationScenarios: ScenarioInput[] = [
  {
    name: 'three-readers',
    match: 'GOAL-DELEGATE-THREE',
    turns: [
      {
        toolCalls: ['ALPHA', 'BRAVO', 'CHARLIE'].map((name) =>
          delegate(`CHILD-${name}: list the workspace and say what is there`, {
            workspace: 'read-only',
            tools: ['list_dir', 'read_file'],
            budget: { maxToolCalls: 2, maxUsd: 0.5 },
          }),
        ),
      },
      { text: 'the three children reported' },
    ],
  },
  ...['ALPHA', 'BRAVO', 'CHARLIE'].map((name) => ({
    name: `child-${name.toLowerCase()}`,
    match: `CHILD-${name}`,
    turns: [{ toolCalls: [list] }, { text: `${name.toLowerCase()} saw notes.md` }],
  })),
  {
    name: 'over-budget',
    match: 'GOAL-DELEGATE-OVER',
    turns: [
      { toolCalls: [delegate('CHILD-GREEDY: list forever', { budget: { maxToolCalls: 1 } })] },
      // A child may get only its parent's tools; the model is told, and goes on.
      { toolCalls: [delegate('CHILD-GREEDY: with a tool I lack', { tools: ['launch_rockets'] })] },
      { text: 'went on without the greedy child' },
    ],
  },
  {
    name: 'greedy',
    match: 'CHILD-GREEDY',
    turns: [{ toolCalls: [list] }, { toolCalls: [list] }, { toolCalls: [list] }, { text: 'never' }],
  },
  {
    name: 'two-writers',
    match: 'GOAL-DELEGATE-WRITERS',
    turns: [
      {
        toolCalls: [delegate('CHILD-WRITER-ONE: write one.txt'), delegate('CHILD-WRITER-TWO: write two.txt')],
      },
      { text: 'both written' },
    ],
  },
  ...['ONE', 'TWO'].map((name) => ({
    name: `writer-${name.toLowerCase()}`,
    match: `CHILD-WRITER-${name}`,
    turns: [
      {
        toolCalls: [{ name: 'write_file', input: { path: `${name.toLowerCase()}.txt`, content: name } }],
      },
      { text: `${name.toLowerCase()}.txt written` },
    ],
  })),
  {
    name: 'delegate-loop',
    match: 'GOAL-DELEGATE-LOOP',
    turns: [
      ...Array.from({ length: 4 }, () => ({ toolCalls: [delegate('CHILD-ECHO: say the same thing')] })),
      { text: 'stopped repeating' },
    ],
  },
  { name: 'echo', match: 'CHILD-ECHO', turns: [{ text: 'the same thing' }] },
  {
    name: 'rules-parent',
    match: 'GOAL-DELEGATE-RULES',
    turns: [{ toolCalls: [delegate('CHILD-FORBIDDEN: write a file')] }, { text: 'the child was refused' }],
  },
  {
    name: 'forbidden',
    match: 'CHILD-FORBIDDEN',
    turns: [
      { toolCalls: [{ name: 'write_file', input: { path: 'forbidden.txt', content: 'x' } }] },
      { text: 'could not write' },
    ],
  },
  {
    name: 'asking-parent',
    match: 'GOAL-DELEGATE-ASK',
    turns: [{ toolCalls: [delegate('CHILD-ASKER: write approved.txt')] }, { text: 'the child wrote it' }],
  },
  {
    name: 'asker',
    match: 'CHILD-ASKER',
    turns: [
      { toolCalls: [{ name: 'write_file', input: { path: 'approved.txt', content: 'yes' } }] },
      { text: 'approved.txt written' },
    ],
  },
  {
    name: 'grand-parent',
    match: 'GOAL-DELEGATE-TREE',
    turns: [{ toolCalls: [delegate('CHILD-MIDDLE: pass it on')] }, { text: 'the tree wrote it' }],
  },
  {
    name: 'middle',
    match: 'CHILD-MIDDLE',
    turns: [{ toolCalls: [delegate('CHILD-ASKER: write approved.txt')] }, { text: 'passed on' }],
  },
  {
    name: 'limited-parent',
    match: 'GOAL-DELEGATE-LIMIT',
    turns: [{ toolCalls: [delegate('CHILD-GREEDY: list on')] }, { text: 'the child hit the limit' }],
  },
  {
    name: 'limit-two-at-once',
    match: 'GOAL-DELEGATE-HELD-LIMIT',
    turns: [
      {
        toolCalls: [
          delegate('CHILD-GREEDY: list on', { workspace: 'read-only' }),
          delegate('CHILD-GREEDY: list more', { workspace: 'read-only' }),
        ],
      },
      { text: 'one child had the calls' },
    ],
  },
  {
    name: 'waiting-parent',
    match: 'GOAL-DELEGATE-CANCEL',
    turns: [{ toolCalls: [delegate('CHILD-WAITER: write a file')] }, { text: 'never reached' }],
  },
  {
    name: 'waiter',
    match: 'CHILD-WAITER',
    turns: [
      { toolCalls: [{ name: 'write_file', input: { path: 'waiting.txt', content: 'x' } }] },
      { text: 'never reached either' },
    ],
  },
];
