import type { ModelSettings } from '../lifecycle/input';
import type { TokenUsageTotals } from '../lifecycle/state';
import type { ModelToolDefinition } from '../../tools/harness-tools';
import type { ContentBlock, TranscriptMessage } from '../../common/transcript';

/** A range of the stored request's messages ([from, to)), or null for the next message sent. */
export type RequestSegment = [number, number] | null;

/**
 * The goal's model settings as an activity takes them (inputs of older runs may lack `cache`;
 * the patience is the workflow's, the activity never reads it).
 */
export type ModelCallSettings = Omit<ModelSettings, 'cache' | 'patienceMs'> & {
  cache?: ModelSettings['cache'];
  patienceMs?: number;
};

/** What the workflow asks of one model turn, tool definitions from the goal's recorded catalogue. */
export interface ModelCallInput {
  model: ModelCallSettings;
  /** Omitted only when `continues` names a stored request with the same system prompt. */
  system?: string;
  /** All of the request's messages, or with `continues` the ones after the stored request's. */
  messages: TranscriptMessage[];
  /** Omitted only when `continues` names a stored request with the same tools. */
  tools?: ModelToolDefinition[];
  /**
   * The request extends one the worker stored after an earlier turn (its messages and that
   * turn's answer): the activity assembles the whole request from the store, so the transcript
   * is not carried in every activity input (see nextModelRequest). If the store no longer has
   * it, the activity fails with ModelRequestMissing before any model call and the workflow sends
   * the request whole.
   */
  continues?: {
    request: string;
    /**
     * How the request's messages are made, in order: `[from, to]` is the stored request's
     * messages from..to-1, `null` the next of `messages`. Omitted: all of the stored request's
     * messages, then `messages`.
     */
    segments?: RequestSegment[];
  };
  /**
   * What this turn tells the model that is not kept in the transcript (the active plan step):
   * sent after the request's last cache breakpoint, so it never changes a cached prefix.
   */
  turnNote?: string;
  /**
   * `none`: the model may not call tools this turn (the closing report). The tool definitions
   * are still sent, so the request keeps the goal's cached prefix.
   */
  toolChoice?: 'none';
  /**
   * How long the stream's first event may take (timing.modelTimeoutMs; the API reads a long
   * prompt before it answers). Omitted by older runs: five minutes.
   */
  firstEventWithinMs?: number;
  /** The widest backoff window between attempts (timing.modelRetryCapMs). Omitted: 10 s. */
  retryCapMs?: number;
  /** For logs and summaries only. */
  goalId: string;
  turn: number;
}

export interface ModelCallResult {
  content: ContentBlock[];
  stopReason: string | null;
  usage: TokenUsageTotals;
  model: string;
  /** Where the worker stored this request with its answer, for the next turn to extend. */
  request?: string;
}

/**
 * A model call whose answer is data (a plan, a belief, a review, a reflection). The activity
 * asks for it through a forced tool call; `raw` is that call's input as JSON, or the reply's text
 * when an endpoint ignored the tool, and the workflow's structured-output parser takes it from
 * there (it is the safety net for endpoints without tool forcing).
 */
export interface StructuredCallInput {
  model: ModelCallSettings;
  system: string;
  prompt: string;
  output: { toolName: string; description: string; jsonSchema: Record<string, unknown> };
  /** As ModelCallInput's. */
  firstEventWithinMs?: number;
  retryCapMs?: number;
  goalId: string;
  purpose: string;
}

export interface StructuredCallResult {
  raw: string;
  /** True when the answer came as the forced tool call, false when it fell back to text. */
  viaTool: boolean;
  usage: TokenUsageTotals;
}

/**
 * What a streaming answer has written so far, as the model activity's heartbeat details carry it:
 * the Web UI's pending activity (`temporal workflow describe`) and `keel watch` show the answer
 * forming. Small on purpose: heartbeat details live in the server's pending activity, and only
 * the final answer goes into history.
 */
export interface StreamProgress {
  readonly kind: 'model-stream';
  /** Output tokens so far: the endpoint's own count once it sent one, else characters / 4. */
  readonly outputTokens: number;
  /** Bytes of the stream received so far, pings included (absent from older workers' beats). */
  readonly bytes?: number;
  /** Events of the answer received so far (the SDK drops pings before they are counted here). */
  readonly events?: number;
  /**
   * Events earlier attempts of this call received (carried over by their heartbeats): a retried
   * call's text goes on from where its viewers were, instead of starting its count again.
   */
  readonly eventsBefore?: number;
  /** The latest characters of the answer's text (or of its thinking, while it thinks). */
  readonly latest: string;
  /** The block being written. */
  readonly writing: 'text' | 'thinking' | 'tool' | 'nothing yet';
  /** The tool whose call is being written. */
  readonly tool?: string;
  /** Why the last attempt failed, while the call waits to try again (429, 529, a silence...). */
  readonly lastError?: string;
  /**
   * The call waits for a place among its worker's goals at work (activities/model/goals-at-work.ts):
   * how many goals are ahead of it and how many places the worker has.
   */
  readonly waitingForPlace?: { readonly ahead: number; readonly places: number };
}
