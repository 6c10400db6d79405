/** Shapes shared by the comparison loops' workflows and activities (types only). */
export type FloorBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface FloorMessage {
  role: 'user' | 'assistant';
  content: string | FloorBlock[];
}

export interface FloorModelReply {
  content: FloorBlock[];
}

export interface RunToolInput {
  name: string;
  input: unknown;
  workspace: string;
  callId: string;
  irreversible: boolean;
}

export interface LoopInput {
  prompt: string;
  workspace: string;
}

export interface LoopResult {
  text: string;
  toolCalls: number;
}
