import { z } from 'zod';
import { stripCodeFences, stripThinkBlocks } from '../common/structured-output';

/**
 * Cross-run task reflection (seed 002): after a goal's output is accepted, a model call proposes
 * better instructions for the next run of the same task. The notes are stored outside the goal
 * and shown *before* the task on later runs; the task's own description and expected output are
 * never changed and always follow the notes, so the static definition stays the contract.
 *
 * Pure: the workflow and the reflection activity both use it.
 */

export const TaskReflectionSchema = z.lazy(() =>
  z.object({
    refinedDescription: z.string(),
    refinedExpectedOutput: z.string(),
    observations: z.array(z.string()),
    suggestions: z.array(z.string()),
    /** ISO 8601 time of the latest reflection (from the caller's clock). */
    reflectedAt: z.iso.datetime({ offset: true }),
    /** How many times this task has been reflected on, fallbacks included. */
    runCount: z.number().int().min(1),
  }),
);
export type TaskReflection = z.infer<typeof TaskReflectionSchema>;

/** What the reflection model's answer says, before it becomes a stored reflection. */
export interface ParsedReflection {
  refinedDescription: string;
  refinedExpectedOutput: string;
  observations: string[];
  suggestions: string[];
}

export const FIRST_EXECUTION_NOTE = 'None — this is the first execution.';
export const REFLECTION_FAILED_PREFIX = 'Reflection failed:';

/** 002's default reflection prompt. */
export function reflectionPrompt(options: {
  description: string;
  expectedOutput: string;
  output: string;
  prior?: TaskReflection;
}): string {
  const priorNotes = options.prior?.refinedDescription.trim() || FIRST_EXECUTION_NOTE;
  return `You are a task prompt optimization specialist. Your role is to analyze how a task
definition performed and propose improvements to its instructions for future executions.

## Original Task Definition

### Description
${options.description}

### Expected Output Specification
${options.expectedOutput}

## What Was Produced
${options.output}

## Prior Improvement Notes
${priorNotes}

## Analysis Instructions

Using the task definition and execution output above:

1. Evaluate whether the task instructions were clear, concise, and effective.
2. Identify where the instructions helped or hindered the agent's execution flow.
3. Propose targeted improvements focused on:
   - Improving clarity and conciseness
   - Consolidating overlapping or redundant guidance
   - Identifying outdated or low-impact instructions that add noise
   - Tightening the expected output format if output deviated from intent

Respond in the following structured format:

REFINED_DESCRIPTION:
[An improved version of the task description]

REFINED_EXPECTED_OUTPUT:
[An improved version of the expected output specification]

OBSERVATIONS:
- [Key observation]

SUGGESTIONS:
- [Specific actionable improvement]
`;
}

const Section = {
  RefinedDescription: 'REFINED_DESCRIPTION',
  RefinedExpectedOutput: 'REFINED_EXPECTED_OUTPUT',
  Observations: 'OBSERVATIONS',
  Suggestions: 'SUGGESTIONS',
} as const;
type Section = (typeof Section)[keyof typeof Section];

/**
 * A section marker on its own line, tolerating the markdown models like to add:
 * `REFINED_DESCRIPTION:`, `**OBSERVATIONS:**`, `## SUGGESTIONS`, text after the colon.
 * Upper case and the underscore are required so ordinary prose ("Observations: …") is not a marker.
 */
const MARKER =
  /^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(REFINED_DESCRIPTION|REFINED_EXPECTED_OUTPUT|OBSERVATIONS|SUGGESTIONS)\s*(?:\*\*|__)?\s*(?::\s*(?:\*\*|__)?\s*(.*))?$/;

const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+(.*)$/;

/**
 * Reads the four sections of a reflection answer. A blank or missing text section falls back to
 * the original text (a refinement must never erase the instructions); missing list sections are
 * empty. An answer with no markers at all yields the originals and empty lists.
 */
export function parseReflectionSections(options: {
  raw: string;
  description: string;
  expectedOutput: string;
}): ParsedReflection {
  const lines: Record<Section, string[]> = {
    [Section.RefinedDescription]: [],
    [Section.RefinedExpectedOutput]: [],
    [Section.Observations]: [],
    [Section.Suggestions]: [],
  };
  let current: Section | undefined;
  for (const line of stripCodeFences(stripThinkBlocks(options.raw)).split(/\r?\n/)) {
    const marker = MARKER.exec(line);
    if (marker) {
      current = marker[1] as Section;
      if (marker[2]) lines[current].push(marker[2]);
    } else if (current) {
      lines[current].push(line);
    }
  }
  return {
    refinedDescription: sectionText(lines[Section.RefinedDescription]) || options.description,
    refinedExpectedOutput: sectionText(lines[Section.RefinedExpectedOutput]) || options.expectedOutput,
    observations: sectionItems(lines[Section.Observations]),
    suggestions: sectionItems(lines[Section.Suggestions]),
  };
}

