import type { ModelSettings } from './goal-input';
import type { TokenUsageTotals } from './goal-state';
import type { ModelToolDefinition } from '../tools/harness-tools';
import type { ContentBlock, TranscriptMessage } from '../common/transcript';

/** What the workflow asks of one model turn, tool definitions from the goal's recorded catalogue. */
export interface ModelCallInput {
  model: ModelSettings;
  system: string;
  messages: TranscriptMessage[];
  tools: ModelToolDefinition[];
  /** For logs and summaries only. */
  goalId: string;
  turn: number;
}

export interface ModelCallResult {
  content: ContentBlock[];
  stopReason: string | null;
  usage: TokenUsageTotals;
  model: string;
}

/**
 * A model call whose answer is data (a plan, a belief, a review, a reflection). The activity
 * asks for it through a forced tool call; `raw` is that call's input as JSON, or the reply's text
 * when an endpoint ignored the tool, and the workflow's structured-output parser takes it from
 * there (it is the safety net for endpoints without tool forcing).
 */
export interface StructuredCallInput {
  model: ModelSettings;
  system: string;
  prompt: string;
  output: { toolName: string; description: string; jsonSchema: Record<string, unknown> };
  goalId: string;
  purpose: string;
}

export interface StructuredCallResult {
  raw: string;
  /** True when the answer came as the forced tool call, false when it fell back to text. */
  viaTool: boolean;
  usage: TokenUsageTotals;
}
