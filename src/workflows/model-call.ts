import type { ModelSettings } from './goal-input';
import type { TokenUsageTotals } from './goal-state';
import type { ContentBlock, TranscriptMessage } from './transcript';

/** What the workflow asks of one model turn. Tool definitions are built by the activity from names. */
export interface ModelCallInput {
  model: ModelSettings;
  system: string;
  messages: TranscriptMessage[];
  toolNames: string[];
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
