/**
 * Opt-in follow-up to cadence reflection: did the model answer the checkpoint, and how does the
 * goal explore? The seed found the checkpoint is a soft constraint (one model answered, another
 * ignored every wording), and that its third question pushed a weak model into endless reading
 * (about 30 read-only calls per mutating one). These numbers make both effects visible per goal.
 */

/** Which of the checkpoint's three questions a reply answers. */
export interface ReflectionAnswers {
  planMatchesTask: boolean;
  provenOrRuledOut: boolean;
  nextOutput: boolean;
}

export interface ReflectionJudgement {
  /** True when all three questions are answered. */
  addressed: boolean;
  answered: ReflectionAnswers;
}

type Question = keyof ReflectionAnswers;
const questionsInOrder: readonly Question[] = ['planMatchesTask', 'provenOrRuledOut', 'nextOutput'];

// Keywords per question. English plus the seed's own language, because checkpoints quote the task
// and models often answer in the task's language. Deliberately generic: no tool or ecosystem terms.
const keywords: Record<Question, RegExp> = {
  planMatchesTask:
    /\b(plan|plans|task|goal|goals|approach|on track|still (?:matches|fits|holds|valid))\b|计划|任务|目标|方向/i,
  provenOrRuledOut:
    /\b(proved|proven|proves|prove|ruled out|rules out|rule out|learned|learnt|found|confirmed|confirms|showed|shown|established|eliminated|excluded|verified|discovered|now know)\b|证明|排除|确认|发现|得知/i,
  nextOutput: /\b(next|output|will|going to|then i)\b|下一步|接下来|输出|产出/i,
};

/**
 * Numbered answers: a line starting with 1, 2 or 3 (optionally inside markdown bullets, bold,
 * headings or parentheses) followed by ".", ")", ":" or "、" and some text on the same line.
 */
const numberedAnswer = /^[\s>*#-]*\(?\**([123])\**[.):、]\**[ \t]*\S/gm;

/**
 * A deterministic, language-neutral heuristic: a question counts as answered when the reply has a
 * numbered answer for it, or mentions a keyword of that question. It errs on the generous side, as
 * under hard enforcement a false "not addressed" would hold back the model's tool calls.
 */
export function judgeReflectionResponse(replyText: string): ReflectionJudgement {
  const numbered = new Set<string>();
  for (const match of replyText.matchAll(numberedAnswer)) if (match[1] !== undefined) numbered.add(match[1]);
  const answered = {} as ReflectionAnswers;
  questionsInOrder.forEach((question, index) => {
    answered[question] = numbered.has(String(index + 1)) || keywords[question].test(replyText);
  });
  return { addressed: questionsInOrder.every((question) => answered[question]), answered };
}

/**
 * The tool result for a call held back under hard enforcement, until a reply addresses the
 * checkpoint. A pause with a clear way on, not a failure: answering releases the next calls.
 */
export function unexecutedToolCallNote(): string {
  return [
    '[Not executed yet] A scheduled checkpoint is waiting for your answer, so this call was not run.',
    'Answer the checkpoint in plain text first:',
    '1. Does the current plan still match the task?',
    '2. What did the recent steps prove or rule out?',
    '3. What is the next concrete output?',
    'Then make this call again if it is still the right next step.',
  ].join('\n');
}

export interface ReflectionResponseRateOptions {
  checkpoints: number;
  addressed: number;
}

/**
 * Share of checkpoints whose next reply addressed them, in [0, 1]. With no checkpoints it is
 * undefined, not 0: "no data" must not read as "ignored every checkpoint" (and undefined simply
 * drops out of JSON stats). Counts out of range are clamped rather than thrown on, since this runs
 * in workflow code where a throw would fail the workflow task.
 */
export function reflectionResponseRate({
  checkpoints,
  addressed,
}: ReflectionResponseRateOptions): number | undefined {
  if (checkpoints <= 0) return undefined;
  return Math.min(1, Math.max(0, addressed / checkpoints));
}

export interface ExplorationRatioOptions {
  readOnlyCalls: number;
  /** Mutating and irreversible calls together: everything that changes the world. */
  mutatingCalls: number;
}

export interface ExplorationRatio {
  /** readOnly / mutating; null when there was no mutating call (JSON has no Infinity). */
  ratio: number | null;
  readOnly: number;
  mutating: number;
}

/**
 * Read-only to mutating calls for a goal (the seed's weak model ran at about 30:1 under
 * checkpoints). With no mutating call the ratio is null and the raw counts tell the story.
 */
export function explorationRatio({
  readOnlyCalls,
  mutatingCalls,
}: ExplorationRatioOptions): ExplorationRatio {
  return {
    ratio: mutatingCalls > 0 ? readOnlyCalls / mutatingCalls : null,
    readOnly: readOnlyCalls,
    mutating: mutatingCalls,
  };
}
