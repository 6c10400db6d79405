import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIRST_EXECUTION_NOTE,
  TaskReflectionSchema,
  fallbackReflection,
  improvementNotes,
  nextReflection,
  parseReflectionSections,
  reflectionPrompt,
  taskPromptWithNotes,
  type TaskReflection,
} from '../../src/workflows/reflection/task-reflection';

const description = 'Research AI trends and write a report';
const expectedOutput = 'A structured markdown report with three sections';
const reflectedAt = '2025-03-04T05:06:07.000Z';

const prior: TaskReflection = {
  refinedDescription: 'Research the three biggest AI trends of the year',
  refinedExpectedOutput: 'Markdown with exactly three H2 sections',
  observations: ['The report lacked sources'],
  suggestions: ['Cite a source per trend'],
  reflectedAt: '2025-01-01T00:00:00.000Z',
  runCount: 1,
};

test('the prompt carries 002 sections in order, with the first-execution note', () => {
  const prompt = reflectionPrompt({ description, expectedOutput, output: 'THE OUTPUT' });
  const headings = [
    'You are a task prompt optimization specialist.',
    '## Original Task Definition',
    `### Description\n${description}`,
    `### Expected Output Specification\n${expectedOutput}`,
    '## What Was Produced\nTHE OUTPUT',
    `## Prior Improvement Notes\n${FIRST_EXECUTION_NOTE}`,
    '## Analysis Instructions',
    'Respond in the following structured format:',
    'REFINED_DESCRIPTION:',
    'REFINED_EXPECTED_OUTPUT:',
    'OBSERVATIONS:',
    'SUGGESTIONS:',
  ];
  let position = -1;
  for (const heading of headings) {
    const found = prompt.indexOf(heading, position + 1);
    assert.ok(found > position, `missing or out of order: ${heading}`);
    position = found;
  }
  assert.equal(FIRST_EXECUTION_NOTE, 'None — this is the first execution.');
});

test('the prompt shows the prior refined description when there is one', () => {
  const prompt = reflectionPrompt({ description, expectedOutput, output: 'x', prior });
  assert.ok(prompt.includes(`## Prior Improvement Notes\n${prior.refinedDescription}\n`));
  assert.ok(!prompt.includes(FIRST_EXECUTION_NOTE));
});

test('all four sections are parsed, with bullets of every style', () => {
  const raw = [
    'REFINED_DESCRIPTION:',
    'Research the top three AI trends.',
    'Focus on 2025.',
    '',
    'REFINED_EXPECTED_OUTPUT:',
    'Three H2 sections, one per trend.',
    '',
    'OBSERVATIONS:',
    '- The output was long',
    '* Sections were uneven',
    '',
    'SUGGESTIONS:',
    '1. Limit each section to 200 words',
    '2) Add a summary',
    '   that lists the trends',
  ].join('\n');
  assert.deepEqual(parseReflectionSections({ raw, description, expectedOutput }), {
    refinedDescription: 'Research the top three AI trends.\nFocus on 2025.',
    refinedExpectedOutput: 'Three H2 sections, one per trend.',
    observations: ['The output was long', 'Sections were uneven'],
    suggestions: ['Limit each section to 200 words', 'Add a summary that lists the trends'],
  });
});

test('markdown-decorated markers and text on the marker line are understood', () => {
  const raw = [
    '<think>let me look</think>**REFINED_DESCRIPTION:** Same line text',
    '## REFINED_EXPECTED_OUTPUT',
    'Guidance',
    '**OBSERVATIONS**:',
    '- one',
    'SUGGESTIONS: just this',
  ].join('\n');
  assert.deepEqual(parseReflectionSections({ raw, description, expectedOutput }), {
    refinedDescription: 'Same line text',
    refinedExpectedOutput: 'Guidance',
    observations: ['one'],
    suggestions: ['just this'],
  });
});

test('a blank section falls back to the original text', () => {
  const raw = 'REFINED_DESCRIPTION:\n\nREFINED_EXPECTED_OUTPUT:\nBetter output\nOBSERVATIONS:\n- x';
  const parsed = parseReflectionSections({ raw, description, expectedOutput });
  assert.equal(parsed.refinedDescription, description);
  assert.equal(parsed.refinedExpectedOutput, 'Better output');
  assert.deepEqual(parsed.suggestions, []);
});

test('no markers at all: the originals and empty lists', () => {
  const raw = 'I think the task went fine. Observations: none really.';
  assert.deepEqual(parseReflectionSections({ raw, description, expectedOutput }), {
    refinedDescription: description,
    refinedExpectedOutput: expectedOutput,
    observations: [],
    suggestions: [],
  });
});

