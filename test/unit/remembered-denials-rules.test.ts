import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  autoDenial,
  MAX_REMEMBERED_DENIALS,
  rememberDenial,
  rememberedDenialFor,
  rememberedDenialSchema,
  rememberedDenialsSchema,
  type RememberedDenial,
} from '../../src/workflows/goal/tool-calls/remembered-denials';

/**
 * The remembered denials' rules (issue 27: mutation testing; src/workflows/goal/tool-calls/remembered-denials.ts):
 * only a human's denial (by signal or Update) is remembered, whole; a denial of the very same
 * intent (same tool, same targets, same call) replaces the older one and any other intent is kept
 * beside it; the newest 50 are kept; a later call is matched against the newest entry first; and
 * the auto-denial's whole text.
 */

const shell = (command: string, callId = 'call-1') => ({
  callId,
  toolName: 'run_command',
  input: { command },
  summary: `run_command: ${command}`,
});

const decision = (approver = 'carol', via = 'signal', reason = 'not the build dir') => ({
  approver,
  reason,
  decidedAt: '2030-01-01T00:00:00.000Z',
  via,
});

const entry = (
  intent: RememberedDenial['intent'],
  command: string,
  callId = 'call-1',
  approver = 'carol',
  via: 'signal' | 'update' = 'signal',
): RememberedDenial => ({
  intent,
  decision: {
    callId,
    summary: `run_command: ${command}`,
    approver,
    reason: 'not the build dir',
    decidedAt: '2030-01-01T00:00:00.000Z',
    via,
  },
});

/** An `rm` intent: what it names is what it would delete (denied-effects.ts). */
const on = (...targets: string[]) => ({ tool: 'run_command', targets, call: '', effects: targets });

test('at most 50 denials are remembered', () => {
  assert.equal(MAX_REMEMBERED_DENIALS, 50);
});

test('a human denial by signal or by Update is remembered whole: the intent, the call and the decision', () => {
  assert.deepEqual(rememberDenial([], shell('rm -rf build'), decision()), [
    entry(on('build'), 'rm -rf build'),
  ]);
  assert.deepEqual(rememberDenial([], shell('rm -rf build', 'call-2'), decision('dan', 'update')), [
    entry(on('build'), 'rm -rf build', 'call-2', 'dan', 'update'),
  ]);
});

test('any other denial (a timeout, a cancellation, keel itself) leaves the list as it was', () => {
  const kept = [entry(on('dist'), 'rm -rf dist')];
  for (const via of ['timeout', 'cancellation', 'remembered-denial', '']) {
    assert.deepEqual(rememberDenial(kept, shell('rm -rf build'), decision('carol', via)), kept, via);
  }
  assert.deepEqual(kept, [entry(on('dist'), 'rm -rf dist')], 'the given list is not changed');
});

test('a denial of the very same intent replaces the older entry and goes last; other intents stay in order', () => {
  const list = [entry(on('build'), 'rm -rf build'), entry(on('dist'), 'rm -rf dist', 'call-2')];
  assert.deepEqual(rememberDenial(list, shell('rm -r ./build/', 'call-3'), decision('dan', 'update')), [
    entry(on('dist'), 'rm -rf dist', 'call-2'),
    entry(on('build'), 'rm -r ./build/', 'call-3', 'dan', 'update'),
  ]);
  assert.equal(list.length, 2, 'the given list is not changed');
});

test('an intent that merely overlaps, or differs in tool, call or target spelling, is kept beside the older one', () => {
  const cases: Array<[string, RememberedDenial, { toolName: string; input: unknown }]> = [
    [
      'overlapping targets',
      entry(on('a', 'b'), 'rm -rf a b'),
      { toolName: 'run_command', input: { command: 'rm -rf a' } },
    ],
    [
      'joined targets',
      entry(on('a', 'b'), 'rm -rf a b'),
      { toolName: 'run_command', input: { command: 'rm -rf ab' } },
    ],
    [
      'another tool',
      entry(on('a'), 'rm -rf a'),
      { toolName: 'write_file', input: { path: 'a', content: '' } },
    ],
    [
      'another call without targets',
      entry({ tool: 'run_command', targets: [], call: 'run_command {"command":"ls"}' }, 'ls'),
      { toolName: 'run_command', input: { command: 'pwd' } },
    ],
  ];
  for (const [name, earlier, call] of cases) {
    const remembered = rememberDenial([earlier], { ...call, callId: 'call-9', summary: 's' }, decision());
    assert.deepEqual(
      remembered.map((kept) => kept.decision.callId),
      ['call-1', 'call-9'],
      name,
    );
  }
});

