import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { condensedTurnsIn } from '../workflows/planning/consolidation';
import { droppedTurnsIn } from '../workflows/common/context-budget';
import { answerStructured, answerTurn, type Answer } from './answer';
import { PromptCache } from './prompt-cache';
import type { MessagesRequestBody } from './request-body';
import {
  parseScenario,
  scriptedTurnAt,
  scriptedTurnSchema,
  type Scenario,
  type ScenarioInput,
  type ScriptedFailure,
  type ScriptedStructured,
  type ScriptedTurn,
} from './scenario';
import { streamAnswer } from './sse-stream';
import { BadDays, streamFault, type ScriptedFault } from './bad-days';
import { ThinkingSigner } from './thinking-signature';
import type { InputUsage } from './token-count';
import { validateRequest } from './validation';
export type { MessagesRequestBody } from './request-body';

/**
 * A loopback HTTP endpoint that speaks the Anthropic Messages wire format and replays scripted
 * scenarios. The real SDK talks to it unchanged (ANTHROPIC_BASE_URL), so the demo and the tests
 * exercise the same client code as production. Replies are chosen from the request alone (which
 * scenario, how many assistant turns so far), so a retried or replayed request gets the same turn.
 * It is as strict as the API (validation.ts), streams (sse-stream.ts) and bills prompt caching
 * (prompt-cache.ts) as the API does.
 */
export interface RecordedRequest {
  scenario: string;
  /** The agent turn answered; -1 for a structured call. */
  turnIndex: number;
  /** The forced tool of a structured call. */
  structuredTool?: string;
  /** Asked under tool_choice none: answered with text only (the scenario's report, if it has one). */
  toolsRefused?: true;
  body: MessagesRequestBody;
  /** The request's headers, lower-cased, credentials left out (what betas and extra headers became). */
  headers: Record<string, string>;
  apiKeyPresent: boolean;
  status: number;
  /** Why the request was refused (status 400), worded as the API words it. */
  rejection?: string;
  /** Whether the request asked for a stream ("stream": true). */
  stream: boolean;
  /** A stream the client closed before message_stop: the answer never arrived whole. */
  interrupted?: boolean;
  /** The usage the answer reported, when the model answered. */
  usage?: RecordedUsage;
  /** When it arrived (Date.now()). */
  receivedAt: number;
  /** It came before the retry-after its turn was last given (bad-days.ts): the API would refuse it. */
  early?: true;
  /** A scripted bad day answered it (bad-days.ts): its kind. */
  fault?: ScriptedFault['kind'];
}

export interface RecordedUsage {
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  outputTokens: number;
}

export interface ScriptedMessagesServer {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Successful responses per "scenario#turn": more than one means a completed turn was asked again. */
  completedTurnCounts(): Map<string, number>;
  close(): Promise<void>;
}

