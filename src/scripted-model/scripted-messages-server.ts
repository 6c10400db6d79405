import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { condensedTurnsIn } from '../workflows/planning/consolidation';
import { droppedTurnsIn } from '../workflows/common/context-budget';
import {
  parseScenario,
  type Scenario,
  type ScenarioInput,
  type ScriptedStructured,
  type ScriptedTurn,
} from './scenario';

/**
 * A loopback HTTP endpoint that speaks the Anthropic Messages wire format and replays scripted
 * scenarios. The real SDK talks to it unchanged (ANTHROPIC_BASE_URL), so the demo and the tests
 * exercise the same client code as production. Replies are chosen from the request alone (which
 * scenario, how many assistant turns so far), so a retried or replayed request gets the same turn.
 */
export interface RecordedRequest {
  scenario: string;
  /** The agent turn answered; -1 for a structured call. */
  turnIndex: number;
  /** The forced tool of a structured call. */
  structuredTool?: string;
  body: MessagesRequestBody;
  apiKeyPresent: boolean;
  status: number;
}

interface MessagesRequestBody {
  model?: string;
  messages?: Array<{ role: string; content: unknown }>;
  system?: unknown;
  tools?: unknown[];
  tool_choice?: { type?: string; name?: string };
  [key: string]: unknown;
}

export interface ScriptedMessagesServer {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Successful responses per "scenario#turn": more than one means a completed turn was asked again. */
  completedTurnCounts(): Map<string, number>;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  409: 'conflict_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  529: 'overloaded_error',
};

