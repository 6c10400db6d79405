import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  explorationRatio,
  judgeReflectionResponse,
  reflectionResponseRate,
  unexecutedToolCallNote,
} from '../../src/workflows/reflection/reflection-response';

test('numbered answers 1/2/3 address the checkpoint, whatever their wording', () => {
  const reply = '1. Yes, still on course.\n2. The cache layer is not the cause.\n3. A patch to the parser.';
  assert.deepEqual(judgeReflectionResponse(reply), {
    addressed: true,
    answered: { planMatchesTask: true, provenOrRuledOut: true, nextOutput: true },
  });
});

test('markdown-styled numbering counts too', () => {
  const reply = '**1.** Yes.\n- 2) Cache excluded.\n### 3: Patch the parser';
  assert.equal(judgeReflectionResponse(reply).addressed, true);
  assert.equal(judgeReflectionResponse('(1) Yes\n(2) Cache excluded\n(3) Patch').addressed, true);
});

test('an unnumbered prose answer is judged by keywords per question', () => {
  const reply =
    'The plan still fits the task. So far I ruled out the cache layer. Next I will write the patch to the parser.';
  assert.equal(judgeReflectionResponse(reply).addressed, true);
});

test('an answer in the task language (Chinese) is recognised', () => {
  const reply = '计划仍然符合任务。已经排除了缓存层。下一步输出解析器的补丁。';
  assert.equal(judgeReflectionResponse(reply).addressed, true);
});

test('a reply that ignores the checkpoint is not addressed', () => {
  for (const reply of ['', '   ', 'Running that again with a different pattern.', 'OK.']) {
    const judgement = judgeReflectionResponse(reply);
    assert.equal(judgement.addressed, false, reply);
    assert.deepEqual(judgement.answered, {
      planMatchesTask: false,
      provenOrRuledOut: false,
      nextOutput: false,
    });
  }
});

test('a partial answer reports exactly which questions were answered', () => {
  const judgement = judgeReflectionResponse('1. The plan holds.\n2. Nothing excluded so far, still looking.');
  assert.equal(judgement.addressed, false);
  assert.deepEqual(judgement.answered, { planMatchesTask: true, provenOrRuledOut: true, nextOutput: false });

  const onlyNext = judgeReflectionResponse('Next I will open the config.');
  assert.deepEqual(onlyNext.answered, { planMatchesTask: false, provenOrRuledOut: false, nextOutput: true });
});

test('a bare number without text after it does not count as an answer', () => {
  const judgement = judgeReflectionResponse('1.\n2.\n3.');
  assert.equal(judgement.addressed, false);
  // Numbers inside sentences are not list markers either.
  assert.equal(judgeReflectionResponse('Ran 3 times, took 2.5 seconds, 1 left.').addressed, false);
});

test('the unexecuted-call note asks for the checkpoint answer first and is not framed as a failure', () => {
  const note = unexecutedToolCallNote();
  assert.match(note, /not (been )?(executed|run)/i);
  assert.match(note, /checkpoint/);
  assert.match(note, /plan still match the task/);
  assert.match(note, /prove or rule out/);
  assert.match(note, /next concrete output/);
  assert.doesNotMatch(note, /error|fail|blocked|denied/i);
});

test('the response rate is addressed over checkpoints, clamped to [0, 1]', () => {
  assert.equal(reflectionResponseRate({ checkpoints: 4, addressed: 3 }), 0.75);
  assert.equal(reflectionResponseRate({ checkpoints: 4, addressed: 0 }), 0);
  assert.equal(reflectionResponseRate({ checkpoints: 2, addressed: 5 }), 1);
  assert.equal(reflectionResponseRate({ checkpoints: 2, addressed: -1 }), 0);
});

test('with no checkpoints the response rate is undefined, not 0', () => {
  assert.equal(reflectionResponseRate({ checkpoints: 0, addressed: 0 }), undefined);
});

test('the exploration ratio is read-only over mutating, null and JSON-safe with no mutating call', () => {
  assert.deepEqual(explorationRatio({ readOnlyCalls: 30, mutatingCalls: 1 }), {
    ratio: 30,
    readOnly: 30,
    mutating: 1,
  });
  assert.deepEqual(explorationRatio({ readOnlyCalls: 3, mutatingCalls: 4 }), {
    ratio: 0.75,
    readOnly: 3,
    mutating: 4,
  });
  const none = explorationRatio({ readOnlyCalls: 12, mutatingCalls: 0 });
  assert.deepEqual(none, { ratio: null, readOnly: 12, mutating: 0 });
  assert.deepEqual(JSON.parse(JSON.stringify(none)), none);
  assert.equal(explorationRatio({ readOnlyCalls: 0, mutatingCalls: 0 }).ratio, null);
});
