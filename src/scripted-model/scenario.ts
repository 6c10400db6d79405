import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { scriptedFaultSchema } from './bad-days';
import { scenarioData, schemaProblem, unreadable } from './scenario-problems';

/** An error the scripted endpoint answers with before a turn succeeds (Anthropic's statuses). */
export const scriptedFailureSchema = z
  .object({
    status: z.number().int().min(400).max(599),
    type: z.string().optional(),
    message: z.string().optional(),
    retryAfterSeconds: z.number().nonnegative().optional(),
  })
  .strict();

export const scriptedToolCallSchema = z
  .object({
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()).default({}),
    /**
     * The tool_use id to send instead of a fresh one: plays a model that repeats an id within a
     * turn or reuses one from an earlier turn (keel names calls itself; see goal/tool-calls/call-ids.ts).
     */
    id: z
      .string()
      .regex(/^[a-zA-Z0-9_-]+$/)
      .optional(),
  })
  .strict();

/**
 * Why the answer stopped (platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
 * tool_use is not scripted: an answer with tool calls and no other reason stops for them.
 */
export const scriptedStopReasonSchema = z.enum([
  'end_turn',
  'max_tokens',
  'refusal',
  'pause_turn',
  'stop_sequence',
  'model_context_window_exceeded',
]);
export type ScriptedStopReason = z.infer<typeof scriptedStopReasonSchema>;

/** Wait this long between the events of a streamed answer (lets tests stop a worker mid-stream). */
const streamChunkDelayMs = z.number().int().nonnegative().default(0);

export const scriptedTurnSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(scriptedToolCallSchema).default([]),
    /** Answered in order on the first attempts of this turn; the next attempt succeeds. */
    failures: z.array(scriptedFailureSchema).default([]),
    /** The API's bad days for this turn, after `failures` (bad-days.ts); then the turn is answered. */
    faults: z.array(scriptedFaultSchema).default([]),
    /** Hold the response this long (lets tests stop a worker mid-call). */
    delayMs: z.number().int().nonnegative().default(0),
    streamChunkDelayMs,
    /**
     * The answer's stop_reason. max_tokens cuts the last tool call: streamed, its JSON stops
     * mid-way; whole, its input keeps only the entries a partial JSON parse of the cut text gives
     * (every entry but the last). Text is sent as written.
     */
    stopReason: scriptedStopReasonSchema.optional(),
    /**
     * Answer as with stopReason max_tokens when the request's max_tokens is below this: a model
     * whose answer needs that much room. At or above it, the answer is whole.
     */
    cutBelowMaxTokens: z.number().int().positive().optional(),
    /**
     * The answer begins with a thinking block with this text and a signature the server makes
     * (only when the request enables thinking, as the API answers).
     */
    thinking: z.string().min(1).optional(),
    /** The answer begins with a redacted_thinking block instead (same condition). */
    redactedThinking: z.literal(true).optional(),
    /** The output_tokens to report (default: an estimate from the content; max_tokens when cut). */
    outputTokens: z.number().int().nonnegative().optional(),
  })
  .strict()
  .refine((turn) => !(turn.thinking !== undefined && turn.redactedThinking), {
    message: 'a turn begins with thinking or with redacted thinking, not both',
  });

/**
 * An answer to a structured call (plan, belief, review, reflection): the forced tool's input, or
 * text to exercise the parser's fallbacks. `when` picks the entry for requests containing it.
 */
export const scriptedStructuredSchema = z
  .object({
    tool: z.string().min(1),
    when: z.string().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    text: z.string().optional(),
    failures: z.array(scriptedFailureSchema).default([]),
    delayMs: z.number().int().nonnegative().default(0),
    streamChunkDelayMs,
  })
  .strict();

/**
 * How the scenario answers a request under `tool_choice: {"type": "none"}` (keel's closing
 * report). Without it such a request gets its turn's text alone: the API never answers with a
 * tool call when tools are refused.
 */
export const scriptedReportSchema = z
  .object({
    text: z.string().min(1),
    /** Answered in order on the first attempts; the next attempt succeeds. */
    failures: z.array(scriptedFailureSchema).default([]),
    delayMs: z.number().int().nonnegative().default(0),
    outputTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    /** Chosen for requests whose first user message contains this text; the fallback when absent. */
    match: z.string().optional(),
    turns: z.array(scriptedTurnSchema).min(1),
    /**
     * Other turns from turn `fromTurn` on (1-based), taken when a user message contains `when`
     * (never the goal's own text): what a person said to a forked or rewound goal (`keel fork --say`) changes
     * what the scripted model does next, as it would a real one's.
     */
    branches: z
      .array(
        z
          .object({
            when: z.string().min(1),
            fromTurn: z.number().int().positive(),
            turns: z.array(scriptedTurnSchema).min(1),
          })
          .strict(),
      )
      .default([]),
    structured: z.array(scriptedStructuredSchema).default([]),
    report: scriptedReportSchema.optional(),
  })
  .strict();

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScriptedTurn = z.output<typeof scriptedTurnSchema>;
export type ScriptedStructured = z.output<typeof scriptedStructuredSchema>;
export type ScriptedFailure = z.output<typeof scriptedFailureSchema>;
export type ScriptedReport = z.output<typeof scriptedReportSchema>;

/** The scenario, or a ScenarioError naming the source and the field (`turns[2].toolCalls[0].name`). */
export function parseScenario(raw: unknown, source = 'scenario'): Scenario {
  const result = scenarioSchema.safeParse(raw);
  if (result.success) return result.data;
  throw schemaProblem(result.error, raw, source);
}

/** A scenario file, YAML or JSON (docs/scripted-scenarios.md); every problem is a one-line ScenarioError. */
export function loadScenarioFile(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  return parseScenario(scenarioData(text, file), file);
}

/** The scripted turn at `turnIndex` (0-based) for this request: a branch's when a user message asks for it. */
export function scriptedTurnAt(
  scenario: Scenario,
  turnIndex: number,
  messages: ReadonlyArray<{ role?: unknown; content?: unknown }>,
): ScriptedTurn | undefined {
  // Every user message: a person's words after the goal's own may share its first message.
  const userText = messages
    .filter((message) => message.role === 'user')
    .map((message) => JSON.stringify(message.content ?? ''))
    .join('\n');
  const branch = scenario.branches.find(
    (candidate) => turnIndex >= candidate.fromTurn - 1 && userText.includes(candidate.when),
  );
  return branch === undefined ? scenario.turns[turnIndex] : branch.turns[turnIndex - (branch.fromTurn - 1)];
}