export interface ScriptedMessagesServerOptions {
  scenarios: Array<Scenario | ScenarioInput>;
  port?: number;
  /** Refuse what the API refuses (validation.ts). Default true. */
  strict?: boolean;
  /** The context window requests must fit; default: the model's (model-limits.ts), else 200,000. */
  contextWindowTokens?: number;
  /** The prompt cache's clock (ms); default Date.now. */
  now?: () => number;
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

export async function startScriptedMessagesServer(
  options: ScriptedMessagesServerOptions,
): Promise<ScriptedMessagesServer> {
  const scenarios = options.scenarios.map((scenario) => parseScenario(scenario));
  const strict = options.strict ?? true;
  const signer = new ThinkingSigner();
  const cache = new PromptCache(options.now ?? Date.now);
  const requests: RecordedRequest[] = [];
  const attempts = new Map<string, number>();
  const badDays = new BadDays();
  const sockets = new Set<Socket>();

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendJson(response, 500, errorBody(500, error instanceof Error ? error.message : 'internal error'));
      else response.destroy();
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
    let body: MessagesRequestBody;
    try {
      body = JSON.parse(await readBody(request)) as MessagesRequestBody;
    } catch {
      sendJson(response, 400, errorBody(400, 'There was an error parsing the body of your request.'));
      return;
    }
    const scenario = chooseScenario(scenarios, body);
    // A structured call forces its one tool; an agent turn may name one of its several tools.
    const forcedTool =
      body.tool_choice?.type === 'tool' && body.tools?.length === 1 ? body.tool_choice.name : undefined;
    const toolsRefused = body.tool_choice?.type === 'none';
    const record: RecordedRequest = {
      scenario: scenario?.name ?? '',
      turnIndex: forcedTool ? -1 : turnIndexOf(body),
      ...(forcedTool ? { structuredTool: forcedTool } : {}),
      ...(toolsRefused ? { toolsRefused: true as const } : {}),
      body,
      headers: recordedHeaders(request),
      apiKeyPresent: hasCredentials(request),
      status: 200,
      stream: body.stream === true,
      receivedAt: Date.now(),
    };
    // As the API does: a request it would refuse is refused before anything else happens.
    const rejection = strict
      ? validateRequest(body, { signer, contextWindowTokens: options.contextWindowTokens })
      : undefined;
    if (rejection !== undefined) {
      requests.push({ ...record, status: 400, rejection });
      sendJson(response, 400, errorBody(400, rejection));
      return;
    }
    if (!scenario) {
      sendJson(response, 400, errorBody(400, 'no scripted scenario matches this request'));
      return;
    }
    requests.push(record);
    if (forcedTool) await answerStructuredCall(scenario, body, forcedTool, record, response);
    else await answerAgentTurn(scenario, body, record, response);
  }

  async function answerAgentTurn(
    scenario: Scenario,
    body: MessagesRequestBody,
    record: RecordedRequest,
    response: ServerResponse,
  ): Promise<void> {
    const turnIndex = record.turnIndex;
    const scripted: ScriptedTurn =
      scriptedTurnAt(scenario, turnIndex, Array.isArray(body.messages) ? body.messages : []) ??
      scriptedTurnSchema.parse({
        text: `(The scripted scenario "${scenario.name}" has no turn ${turnIndex + 1}; ending here.)`,
      });
    const turn = record.toolsRefused ? withoutTools(scenario, scripted, turnIndex) : scripted;
    const attempt = nextAttempt(`${scenario.name}#${turnIndex}${record.toolsRefused ? '#no-tools' : ''}`);
    await pause(turn.delayMs);
    if (fail(turn.failures[attempt], record, response)) return;
    const key = `${scenario.name}#${turnIndex}`;
    if (badDays.cameEarly(key)) record.early = true;
    const fault = attempt >= turn.failures.length ? badDays.next(key, turn.faults, body.model) : undefined;
    if (fault) record.fault = fault.kind;
    const refused = fault ? badDays.answer(key, fault, response) : undefined;
    if (refused) {
      record.status = refused.status;
      return;
    }
    const [usage, window] = [cache.account(body), options.contextWindowTokens];
    const answer = answerTurn({ body, scenario: scenario.name, turnIndex, turn, signer, usage, window });
    await send(answer, usage, turn.streamChunkDelayMs, record, response, streamFault(fault));
  }

  async function answerStructuredCall(
    scenario: Scenario,
    body: MessagesRequestBody,
    tool: string,
    record: RecordedRequest,
    response: ServerResponse,
  ): Promise<void> {
    const requestText = JSON.stringify(body.messages ?? []);
    const candidates = scenario.structured.filter((entry) => entry.tool === tool);
    const entry: ScriptedStructured | undefined =
      candidates.find(
        (candidate) => candidate.when !== undefined && requestText.includes(jsonEscaped(candidate.when)),
      ) ?? candidates.find((candidate) => candidate.when === undefined);
    if (!entry) {
      record.status = 400;
      sendJson(
        response,
        400,
        errorBody(400, `scenario "${scenario.name}" has no structured answer for ${tool}`),
      );
      return;
    }
    await pause(entry.delayMs);
    const attempt = nextAttempt(`${scenario.name}#${tool}#${entry.when ?? ''}`);
    if (fail(entry.failures[attempt], record, response)) return;
    const usage = cache.account(body);
    const answer = answerStructured({ scenario: scenario.name, tool, attempt, entry, usage });
    await send(answer, usage, entry.streamChunkDelayMs, record, response);
  }