export async function startScriptedMessagesServer(options: {
  scenarios: Array<Scenario | ScenarioInput>;
  port?: number;
}): Promise<ScriptedMessagesServer> {
  const scenarios = options.scenarios.map((scenario) => parseScenario(scenario));
  const requests: RecordedRequest[] = [];
  const attempts = new Map<string, number>();
  const sockets = new Set<Socket>();

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      sendJson(response, 500, errorBody(500, error instanceof Error ? error.message : 'internal error'));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) {
      sendJson(response, 404, errorBody(404, `no route ${request.method} ${request.url}`));
      return;
    }
    const body = JSON.parse(await readBody(request)) as MessagesRequestBody;
    const scenario = chooseScenario(scenarios, body);
    if (!scenario) {
      sendJson(response, 400, errorBody(400, 'no scripted scenario matches this request'));
      return;
    }
    // As the real API does: a request whose tool_use blocks share an id is refused.
    const repeated = repeatedToolUseId(body);
    if (repeated !== undefined) {
      sendJson(response, 400, errorBody(400, `${repeated}: \`tool_use\` ids must be unique`));
      return;
    }
    if (body.tool_choice?.type === 'tool' && body.tool_choice.name) {
      await answerStructured(scenario, body, body.tool_choice.name, request, response);
      return;
    }
    // Turns already taken: the assistant messages present, plus any a consolidation condensed
    // away or the context budget dropped.
    const firstMessage = JSON.stringify(body.messages?.[0]?.content ?? '');
    const turnIndex =
      (body.messages ?? []).filter((message) => message.role === 'assistant').length +
      condensedTurnsIn(firstMessage) +
      droppedTurnsIn(firstMessage);
    const key = `${scenario.name}#${turnIndex}`;
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const turn: ScriptedTurn = scenario.turns[turnIndex] ?? {
      text: `(The scripted scenario "${scenario.name}" has no turn ${turnIndex + 1}; ending here.)`,
      toolCalls: [],
      failures: [],
      delayMs: 0,
    };
    const record: RecordedRequest = {
      scenario: scenario.name,
      turnIndex,
      body,
      apiKeyPresent: hasCredentials(request),
      status: 200,
    };
    requests.push(record);
    if (turn.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
    const failure = turn.failures[attempt];
    if (failure) {
      record.status = failure.status;
      const headers: Record<string, string> = {};
      if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
      sendJson(response, failure.status, errorBody(failure.status, failure.message, failure.type), headers);
      return;
    }
    sendJson(response, 200, messageBody({ body, scenario, turnIndex, turn }));
  }

  async function answerStructured(
    scenario: Scenario,
    body: MessagesRequestBody,
    tool: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const requestText = JSON.stringify(body.messages ?? []);
    const candidates = scenario.structured.filter((entry) => entry.tool === tool);
    const entry: ScriptedStructured | undefined =
      candidates.find(
        (candidate) => candidate.when !== undefined && requestText.includes(jsonEscaped(candidate.when)),
      ) ?? candidates.find((candidate) => candidate.when === undefined);
    const record: RecordedRequest = {
      scenario: scenario.name,
      turnIndex: -1,
      structuredTool: tool,
      body,
      apiKeyPresent: hasCredentials(request),
      status: 200,
    };
    requests.push(record);
    if (!entry) {
      record.status = 400;
      sendJson(
        response,
        400,
        errorBody(400, `scenario "${scenario.name}" has no structured answer for ${tool}`),
      );
      return;
    }
    if (entry.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, entry.delayMs));
    const key = `${scenario.name}#${tool}#${entry.when ?? ''}`;
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const failure = entry.failures[attempt];
    if (failure) {
      record.status = failure.status;
      sendJson(response, failure.status, errorBody(failure.status, failure.message, failure.type));
      return;
    }
    const content =
      entry.input !== undefined
        ? [{ type: 'tool_use', id: `toolu_${tool}_${attempt + 1}`, name: tool, input: entry.input }]
        : [{ type: 'text', text: entry.text ?? '' }];
    sendJson(response, 200, {
      id: `msg_${tool}_${attempt + 1}`,
      type: 'message',
      role: 'assistant',
      model: `scripted:${scenario.name}`,
      content,
      stop_reason: entry.input !== undefined ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: Math.ceil(requestText.length / 4),
        output_tokens: Math.ceil(JSON.stringify(content).length / 4),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    completedTurnCounts() {
      const counts = new Map<string, number>();
      for (const request of requests) {
        if (request.status !== 200 || request.turnIndex < 0) continue;
        const key = `${request.scenario}#${request.turnIndex}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function chooseScenario(scenarios: Scenario[], body: MessagesRequestBody): Scenario | undefined {
  const opening = JSON.stringify(body.messages?.[0]?.content ?? '');
  return (
    scenarios.find(
      (scenario) => scenario.match !== undefined && opening.includes(jsonEscaped(scenario.match)),
    ) ?? scenarios.find((scenario) => scenario.match === undefined)
  );
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Where the first tool_use id used twice in the request's messages is ("messages.3.content.1"). */
function repeatedToolUseId(body: MessagesRequestBody): string | undefined {
  const seen = new Set<string>();
  for (const [messageIndex, message] of (body.messages ?? []).entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [blockIndex, block] of (message.content as Array<{ type?: string; id?: string }>).entries()) {
      if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
      if (seen.has(block.id)) return `messages.${messageIndex}.content.${blockIndex}`;
      seen.add(block.id);
    }
  }
  return undefined;
}

function messageBody(options: {
  body: MessagesRequestBody;
  scenario: Scenario;
  turnIndex: number;
  turn: ScriptedTurn;
}) {
  const { body, scenario, turnIndex, turn } = options;
  const slug = scenario.name.replace(/[^A-Za-z0-9]+/g, '_');
  const content: unknown[] = [];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  turn.toolCalls.forEach((call, index) => {
    content.push({
      type: 'tool_use',
      id: call.id ?? `toolu_${slug}_${turnIndex + 1}_${index + 1}`,
      name: call.name,
      input: call.input,
    });
  });
  const requestChars = JSON.stringify(body.messages ?? []).length + JSON.stringify(body.system ?? '').length;
  return {
    id: `msg_${slug}_${turnIndex + 1}`,
    type: 'message',
    role: 'assistant',
    model: `scripted:${scenario.name}`,
    content,
    stop_reason: turn.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    // A rough, deterministic token estimate (4 characters a token) so cost accounting has data.
    usage: {
      input_tokens: Math.ceil(requestChars / 4),
      output_tokens: Math.ceil(JSON.stringify(content).length / 4),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function errorBody(status: number, message?: string, type?: string) {
  return {
    type: 'error',
    error: { type: type ?? ERROR_TYPES[status] ?? 'api_error', message: message ?? `scripted ${status}` },
  };
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_scripted_${Date.now()}`,
    ...headers,
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

/** The SDK sends its key as X-Api-Key or as a bearer token, depending on its version and setup. */
function hasCredentials(request: IncomingMessage): boolean {
  return (
    typeof request.headers['x-api-key'] === 'string' || typeof request.headers.authorization === 'string'
  );
}
