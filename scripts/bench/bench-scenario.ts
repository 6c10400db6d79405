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
} as const;
export type ScenarioKind = (typeof ScenarioKind)[keyof typeof ScenarioKind];

export interface BenchScenario {
  readonly kind: ScenarioKind;
  /** Tool calls the model makes in all. */
  readonly calls: number;
  /** Tool calls per model turn. */
  readonly perTurn: number;
}

export interface ScriptedCall {
  readonly name: 'read_file' | 'write_file' | 'run_command';
  readonly input: Record<string, unknown>;
}

/** Irreversible calls at the end of a parking scenario: one decision measured each. */
export const PARKING_CALLS = 5;

/** Small files keep each result (and so each transcript) small, as in a quick code survey. */
export const WORKSPACE_FILES = 20;

/** The goal text: a readable instruction that carries the script. */
export function scenarioPrompt(scenario: BenchScenario): string {
  return `Benchmark goal. [bench kind=${scenario.kind} calls=${scenario.calls} perTurn=${scenario.perTurn}] Make the scripted tool calls, then answer "done".`;
}

/** The scenario a prompt carries, if any. */
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

/** Input schemas of the three tools, as the model is told them (the floor and the AI SDK loop). */
export const BENCH_TOOL_SCHEMAS: Record<ScriptedCall['name'], { description: string; schema: object }> = {
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
