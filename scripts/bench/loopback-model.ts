import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { scenarioIn, scriptedCall, type BenchScenario } from './bench-scenario';
import { streamedMessage, type LoopbackBlock, type LoopbackMessage } from './loopback-stream';

/**
 * A zero-latency loopback endpoint speaking the Anthropic Messages wire format, for the benchmark.
 * Every answer follows from the request alone, whoever sends it (keel, the floor, the AI SDK):
 * the scenario is read from the prompt, and the calls made so far from the tool_use ids already
 * in the conversation (`toolu_bench_<n>`). Counting ids rather than assistant messages keeps it
 * right when a harness condenses old turns, as long as the latest turn is sent. A request with
 * `"stream": true` (keel streams every call) gets the same answer as server-sent events.
 */
export interface LoopbackModel {
  readonly url: string;
  /** Requests answered, by kind. */
  readonly counts: { turns: number; structured: number; unknown: number };
  /** Resolves with performance.now() when the next scripted turn is asked for. */
  nextTurn(): Promise<number>;
  close(): Promise<void>;
}

interface RequestBody {
  messages?: unknown[];
  tools?: Array<{ name?: string; input_schema?: unknown }>;
  tool_choice?: { type?: string; name?: string };
  stream?: boolean;
}

const CALL_ID = /toolu_bench_(\d+)/g;

export async function startLoopbackModel(): Promise<LoopbackModel> {
  const counts = { turns: 0, structured: 0, unknown: 0 };
  let turnWaiters: Array<(at: number) => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) =>
      send(response, 500, { type: 'error', error: { type: 'api_error', message: String(error) } }),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) {
      send(response, 404, { type: 'error', error: { type: 'not_found_error', message: 'no such route' } });
      return;
    }
    const body = JSON.parse(text) as RequestBody;
    const reply = (answer: LoopbackMessage) =>
      body.stream === true ? sendStream(response, answer) : send(response, 200, answer);
    const conversation = JSON.stringify(body.messages ?? []);
    const forced = body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
    if (forced !== undefined) {
      // A harness's own structured call (keel's consolidation, say): the smallest valid answer.
      counts.structured += 1;
      const schema = body.tools?.find((tool) => tool.name === forced)?.input_schema;
      reply(
        message(
          [
            {
              type: 'tool_use',
              id: `toolu_forced_${counts.structured}`,
              name: forced,
              input: minimalValue(schema),
            },
          ],
          'tool_use',
          conversation,
        ),
      );
      return;
    }
    const scenario = scenarioIn(conversation);
    if (scenario === undefined) {
      counts.unknown += 1;
      reply(
        message(
          [{ type: 'text', text: 'No benchmark scenario in this conversation.' }],
          'end_turn',
          conversation,
        ),
      );
      return;
    }
    counts.turns += 1;
    const at = performance.now();
    for (const waiter of turnWaiters) waiter(at);
    turnWaiters = [];
    reply(turn(scenario, conversation));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    nextTurn: () => new Promise<number>((resolve) => turnWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The next turn: the next `perTurn` calls after the highest one made, or the final answer. */
export function turn(scenario: BenchScenario, conversation: string): LoopbackMessage {
  let made = 0;
  for (const match of conversation.matchAll(CALL_ID)) made = Math.max(made, Number(match[1]));
  if (made >= scenario.calls) {
    return message([{ type: 'text', text: `done: ${scenario.calls} calls made` }], 'end_turn', conversation);
  }
  const last = Math.min(scenario.calls, made + scenario.perTurn);
  const content: LoopbackBlock[] = [];
  for (let index = made + 1; index <= last; index++) {
    const call = scriptedCall(scenario, index);
    content.push({ type: 'tool_use', id: `toolu_bench_${index}`, name: call.name, input: call.input });
  }
  return message(content, 'tool_use', conversation);
}

function message(
  content: LoopbackBlock[],
  stopReason: 'tool_use' | 'end_turn',
  conversation: string,
): LoopbackMessage {
  return {
    id: `msg_bench_${Math.random().toString(36).slice(2, 10)}`,
    type: 'message',
    role: 'assistant',
    model: 'loopback-bench',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    // 4 characters a token: deterministic numbers, so token and cost accounting has data.
    usage: {
      input_tokens: Math.ceil(conversation.length / 4),
      output_tokens: Math.ceil(JSON.stringify(content).length / 4),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** The smallest value a JSON schema accepts: enough to keep a harness's structured call going. */
export function minimalValue(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return {};
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  if ('const' in node) return node.const;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options) && options.length > 0) return minimalValue(options[0]);
  }
  const type = Array.isArray(node.type) ? (node.type[0] as unknown) : node.type;
  switch (type) {
    case 'string': {
      const length = typeof node.minLength === 'number' ? node.minLength : 1;
      return 'x'.repeat(Math.max(1, length));
    }
    case 'number':
    case 'integer':
      return typeof node.minimum === 'number' ? node.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count = typeof node.minItems === 'number' ? node.minItems : 0;
      return Array.from({ length: count }, () => minimalValue(node.items));
    }
    default: {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      return Object.fromEntries(required.map((name) => [name, minimalValue(properties[name])]));
    }
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': 'req_loopback_bench',
  });
  response.end(text);
}

function sendStream(response: ServerResponse, answer: LoopbackMessage): void {
  const text = streamedMessage(answer);
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'content-length': Buffer.byteLength(text),
    'request-id': 'req_loopback_bench',
  });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
