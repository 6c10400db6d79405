import { inputTokensOfAllKinds } from '../../src/workflows/principles/cost';
import { DEFAULT_MODEL } from '../../src/workflows/goal/lifecycle/input';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { startGoal } from '../../src/client/goal-client';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import {
  chatSpanName,
  createTracing,
  executeToolSpanName,
  GenAiAttribute,
  GenAiOperation,
  INVOKE_AGENT_SPAN_NAME,
  KeelAttribute,
  tracingFromEnv,
} from '../../src/tracing';
import { createKeelWorker, WORKFLOWS_PATH } from '../../src/worker';
import { stopOwnServer, tempDirectory, temporalAddress } from '../support/temporal';
import { quietLogger } from '../support/quiet-logger';
import { connectTemporal } from '../../src/client/temporal-connection';

after(stopOwnServer);

test(
  'tracing: a goal, its model turns and tool calls are GenAI-convention spans with token, cost and tier attributes, in one trace',
  { timeout: 180_000 },
  async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      serviceName: 'keel-test',
    });
    const scripted = await startScriptedMessagesServer({
      scenarios: [
        {
          name: 'traced',
          turns: [
            { toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
            { toolCalls: [{ name: 'write_file', input: { path: 'out.txt', content: 'copied' } }] },
            { text: 'Copied the notes.' },
          ],
        },
      ],
    });
    const address = await temporalAddress();
    const workspace = tempDirectory('keel-tracing-');
    writeFileSync(path.join(workspace, 'notes.txt'), 'some notes\n');
    const connection = await connectTemporal({ address });
    const client = new Client({ connection, plugins: [...tracing.plugins] });
    const workerConnection = await NativeConnection.connect({ address });
    const taskQueue = `keel-tracing-${process.pid}-${Date.now()}`;
    try {
      // A bundle built ahead carries the tracing workflow interceptors through the plugins.
      const workflowBundle = await bundleWorkflowCode({
        workflowsPath: WORKFLOWS_PATH,
        plugins: [...tracing.plugins],
        logger: quietLogger,
      });
      const worker = await createKeelWorker({
        connection: workerConnection,
        namespace: 'default',
        taskQueue,
        anthropic: new Anthropic({ apiKey: 'test-key', baseURL: scripted.url, maxRetries: 0 }),
        journalDirectory: tempDirectory('keel-journal-'),
        backupDirectory: tempDirectory('keel-backups-'),
        modelRequestStore: false,
        ledgerSinks: [],
        mcpServers: false,
        workflowBundle,
        tracing,
      });
      const result = await worker.runUntil(async () => {
        const handle = await startGoal(client, { taskQueue, input: { goal: 'Copy the notes', workspace } });
        return handle.result();
      });
      assert.equal(result.status, 'completed');
      await tracing.flush(); // (shutdown would empty the in-memory exporter)

      const spans = exporter.getFinishedSpans();
      const named = (name: string) => spans.filter((span) => span.name === name);
      const shown = spans.map((span) => `${span.name} ${JSON.stringify(span.attributes)}`).join('\n');

      // The SDK's spans: the start on the client, the run in the workflow, each activity on the worker.
      const start = named('StartWorkflow:goalWorkflow')[0];
      assert.ok(start, shown);
      assert.ok(named('RunWorkflow:goalWorkflow').length >= 1, shown);
      assert.ok(named('RunActivity:callModel').length >= 3, shown);
      assert.equal(named('RunActivity:executeTool').length, 2, shown);
      // ... and every span belongs to the goal's one trace, started by the client.
      for (const span of spans) assert.equal(span.spanContext().traceId, start.spanContext().traceId, shown);

      // The GenAI conventions' agent span (gen-ai-agent-spans.md), with keel's totals beside.
      const goal = named(INVOKE_AGENT_SPAN_NAME);
      assert.equal(goal.length, 1, shown);
      const goalAttributes = goal[0]!.attributes;
      const goalId = goalAttributes[KeelAttribute.GoalId];
      assert.equal(typeof goalId, 'string', shown);
      assert.equal(goal[0]!.kind, SpanKind.INTERNAL, shown);
      assert.equal(goalAttributes[GenAiAttribute.OperationName], GenAiOperation.InvokeAgent, shown);
      assert.equal(goalAttributes[GenAiAttribute.ProviderName], 'anthropic', shown);
      assert.equal(goalAttributes[GenAiAttribute.AgentName], 'keel', shown);
      assert.equal(goalAttributes[GenAiAttribute.ConversationId], goalId, shown);
      assert.equal(goalAttributes[GenAiAttribute.RequestModel], DEFAULT_MODEL, shown);
      assert.equal(goalAttributes[KeelAttribute.GoalStatus], 'completed', shown);
      assert.equal(goalAttributes[KeelAttribute.ToolCalls], 2, shown);
      assert.equal(goalAttributes[KeelAttribute.ToolCallsReadOnly], 1, shown);
      assert.equal(goalAttributes[KeelAttribute.ToolCallsMutating], 1, shown);
      assert.equal(goalAttributes[GenAiAttribute.InputTokens], inputTokensOfAllKinds(result.usage), shown);
      assert.equal(goalAttributes[GenAiAttribute.OutputTokens], result.usage.outputTokens, shown);
      assert.equal(
        goalAttributes[GenAiAttribute.CacheCreationInputTokens],
        result.usage.cacheCreationInputTokens,
        shown,
      );
      assert.ok(
        Number(goalAttributes[GenAiAttribute.CacheReadInputTokens]) > 0,
        `the prompt cache served: ${shown}`,
      );
      assert.equal(
        goalAttributes[KeelAttribute.CacheReadTokens],
        goalAttributes[GenAiAttribute.CacheReadInputTokens],
        shown,
      );
      assert.ok(Number(goalAttributes[KeelAttribute.CostUsd]) > 0, shown);

      // Inference spans: `chat {model}`, a client call to anthropic (gen-ai-spans.md, anthropic.md).
      const turns = spans.filter(
        (span) => span.attributes[GenAiAttribute.OperationName] === GenAiOperation.Chat,
      );
      assert.equal(turns.length, 3, shown);
      for (const turn of turns) {
        const model = turn.attributes[GenAiAttribute.RequestModel];
        assert.equal(typeof model, 'string', shown);
        assert.equal(turn.name, chatSpanName(String(model)), shown);
        assert.equal(turn.kind, SpanKind.CLIENT, shown);
        assert.equal(turn.attributes[GenAiAttribute.ProviderName], 'anthropic', shown);
        assert.equal(typeof turn.attributes[GenAiAttribute.ResponseModel], 'string', shown);
        assert.ok(Number(turn.attributes[GenAiAttribute.RequestMaxTokens]) > 0, shown);
        assert.ok(Number(turn.attributes[GenAiAttribute.InputTokens]) > 0, shown);
        assert.ok(Number(turn.attributes[GenAiAttribute.OutputTokens]) > 0, shown);
        assert.equal(typeof turn.attributes[GenAiAttribute.CacheReadInputTokens], 'number', shown);
        assert.equal(typeof turn.attributes[GenAiAttribute.CacheCreationInputTokens], 'number', shown);
        assert.ok(Number(turn.attributes[KeelAttribute.CostUsd]) > 0, shown);
        assert.equal(turn.attributes[KeelAttribute.GoalId], goalId, shown);
        assert.equal(turn.attributes[GenAiAttribute.ConversationId], goalId, shown);
        assert.equal(parentName(turn, spans), 'RunActivity:callModel', shown);
      }
      assert.deepEqual(
        turns.map((turn) => turn.attributes[GenAiAttribute.ResponseFinishReasons]).sort(),
        [['end_turn'], ['tool_use'], ['tool_use']],
        shown,
      );
      assert.deepEqual(
        turns.map((turn) => turn.attributes[KeelAttribute.StopReason]).sort(),
        ['end_turn', 'tool_use', 'tool_use'],
        shown,
      );

      // Tool spans: `execute_tool {tool}` (gen-ai-spans.md), keel's tier and outcome beside.
      const tools = spans.filter(
        (span) => span.attributes[GenAiAttribute.OperationName] === GenAiOperation.ExecuteTool,
      );
      assert.deepEqual(
        tools
          .map((tool) => [
            tool.name,
            tool.attributes[GenAiAttribute.ToolName],
            tool.attributes[KeelAttribute.ToolName],
            tool.attributes[KeelAttribute.Tier],
            tool.attributes[KeelAttribute.ToolOk],
          ])
          .sort(),
        [
          [executeToolSpanName('read_file'), 'read_file', 'read_file', 'read-only', true],
          [executeToolSpanName('write_file'), 'write_file', 'write_file', 'mutating', true],
        ],
        shown,
      );
      for (const tool of tools) {
        const callId = tool.attributes[GenAiAttribute.ToolCallId];
        assert.ok(typeof callId === 'string' && callId.length > 0, shown);
        assert.equal(tool.attributes[KeelAttribute.ToolCallId], callId, shown);
        assert.equal(tool.kind, SpanKind.INTERNAL, shown);
      }
      for (const tool of tools) assert.equal(parentName(tool, spans), 'RunActivity:executeTool', shown);
    } finally {
      await workerConnection.close();
      await connection.close();
      await scripted.close();
    }
  },
);

test('tracing from the environment: off unless OTEL_TRACES_EXPORTER or an OTLP endpoint asks for it', () => {
  assert.equal(tracingFromEnv({}), undefined);
  assert.equal(tracingFromEnv({ OTEL_TRACES_EXPORTER: 'none' }), undefined);
  assert.equal(tracingFromEnv({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'true' }), undefined);
  assert.ok(tracingFromEnv({ OTEL_TRACES_EXPORTER: 'console' }));
  assert.ok(tracingFromEnv({ OTEL_TRACES_EXPORTER: 'otlp,console' }));
  assert.ok(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }));
  assert.throws(() => tracingFromEnv({ OTEL_TRACES_EXPORTER: 'jaeger' }), /console, otlp or none/);
});

function parentName(span: ReadableSpan, spans: readonly ReadableSpan[]): string | undefined {
  return spans.find((candidate) => candidate.spanContext().spanId === span.parentSpanId)?.name;
}