test('unbulleted list lines are one item each', () => {
  const raw = 'OBSERVATIONS:\nFirst thing\nSecond thing\n';
  const parsed = parseReflectionSections({ raw, description, expectedOutput });
  assert.deepEqual(parsed.observations, ['First thing', 'Second thing']);
});

test('runCount starts at 1 and increments from the prior reflection', () => {
  const parsed = parseReflectionSections({ raw: 'OBSERVATIONS:\n- a', description, expectedOutput });
  const first = nextReflection({ parsed, reflectedAt });
  assert.equal(first.runCount, 1);
  assert.equal(first.reflectedAt, reflectedAt);
  const second = nextReflection({ parsed, prior: { ...prior, runCount: 4 }, reflectedAt });
  assert.equal(second.runCount, 5);
  assert.deepEqual(second.observations, ['a']);
  assert.doesNotThrow(() => TaskReflectionSchema.parse(second));
});

test('a fallback reflection records the error and keeps what was learned', () => {
  const fallback = fallbackReflection({
    description,
    expectedOutput,
    prior,
    error: 'model\ntimed out',
    reflectedAt,
  });
  assert.deepEqual(fallback, {
    refinedDescription: prior.refinedDescription,
    refinedExpectedOutput: prior.refinedExpectedOutput,
    observations: ['Reflection failed: model timed out', 'The report lacked sources'],
    suggestions: ['Cite a source per trend'],
    reflectedAt,
    runCount: 2,
  });
  // A second failure replaces the first failure note instead of piling up.
  const again = fallbackReflection({
    description,
    expectedOutput,
    prior: fallback,
    error: 'boom',
    reflectedAt,
  });
  assert.deepEqual(again.observations, ['Reflection failed: boom', 'The report lacked sources']);
  assert.equal(again.runCount, 3);

  const firstRun = fallbackReflection({ description, expectedOutput, error: 'down', reflectedAt });
  assert.equal(firstRun.refinedDescription, description);
  assert.equal(firstRun.refinedExpectedOutput, expectedOutput);
  assert.equal(firstRun.runCount, 1);
  assert.doesNotThrow(() => TaskReflectionSchema.parse(firstRun));
});

test('improvement notes have the 002 block with every section, ending with ---', () => {
  const notes = improvementNotes(prior);
  assert.equal(
    notes,
    [
      '## Task Improvement Notes (from prior executions)',
      '',
      'The following refinements were identified by analyzing previous runs of this task.',
      'Apply them to improve your approach while fulfilling the original task requirements below.',
      '',
      '### Refined Instructions',
      prior.refinedDescription,
      '',
      '### Output Guidance',
      prior.refinedExpectedOutput,
      '',
      '### Observations',
      '- The report lacked sources',
      '',
      '### Suggestions',
      '- Cite a source per trend',
      '',
      '---',
    ].join('\n'),
  );
});

test('improvement notes omit empty sections', () => {
  const notes = improvementNotes({
    ...prior,
    refinedExpectedOutput: '  ',
    observations: [],
    suggestions: [' '],
  });
  assert.ok(notes.includes('### Refined Instructions'));
  assert.ok(!notes.includes('### Output Guidance'));
  assert.ok(!notes.includes('### Observations'));
  assert.ok(!notes.includes('### Suggestions'));
  assert.ok(notes.endsWith('---'));
  assert.equal(improvementNotes(undefined), '');
  assert.equal(
    improvementNotes({
      ...prior,
      refinedDescription: '',
      refinedExpectedOutput: '',
      observations: [],
      suggestions: [],
    }),
    '',
  );
});

test('the task prompt puts the notes first and keeps the original text unchanged after them', () => {
  const prompt = taskPromptWithNotes({ description, expectedOutput, reflection: prior });
  const notesEnd = prompt.indexOf('\n---\n');
  assert.ok(prompt.startsWith('## Task Improvement Notes (from prior executions)'));
  assert.ok(notesEnd > 0);
  const afterNotes = prompt.slice(notesEnd);
  assert.ok(afterNotes.includes(`## Task\n\n${description}`));
  assert.ok(afterNotes.includes(`## Expected Output\n\n${expectedOutput}`));

  const withoutNotes = taskPromptWithNotes({ description, expectedOutput });
  assert.equal(withoutNotes, `## Task\n\n${description}\n\n## Expected Output\n\n${expectedOutput}`);
  assert.ok(prompt.endsWith(withoutNotes));
});
