import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHECKPOINT_MARKER,
  DEFAULT_REFLECTION_CADENCE,
  MAX_QUOTED_TASK_CHARACTERS,
  checkpointDue,
  checkpointPrompt,
  truncateText,
} from '../../src/workflows/principles/cadence';

/** Words the checkpoint must never contain: it is neutral to tools, languages and ecosystems. */
const ECOSYSTEM_WORDS = [
  'cargo',
  'npm',
  'npx',
  'yarn',
  'pip',
  'grep',
  'rg',
  'sed',
  'awk',
  'git',
  'python',
  'rust',
  'rustc',
  'typescript',
  'javascript',
  'node',
  'java',
  'go',
  'bash',
  'shell',
  'sh',
  'zsh',
  'make',
  'docker',
  'ls',
  'cat',
  'read_file',
  'run_command',
  'search',
];

function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9_]+/);
}

function assertNeutral(text: string): void {
  const words = new Set(wordsOf(text));
  for (const word of ECOSYSTEM_WORDS) assert.ok(!words.has(word), `must not name "${word}": ${text}`);
  // File names such as session.rs or main.ts look like a dot between word characters.
  assert.doesNotMatch(text, /\b\w+\.(rs|ts|js|py|go|toml|json|md)\b/);
  assert.doesNotMatch(text, /error|blocked/i);
}

test('the default cadence is 7 (003 supersedes the 10 of 000)', () => {
  assert.equal(DEFAULT_REFLECTION_CADENCE, 7);
});

test('cadence 0 (or less) never fires', () => {
  assert.equal(checkpointDue(50, 0, 0), undefined);
  assert.equal(checkpointDue(1, 0, 0), undefined);
  assert.equal(checkpointDue(50, 0, -3), undefined);
});

test('9 calls at cadence 10 do not fire; 10 fire and report 10', () => {
  assert.equal(checkpointDue(9, 0, 10), undefined);
  assert.equal(checkpointDue(10, 0, 10), 10);
});

test('a batched turn jumping past the cadence reports the real difference', () => {
  assert.equal(checkpointDue(13, 0, 10), 13);
});

test('the marker of the previous checkpoint is honoured', () => {
  assert.equal(checkpointDue(19, 10, 10), undefined);
  assert.equal(checkpointDue(20, 10, 10), 10);
});

test('a marker ahead of the count saturates at 0 and never fires', () => {
  assert.equal(checkpointDue(5, 10, 10), undefined);
  assert.equal(checkpointDue(5, 10, 1), undefined);
});

test('the prompt starts with the exported marker and states the number of calls', () => {
  const prompt = checkpointPrompt({ toolCallsSinceCheckpoint: 12, taskText: 'Summarise the design notes.' });
  assert.ok(prompt.startsWith(CHECKPOINT_MARKER));
  assert.match(prompt, /You have made 12 tool calls since the last checkpoint/);
  assert.match(prompt, /last 12 tool calls/);
  const single = checkpointPrompt({ toolCallsSinceCheckpoint: 1, taskText: 'x' });
  assert.match(single, /You have made 1 tool call since/);
});

test('the prompt asks the three questions in order', () => {
  const prompt = checkpointPrompt({ toolCallsSinceCheckpoint: 7, taskText: 'Find the slow query.' });
  const first = prompt.indexOf('1. ');
  const second = prompt.indexOf('2. ');
  const third = prompt.indexOf('3. ');
  assert.ok(first > 0 && first < second && second < third, prompt);
  assert.match(prompt.slice(first, second), /plan still matches the task/);
  assert.match(prompt.slice(second, third), /proved or ruled out/);
  assert.match(prompt.slice(third), /next concrete output/);
});

test('the task is quoted verbatim, including inner whitespace and newlines', () => {
  const task = 'Fix the login flow.\n  Keep the old API working;  add a note for users.';
  const prompt = checkpointPrompt({ toolCallsSinceCheckpoint: 7, taskText: task });
  assert.ok(prompt.includes(`<task>\n${task}\n</task>`), prompt);
  assert.doesNotMatch(prompt, /restate the goal/);
});

test('a task of exactly 300 characters is quoted whole; 301 is cut to 297 plus "..."', () => {
  const exact = 'a'.repeat(299) + 'Z';
  assert.equal(exact.length, MAX_QUOTED_TASK_CHARACTERS);
  const whole = checkpointPrompt({ toolCallsSinceCheckpoint: 7, taskText: exact });
  assert.ok(whole.includes(`<task>\n${exact}\n</task>`));
  assert.ok(!whole.includes('...'));

  const long = 'b'.repeat(297) + 'XYZW';
  assert.equal(long.length, 301);
  const cut = checkpointPrompt({ toolCallsSinceCheckpoint: 7, taskText: long });
  const quoted = `${'b'.repeat(297)}...`;
  assert.ok(cut.includes(`<task>\n${quoted}\n</task>`), cut);
  assert.equal(quoted.length, 300);
  assert.ok(!cut.includes('XYZW') && !cut.includes('bX'));
});

test('truncation counts characters, not UTF-16 units', () => {
  const task = '任'.repeat(299) + '😀';
  assert.equal(truncateText(task, 300), task);
  const longer = '😀'.repeat(301);
  const cut = truncateText(longer, 300);
  assert.equal(Array.from(cut).length, 300);
  assert.ok(cut.endsWith('😀...'));
});

test('with no or blank task text the prompt asks to restate the goal', () => {
  for (const taskText of [undefined, '', '   \n\t']) {
    const prompt = checkpointPrompt({ toolCallsSinceCheckpoint: 7, taskText });
    assert.match(prompt, /restate the goal/);
    assert.ok(!prompt.includes('<task>'));
  }
});

test('the prompt names no tool, language or ecosystem and is not framed as a failure or a stop', () => {
  for (const taskText of [undefined, 'Summarise the design notes for the team.']) {
    for (const count of [1, 7, 13])
      assertNeutral(checkpointPrompt({ toolCallsSinceCheckpoint: count, taskText }));
  }
});

test('the neutrality check itself catches ecosystem words and file names', () => {
  assert.throws(() => assertNeutral('run cargo check first'));
  assert.throws(() => assertNeutral('open session.rs'));
  assert.throws(() => assertNeutral('this is an error'));
  assert.throws(() => assertNeutral('you are Blocked'));
});