  function nextAttempt(key: string): number {
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    return attempt;
  }

  /** A scripted failure: JSON with its status, before any stream starts (as the API answers). */
  function fail(
    failure: ScriptedFailure | undefined,
    record: RecordedRequest,
    response: ServerResponse,
  ): boolean {
    if (!failure) return false;
    record.status = failure.status;
    const headers: Record<string, string> = {};
    if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
    sendJson(response, failure.status, errorBody(failure.status, failure.message, failure.type), headers);
    return true;
  }

  async function send(
    answer: Answer,
    usage: InputUsage,
    chunkDelayMs: number,
    record: RecordedRequest,
    response: ServerResponse,
    beforeEvent?: ReturnType<typeof streamFault>,
  ): Promise<void> {
    record.usage = {
      inputTokens: usage.inputTokens,
      cacheReadInputTokens: usage.cacheReadInputTokens,
      cacheCreationInputTokens: usage.cacheCreationInputTokens,
      outputTokens: answer.message.usage.output_tokens,
    };
    if (!record.stream) {
      sendJson(response, 200, answer.message);
      return;
    }
    if ((await streamAnswer(response, answer, { chunkDelayMs, beforeEvent })) === 'interrupted')
      record.interrupted = true;
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    completedTurnCounts() {
      const counts = new Map<string, number>();
      for (const request of requests) {
        if (request.status !== 200 || request.turnIndex < 0 || request.interrupted || request.toolsRefused)
          continue;
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

/**
 * The turn as a request under tool_choice none is answered: the scenario's report when it has
 * one, else the turn's own text (or a note that it has none), never a tool call.
 */
function withoutTools(scenario: Scenario, turn: ScriptedTurn, turnIndex: number): ScriptedTurn {
  const report = scenario.report;
  if (report !== undefined) {
    return scriptedTurnSchema.parse({
      text: report.text,
      failures: report.failures,
      delayMs: report.delayMs,
      ...(report.outputTokens === undefined ? {} : { outputTokens: report.outputTokens }),
    });
  }
  return scriptedTurnSchema.parse({
    text:
      turn.text ??
      `(The scripted scenario "${scenario.name}" has no text for turn ${turnIndex + 1} and tools were refused.)`,
    delayMs: turn.delayMs,
  });
}

/**
 * Turns already taken: the assistant messages present (a final one too, when a paused turn is
 * continued), plus any a consolidation condensed away or the context budget dropped. A turn
 * asked again after a discarded (cut) answer counts the same and gets the same scripted turn.
 */
function turnIndexOf(body: MessagesRequestBody): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const firstMessage = JSON.stringify(messages[0]?.content ?? '');
  return (
    messages.filter((message) => message.role === 'assistant').length +
    condensedTurnsIn(firstMessage) +
    droppedTurnsIn(firstMessage)
  );
}

function chooseScenario(scenarios: Scenario[], body: MessagesRequestBody): Scenario | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const opening = JSON.stringify(messages[0]?.content ?? '');
  return (
    scenarios.find(
      (scenario) => scenario.match !== undefined && opening.includes(jsonEscaped(scenario.match)),
    ) ?? scenarios.find((scenario) => scenario.match === undefined)
  );
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function pause(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
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
function recordedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'x-api-key' || name === 'authorization' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function hasCredentials(request: IncomingMessage): boolean {
  return (
    typeof request.headers['x-api-key'] === 'string' || typeof request.headers.authorization === 'string'
  );
}
