/**
 * What one benchmark goal asks of the model: the same script for keel, the floor and the AI SDK
 * loop. It is written into the first user message, so the loopback model can answer every
 * request from the request alone (see loopback-model.ts). Pure: the bench workflows import it.
 */
export const ScenarioKind = {
  Sequential: 'sequential',
  Parallel: 'parallel',
  Mixed: 'mixed',
  /** Reads, then the last PARKING_CALLS calls irreversible: each parks the goal on a human. */
  Parking: 'parking',
  /**
   * Keel only: each call is a `delegate` whose child goal makes one read and answers
   * (DELEGATED_CHILD): what a delegation costs against a plain call (delegation-cost.ts).
   */
  Delegate: 'delegate',
} as const;
export type ScenarioKind = (typeof ScenarioKind)[keyof typeof ScenarioKind];

export interface BenchScenario {
  readonly kind: ScenarioKind;
  /** Tool calls the model makes in all. */
  readonly calls: number;
  /** Tool calls per model turn. */
  readonly perTurn: number;
  /**
   * Keel offers its model the delegate tool (always for the Delegate kind): the plain goal it is
   * measured against offers it too, so the call made is the only difference.
   */
  readonly delegation?: boolean;
}

/** The tools every system has; `delegate` is keel's own (its harness tool, issue 47). */
export type BenchToolName = 'read_file' | 'write_file' | 'run_command';

export interface ScriptedCall {
  readonly name: BenchToolName | 'delegate';
  readonly input: Record<string, unknown>;
}

/** The child of each delegate call: one read, then its answer. */
export const DELEGATED_CHILD: BenchScenario = { kind: ScenarioKind.Sequential, calls: 1, perTurn: 1 };

/** Irreversible calls at the end of a parking scenario: one decision measured each. */
export const PARKING_CALLS = 5;

/** Small files keep each result (and so each transcript) small, as in a quick code survey. */
export const WORKSPACE_FILES = 20;

/** The goal text: a readable instruction that carries the script. */
export function scenarioPrompt(scenario: BenchScenario): string {
  return `Benchmark goal. [bench kind=${scenario.kind} calls=${scenario.calls} perTurn=${scenario.perTurn}] Make the scripted tool calls, then answer "done".`;
}

/**
 * The scenario a prompt carries, if any: the first in the text. A delegating goal's conversation
 * carries its child's too (in the delegate call's task), after its own goal text.
 */
export function scenarioIn(text: string): BenchScenario | undefined {
  const match = /\[bench kind=(\w+) calls=(\d+) perTurn=(\d+)\]/.exec(text);
  if (!match) return undefined;
  const kind = match[1] as ScenarioKind;
  if (!Object.values(ScenarioKind).includes(kind)) return undefined;
  return { kind, calls: Number(match[2]), perTurn: Number(match[3]) };
}

/**
 * Call `index` (1-based). Mixed: a write every fourth call, one irreversible append (which waits
 * for approval) halfway, reads otherwise. Parking: reads, then PARKING_CALLS irreversible appends.
 */
export function scriptedCall(scenario: BenchScenario, index: number): ScriptedCall {
  const file = `files/file-${index % WORKSPACE_FILES}.txt`;
  if (scenario.kind === ScenarioKind.Delegate) return { name: 'delegate', input: delegateInput() };
  if (scenario.kind === ScenarioKind.Parking && index > scenario.calls - PARKING_CALLS) {
    return { name: 'run_command', input: { command: `echo call-${index} >> appended.txt` } };
  }
  if (scenario.kind === ScenarioKind.Mixed) {
    if (index === Math.ceil(scenario.calls / 2)) {
      return { name: 'run_command', input: { command: `echo call-${index} >> appended.txt` } };
    }
    if (index % 4 === 0) {
      return {
        name: 'write_file',
        input: { path: `out/write-${index}.txt`, content: `written by call ${index}\n` },
      };
    }
  }
  return { name: 'read_file', input: { path: file } };
}

/**
 * Every field of the delegate tool, as a model would fill them: the child gets the read it needs,
 * a slice of the budget, and the workspace read-only (so the parent's workspace is not held).
 */
function delegateInput(): Record<string, unknown> {
  return {
    task: scenarioPrompt(DELEGATED_CHILD),
    successCriteria: ['the scripted read was made'],
    tools: ['read_file'],
    budget: { maxToolCalls: DELEGATED_CHILD.calls + 1 },
    workspace: 'read-only',
  };
}

/** Input schemas of the three tools, as the model is told them (the floor and the AI SDK loop). */
export const BENCH_TOOL_SCHEMAS: Record<BenchToolName, { description: string; schema: object }> = {
  read_file: {
    description: 'Reads a text file in the workspace.',
    schema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  write_file: {
    description: 'Creates or replaces a file in the workspace.',
    schema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  run_command: {
    description: 'Runs a shell command in the workspace (irreversible: waits for approval).',
    schema: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
      additionalProperties: false,
    },
  },
};
