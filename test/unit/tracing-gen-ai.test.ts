import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import type { Context as ActivityContext } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { KeelActivityTracing } from '../../src/tracing/activity-interceptor';
import { GenAiAttribute, KeelAttribute } from '../../src/tracing';
import { goalAttributes, usageAttributes } from '../../src/tracing/span-attributes';

// The GenAI semantic conventions' names, spelled out here on purpose rather than taken from
// GenAiAttribute: a renamed constant must fail these tests, not pass them silently.
const USAGE = {
  inputTokens: 10,
  outputTokens: 20,
  cacheCreationInputTokens: 300,
  cacheReadInputTokens: 4000,
  cacheCreation1hInputTokens: 0,
};

/** Runs one activity through keel's interceptor and returns the one span it made. */
async function traced(
  activityType: string,
  argument: unknown,
  outcome: { result?: unknown; error?: Error },
): Promise<ReadableSpan> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const context = {
    info: { activityType, workflowExecution: { workflowId: 'goal-7', runId: 'run-1' } },
  } as unknown as ActivityContext;
  const interceptor = new KeelActivityTracing(context, provider.getTracer('test'));
  const input = { args: [argument], headers: {} } as unknown as ActivityExecuteInput;
  await interceptor
    .execute(input, () => (outcome.error ? Promise.reject(outcome.error) : Promise.resolve(outcome.result)))
    .catch((error: unknown) => {
      if (error !== outcome.error) throw error;
    });
  const spans = exporter.getFinishedSpans();
  assert.equal(spans.length, 1);
  return spans[0]!;
}

test('a model turn is a `chat {model}` client span with the GenAI request, response and usage attributes', async () => {
  const span = await traced(
    'callModel',
    { model: { name: 'claude-sonnet-4-6', maxTokens: 4096, temperature: 0.5 }, turn: 3, messages: [] },
    { result: { content: [], stopReason: 'tool_use', model: 'claude-sonnet-4-6-20260101', usage: USAGE } },
  );
  assert.equal(span.name, 'chat claude-sonnet-4-6');
  assert.equal(span.kind, SpanKind.CLIENT);
  assert.deepEqual(
    { ...span.attributes, 'keel.cost.usd': undefined },
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.conversation.id': 'goal-7',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.request.max_tokens': 4096,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.response.model': 'claude-sonnet-4-6-20260101',
      'gen_ai.response.finish_reasons': ['tool_use'],
      // Anthropic's input_tokens leaves the cache out; the conventions' count includes it.
      'gen_ai.usage.input_tokens': 4310,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.usage.cache_creation.input_tokens': 300,
      'gen_ai.usage.cache_read.input_tokens': 4000,
      'keel.goal.id': 'goal-7',
      'keel.model.turn': 3,
      'keel.model.stop_reason': 'tool_use',
      'keel.usage.cache_creation_input_tokens': 300,
      'keel.usage.cache_read_input_tokens': 4000,
      'keel.cost.usd': undefined,
    },
  );
  assert.ok(Number(span.attributes['keel.cost.usd']) > 0, 'priced by keel’s price table');
});

test('the operation, provider and model are there when the span starts (the conventions ask, for sampling)', async () => {
  const exporter = new InMemorySpanExporter();
  const started: Array<Record<string, unknown>> = [];
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(exporter),
      {
        onStart: (span) => void started.push({ ...(span as unknown as ReadableSpan).attributes }),
        onEnd: () => undefined,
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      },
    ],
  });
  const context = { info: { activityType: 'callModel' } } as unknown as ActivityContext;
  const interceptor = new KeelActivityTracing(context, provider.getTracer('test'));
  const input = {
    args: [{ model: { name: 'claude-haiku-4-5', maxTokens: 1024 } }],
  } as unknown as ActivityExecuteInput;
  await interceptor.execute(input, () => Promise.resolve({}));
  assert.equal(started.length, 1);
  assert.equal(started[0]!['gen_ai.operation.name'], 'chat');
  assert.equal(started[0]!['gen_ai.provider.name'], 'anthropic');
  assert.equal(started[0]!['gen_ai.request.model'], 'claude-haiku-4-5');
});