test('two intents alike but for their tool are two intents, both kept', () => {
  const earlier: RememberedDenial = entry({ tool: 'other_tool', targets: [], call: 'x {}' }, 'x');
  const remembered = rememberDenial(
    [earlier],
    { toolName: 'x', input: {}, callId: 'call-2', summary: 's' },
    decision(),
  );
  assert.deepEqual(
    remembered.map((kept) => kept.intent),
    [
      { tool: 'other_tool', targets: [], call: 'x {}' },
      { tool: 'x', targets: [], call: 'x {}' },
    ],
  );
});

test('the 50th denial is kept with the first; the 51st pushes out the oldest', () => {
  let remembered: RememberedDenial[] = [];
  for (let index = 0; index < MAX_REMEMBERED_DENIALS; index += 1) {
    remembered = rememberDenial(remembered, shell(`rm -rf dir${index}`, `call-${index}`), decision());
  }
  assert.equal(remembered.length, 50);
  assert.equal(remembered[0]?.decision.callId, 'call-0');
  assert.equal(remembered[49]?.decision.callId, 'call-49');
  remembered = rememberDenial(remembered, shell('rm -rf dir50', 'call-50'), decision());
  assert.equal(remembered.length, 50);
  assert.equal(remembered[0]?.decision.callId, 'call-1');
  assert.equal(remembered[49]?.decision.callId, 'call-50');
});

test('a call matches the newest entry it shares an intent with, the oldest too, and nothing when none', () => {
  const oldest = entry(on('a', 'b'), 'rm -rf a b', 'call-1', 'old');
  const middle = entry(on('x'), 'rm -rf x', 'call-2');
  const newest = entry(on('b', 'c'), 'rm -rf b c', 'call-3', 'new');
  const list = [oldest, middle, newest];
  assert.equal(rememberedDenialFor(list, shell('rm b')), newest);
  assert.equal(rememberedDenialFor(list, shell('rm a')), oldest, 'the first entry is looked at too');
  assert.equal(rememberedDenialFor(list, shell('rm -rf x')), middle);
  assert.equal(rememberedDenialFor(list, shell('rm -rf y')), undefined);
  assert.equal(rememberedDenialFor([oldest], shell('rm a')), oldest);
  assert.equal(rememberedDenialFor([oldest], shell('rm y')), undefined);
  assert.equal(rememberedDenialFor([], shell('rm a')), undefined);
  assert.equal(rememberedDenialFor(undefined, shell('rm a')), undefined);
});

test('the auto-denial: a denial by keel, its reason naming the approver, the intent and their reason trimmed', () => {
  const remembered = entry(on('build'), 'rm -rf build');
  assert.deepEqual(
    autoDenial({ ...remembered, decision: { ...remembered.decision, reason: '  not there \n' } }, 'T'),
    {
      approved: false,
      approver: 'keel',
      reason:
        'a human (carol) denied this intent (run_command on build) earlier and asked not to be asked again, so keel refused it without asking. Their reason: not there',
      decidedAt: 'T',
      via: 'remembered-denial',
    },
  );
});

test('the auto-denial of a denial given without a reason (or only blanks) says nothing of one', () => {
  const remembered = entry(on('build'), 'rm -rf build');
  for (const reason of ['', '  \n']) {
    assert.deepEqual(
      autoDenial({ ...remembered, decision: { ...remembered.decision, reason } }, 'T'),
      {
        approved: false,
        approver: 'keel',
        reason:
          'a human (carol) denied this intent (run_command on build) earlier and asked not to be asked again, so keel refused it without asking.',
        decidedAt: 'T',
        via: 'remembered-denial',
      },
      JSON.stringify(reason),
    );
  }
});

test('the schemas: a remembered denial was made by signal or Update; at most 50 of them', () => {
  const one = entry(on('build'), 'rm -rf build');
  assert.deepEqual(rememberedDenialSchema.parse(one), one);
  assert.deepEqual(
    rememberedDenialSchema.parse({ ...one, decision: { ...one.decision, via: 'update' } }).decision.via,
    'update',
  );
  for (const via of ['timeout', 'remembered-denial', '']) {
    assert.equal(
      rememberedDenialSchema.safeParse({ ...one, decision: { ...one.decision, via } }).success,
      false,
      via,
    );
  }
  assert.equal(rememberedDenialsSchema.safeParse(Array.from({ length: 50 }, () => one)).success, true);
  assert.equal(rememberedDenialsSchema.safeParse(Array.from({ length: 51 }, () => one)).success, false);
});

test('a target holding a newline is not two targets: its denial does not replace the denial of both', () => {
  const both = rememberDenial([], shell('rm -rf a b'), decision());
  const remembered = rememberDenial(both, shell("rm -rf 'a\nb'", 'call-2'), decision());
  assert.deepEqual(
    remembered.map((kept) => kept.intent),
    [on('a', 'b'), on('a\nb')],
  );
  assert.equal(rememberedDenialFor(remembered, shell('rm -rf a'))?.decision.callId, 'call-1');
});
