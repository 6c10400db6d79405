import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidArgumentError } from 'commander';
import { modelInput, toolChoiceFlag } from '../../src/cli/model-flags';
import { requestHeaders, toolChoiceOf } from '../../src/activities/model/request-options';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';
import {
  assertNamedToolOffered,
  namedToolProblem,
} from '../../src/workflows/goal/model-turn/request-options';
import { FailureType } from '../../src/workflows/common/failure-types';

// Issue 42 item 7: tool_choice, disable_parallel_tool_use, betas and extra headers, from goal
// input (and keel run's flags) to the request the model activity sends.

const base = { goal: 'g', workspace: '/w' };
const thinking = { maxTokens: 8000, thinking: { budgetTokens: 2000 } };

function problem(model: Record<string, unknown>): string | undefined {
  const parsed = parseGoalInput({ ...base, model });
  return parsed.ok ? undefined : parsed.message;
}

test('the goal takes auto, any, none and a named tool, and disableParallelToolUse', () => {
  for (const toolChoice of ['auto', 'any', 'none', { type: 'tool', name: 'read_file' }])
    assert.equal(problem({ toolChoice }), undefined, JSON.stringify(toolChoice));
  assert.equal(problem({ toolChoice: 'any', disableParallelToolUse: true }), undefined);
  assert.match(problem({ toolChoice: 'required' }) ?? '', /^invalid goal input: model\.toolChoice/);
  assert.match(problem({ toolChoice: { type: 'tool' } }) ?? '', /model\.toolChoice/);
});

test('a choice that forces tool use is refused with extended thinking, in one line', () => {
  // docs.claude.com/en/docs/build-with-claude/extended-thinking: only auto or none with thinking.
  assert.equal(
    problem({ ...thinking, toolChoice: 'any' }),
    'invalid goal input: model.toolChoice: toolChoice any forces tool use, which extended thinking does not allow (only auto or none): drop model.thinking or the tool choice',
  );
  assert.match(problem({ ...thinking, toolChoice: { type: 'tool', name: 'x' } }) ?? '', /tool:x forces/);
  assert.equal(problem({ ...thinking, toolChoice: 'auto', disableParallelToolUse: true }), undefined);
  assert.equal(problem({ ...thinking, toolChoice: 'none' }), undefined);
});

test('disableParallelToolUse under toolChoice none is refused: none takes no such field', () => {
  assert.match(problem({ toolChoice: 'none', disableParallelToolUse: true }) ?? '', /disableParallelToolUse/);
});

test('betas are names, extra headers never carry credentials or the API version', () => {
  assert.equal(
    problem({ betas: ['interleaved-thinking-2025-05-14'], extraHeaders: { 'x-team': 'a' } }),
    undefined,
  );
  assert.match(problem({ betas: ['a,b'] }) ?? '', /model\.betas\.0/);
  for (const name of ['x-api-key', 'Authorization', 'anthropic-version'])
    assert.match(problem({ extraHeaders: { [name]: 'v' } }) ?? '', /the worker's client sets it/, name);
  assert.match(problem({ extraHeaders: { 'anthropic-beta': 'v' } }) ?? '', /model\.betas/);
  assert.match(problem({ extraHeaders: { 'x-a': 'one\r\ntwo' } }) ?? '', /one line/);
});

test('a named tool must be one the goal offers: InvalidGoalInput, not retried', () => {
  const offered = [{ name: 'read_file' }, { name: 'search' }];
  assert.equal(namedToolProblem({ type: 'tool', name: 'search' }, offered), undefined);
  assert.equal(namedToolProblem('any', []), undefined);
  assert.throws(
    () => assertNamedToolOffered({ type: 'tool', name: 'deploy' }, offered),
    (error: unknown) =>
      error instanceof ApplicationFailure &&
      error.type === FailureType.InvalidGoalInput &&
      error.nonRetryable &&
      error.message.includes('"deploy", which is not one of this goal\'s tools (read_file, search)'),
  );
});

test('the request: the goal’s choice with disable_parallel_tool_use inside it; the closing none wins', () => {
  assert.equal(toolChoiceOf({}, undefined, true), undefined, 'nothing set: the API default');
  assert.deepEqual(toolChoiceOf({ toolChoice: 'any' }, undefined, true), { type: 'any' });
  assert.deepEqual(toolChoiceOf({ disableParallelToolUse: true }, undefined, true), {
    type: 'auto',
    disable_parallel_tool_use: true,
  });
  assert.deepEqual(
    toolChoiceOf(
      { toolChoice: { type: 'tool', name: 'search' }, disableParallelToolUse: true },
      undefined,
      true,
    ),
    { type: 'tool', name: 'search', disable_parallel_tool_use: true },
  );
  assert.deepEqual(toolChoiceOf({ toolChoice: 'any', disableParallelToolUse: true }, 'none', true), {
    type: 'none',
  });
  assert.deepEqual(toolChoiceOf({ toolChoice: 'none' }, undefined, true), { type: 'none' });
  assert.equal(toolChoiceOf({ toolChoice: 'any' }, undefined, false), undefined, 'no tools, no choice');
});

test('headers: betas joined into anthropic-beta, extras kept, reserved ones dropped', () => {
  assert.equal(requestHeaders({}), undefined);
  assert.deepEqual(requestHeaders({ betas: ['a-1', 'b-2'], extraHeaders: { 'x-team': 't' } }), {
    'x-team': 't',
    'anthropic-beta': 'a-1,b-2',
  });
  assert.equal(requestHeaders({ extraHeaders: { 'X-Api-Key': 'k', authorization: 'a' } }), undefined);
});

test('keel run --tool-choice and --no-parallel-tool-use', () => {
  assert.equal(toolChoiceFlag('any'), 'any');
  assert.deepEqual(toolChoiceFlag('tool:read_file'), { type: 'tool', name: 'read_file' });
  assert.throws(() => toolChoiceFlag('tool:'), InvalidArgumentError);
  assert.throws(() => toolChoiceFlag('required'), InvalidArgumentError);
  assert.deepEqual(modelInput({ cache: true, toolChoice: 'any', parallelToolUse: false }), {
    model: { toolChoice: 'any', disableParallelToolUse: true },
  });
  assert.deepEqual(modelInput({ cache: true, parallelToolUse: true }), {});
});