test('a structured call is a chat span too, with its purpose and without a temperature it never sends', async () => {
  const span = await traced(
    'callStructured',
    { model: { name: 'claude-sonnet-4-6', maxTokens: 2048, temperature: 0.2 }, purpose: 'plan' },
    { result: { raw: '{}', viaTool: true, usage: USAGE } },
  );
  assert.equal(span.name, 'chat claude-sonnet-4-6');
  assert.equal(span.attributes['gen_ai.operation.name'], 'chat');
  assert.equal(span.attributes['gen_ai.request.max_tokens'], 2048);
  assert.equal(span.attributes['gen_ai.request.temperature'], undefined);
  assert.equal(span.attributes['keel.model.purpose'], 'plan');
  assert.equal(span.attributes['gen_ai.usage.output_tokens'], 20);
  // A structured result names no model and no stop reason: those attributes are left out.
  assert.equal(span.attributes['gen_ai.response.model'], undefined);
  assert.equal(span.attributes['gen_ai.response.finish_reasons'], undefined);
});

test('a model turn without a temperature or a model name: no temperature, span named by the operation', async () => {
  const span = await traced('callModel', { model: {} }, { result: {} });
  assert.equal(span.name, 'chat');
  assert.equal(span.attributes['gen_ai.request.temperature'], undefined);
  assert.equal(span.attributes['gen_ai.request.model'], undefined);
});

test('a tool call is an `execute_tool {tool}` span with the GenAI tool attributes and keel’s beside them', async () => {
  const span = await traced(
    'executeTool',
    { toolName: 'write_file', callId: 'toolu_01', reversibility: 'mutating', input: {} },
    { result: { ok: false, content: 'no such directory' } },
  );
  assert.equal(span.name, 'execute_tool write_file');
  assert.equal(span.kind, SpanKind.INTERNAL);
  assert.deepEqual(span.attributes, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'write_file',
    'gen_ai.tool.call.id': 'toolu_01',
    'gen_ai.conversation.id': 'goal-7',
    'keel.goal.id': 'goal-7',
    'keel.tool.name': 'write_file',
    'keel.tool.call_id': 'toolu_01',
    'keel.tool.tier': 'mutating',
    // A failed tool is a result the model reads, not a failed span.
    'keel.tool.ok': false,
  });
  assert.equal(span.status.code, SpanStatusCode.UNSET);
});

test('a failed activity: the span is an error with error.type the failure’s type, never its message', async () => {
  const failure = ApplicationFailure.nonRetryable('the API said no: secret details', 'ModelRequestRefused');
  const span = await traced('callModel', { model: { name: 'claude-sonnet-4-6' } }, { error: failure });
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.attributes['error.type'], 'ModelRequestRefused');
  const plain = await traced('executeTool', { toolName: 'read_file' }, { error: new TypeError('boom') });
  assert.equal(plain.attributes['error.type'], 'TypeError');
});

test('other activities get no span of keel’s', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const context = { info: { activityType: 'prepareToolCalls' } } as unknown as ActivityContext;
  const interceptor = new KeelActivityTracing(context, provider.getTracer('test'));
  const result = await interceptor.execute({ args: [{}] } as unknown as ActivityExecuteInput, () =>
    Promise.resolve(42),
  );
  assert.equal(result, 42);
  assert.equal(exporter.getFinishedSpans().length, 0);
});

test('usage attributes: none for what is not a usage record; the goal’s totals use the same names', () => {
  assert.deepEqual(usageAttributes(undefined, 'claude-sonnet-4-6'), {});
  assert.deepEqual(usageAttributes({ inputTokens: 1 }, 'claude-sonnet-4-6'), {});
  const unpriced = usageAttributes(USAGE, 'a-model-keel-has-no-price-for');
  assert.equal(unpriced[GenAiAttribute.InputTokens], 4310);
  assert.equal(unpriced[KeelAttribute.CostUsd], undefined);
  const goal = goalAttributes({ status: 'completed', usage: USAGE, counters: { modelTurns: 2 } }, undefined);
  assert.equal(goal['gen_ai.usage.input_tokens'], 4310);
  assert.equal(goal['gen_ai.usage.cache_read.input_tokens'], 4000);
  assert.equal(goal['keel.goal.status'], 'completed');
  assert.equal(goal['keel.model_turns'], 2);
});