function sectionText(lines: readonly string[]): string {
  return lines.join('\n').trim();
}

/**
 * List items. When the section uses bullets, an unbulleted line continues the item above it
 * (a wrapped bullet); when it uses none, every non-blank line is an item.
 */
function sectionItems(lines: readonly string[]): string[] {
  const nonBlank = lines.map((line) => line.trim()).filter((line) => line.length > 0);
  const hasBullets = nonBlank.some((line) => BULLET.test(line));
  const items: string[] = [];
  for (const line of nonBlank) {
    const bullet = BULLET.exec(line);
    if (bullet) items.push(bullet[1]?.trim() ?? '');
    else if (hasBullets && items.length > 0) items[items.length - 1] += ` ${line}`;
    else items.push(line);
  }
  return items.filter((item) => item.length > 0);
}

/** The reflection to store after a successful reflection call. */
/**
 * True when a parsed reflection says nothing: no section was found (prose the parser cannot
 * split) or every field came back blank. Storing it would replace what earlier runs learned with
 * the original description and empty lists, so it counts as a failed reflection instead.
 */
export function isEmptyReflection(
  parsed: ParsedReflection,
  original: { description: string; expectedOutput: string },
): boolean {
  return (
    parsed.observations.length === 0 &&
    parsed.suggestions.length === 0 &&
    parsed.refinedDescription.trim() === original.description.trim() &&
    parsed.refinedExpectedOutput.trim() === original.expectedOutput.trim()
  );
}

export function nextReflection(options: {
  parsed: ParsedReflection;
  prior?: TaskReflection;
  reflectedAt: string;
}): TaskReflection {
  return {
    refinedDescription: options.parsed.refinedDescription,
    refinedExpectedOutput: options.parsed.refinedExpectedOutput,
    observations: [...options.parsed.observations],
    suggestions: [...options.parsed.suggestions],
    reflectedAt: options.reflectedAt,
    runCount: (options.prior?.runCount ?? 0) + 1,
  };
}

/**
 * The reflection to store when the reflection call failed: a failure never fails the goal, and
 * what earlier runs learned is kept. The error becomes the first observation; an older failure
 * observation is replaced rather than accumulated.
 */
export function fallbackReflection(options: {
  description: string;
  expectedOutput: string;
  prior?: TaskReflection;
  error: string;
  reflectedAt: string;
}): TaskReflection {
  const { prior } = options;
  const error = options.error.replace(/\s+/g, ' ').trim() || 'unknown error';
  const earlier = (prior?.observations ?? []).filter(
    (observation) => !observation.startsWith(REFLECTION_FAILED_PREFIX),
  );
  return {
    refinedDescription: prior?.refinedDescription ?? options.description,
    refinedExpectedOutput: prior?.refinedExpectedOutput ?? options.expectedOutput,
    observations: [`${REFLECTION_FAILED_PREFIX} ${error}`, ...earlier],
    suggestions: [...(prior?.suggestions ?? [])],
    reflectedAt: options.reflectedAt,
    runCount: (prior?.runCount ?? 0) + 1,
  };
}

/**
 * 002 §5's "Task Improvement Notes" block for the prompt of a later run, ending with `---`.
 * Empty sections are omitted; with nothing to say at all it is the empty string.
 */
export function improvementNotes(reflection: TaskReflection | undefined): string {
  if (!reflection) return '';
  const sections: string[] = [];
  const refinedDescription = reflection.refinedDescription.trim();
  const refinedExpectedOutput = reflection.refinedExpectedOutput.trim();
  if (refinedDescription) sections.push(`### Refined Instructions\n${refinedDescription}`);
  if (refinedExpectedOutput) sections.push(`### Output Guidance\n${refinedExpectedOutput}`);
  const observations = bulletList(reflection.observations);
  if (observations) sections.push(`### Observations\n${observations}`);
  const suggestions = bulletList(reflection.suggestions);
  if (suggestions) sections.push(`### Suggestions\n${suggestions}`);
  if (sections.length === 0) return '';
  return [
    '## Task Improvement Notes (from prior executions)',
    'The following refinements were identified by analyzing previous runs of this task.\n' +
      'Apply them to improve your approach while fulfilling the original task requirements below.',
    ...sections,
    '---',
  ].join('\n\n');
}

function bulletList(items: readonly string[]): string {
  return items
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => `- ${item}`)
    .join('\n');
}

/**
 * The task as the agent sees it: improvement notes first (when there are any), then the original
 * description and expected output, always unchanged.
 */
export function taskPromptWithNotes(options: {
  description: string;
  expectedOutput: string;
  reflection?: TaskReflection;
}): string {
  const parts: string[] = [];
  const notes = improvementNotes(options.reflection);
  if (notes) parts.push(notes);
  parts.push(`## Task\n\n${options.description}`);
  if (options.expectedOutput.trim()) parts.push(`## Expected Output\n\n${options.expectedOutput}`);
  return parts.join('\n\n');
}
