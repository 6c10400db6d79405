/** The stable name, for matching across module copies (the CLI may load dist/ or src/). */
export const SCENARIO_ERROR = 'ScenarioError';

/**
 * A scenario that cannot be used: unreadable, not YAML/JSON, or not a scenario. The message is one
 * line that names the file and where: `<file>:<line>:<col>: <what>` for a syntax error,
 * `<file>: turns[2].toolCalls[0].name: <what>` for a field the schema refuses.
 */
export class ScenarioError extends Error {
  override readonly name = SCENARIO_ERROR;

  constructor(
    message: string,
    readonly details: {
      /** The file, or the label of a scenario given as data. */
      source: string;
      /** The refused field, e.g. `turns[2].toolCalls[0].name`; absent for the whole scenario. */
      field?: string;
      /** 1-based, for a syntax error. */
      line?: number;
      column?: number;
    },
  ) {
    super(message);
  }
}

export function isScenarioError(error: unknown): error is ScenarioError {
  return error instanceof Error && error.name === SCENARIO_ERROR;
}
