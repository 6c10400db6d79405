/**
 * A checkpoint answer that repeats an earlier reply says nothing new (issue 22): a model that
 * answers every checkpoint with one fixed boilerplate text, or with last turn's status line
 * again, passes the generous judge (reflection-response.ts) without reflecting. Such an answer
 * counts as unanswered.
 *
 * Near-identical means: the sets of words (lower-cased, punctuation around them stripped) overlap
 * by at least `similarity` (Jaccard). Words, not characters: a status line with one file name
 * changed is the same line; two real answers about the same code share words but not most of them.
 * Pure; the shapes of the latest replies live in the guard state, so they are kept short.
 */

export const DEFAULT_PARROT_SIMILARITY = 0.8;
/** Replies remembered to compare with. */
export const REMEMBERED_REPLIES = 16;
/** Words kept per reply: long enough for a status line or a checkpoint answer. */
const WORDS_PER_REPLY = 60;

/** A reply as the comparison sees it: its distinct words, space-separated. */
export function replyShape(text: string): string {
  const words = text
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((word) => word !== '');
  return [...new Set(words)].slice(0, WORDS_PER_REPLY).join(' ');
}

export function similarity(a: string, b: string): number {
  const left = new Set(a.split(' ').filter((word) => word !== ''));
  const right = new Set(b.split(' ').filter((word) => word !== ''));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared += 1;
  return shared / (left.size + right.size - shared);
}

/** Replies as the guard state keeps them: the shape, and the model turn it was given in. */
export interface RememberedReply {
  shape: string;
  atTurn: number;
}

/** Word overlap from which two replies are the same answer, wherever the task stands. */
export const SAME_ANSWER_SIMILARITY = 0.95;
/** Earlier replies a reply must repeat to be a fixed text rather than a true answer given again. */
export const FIXED_TEXT_REPEATS = 2;

/**
 * The earlier reply this one repeats, if any (issue 44: a repeated answer is unanswered only when
 * nothing else moved since the earlier one):
 * - a near-identical one (`similarity`) to a reply given since anything last moved
 *   (`changedAtTurn`: the last turn that brought new information or a new lasting state) —
 *   saying the same thing while nothing moves. A careful reader who gives the same true answer at
 *   two checkpoints, with new files read in between, has answered both;
 * - a narration template: near-identical to FIXED_TEXT_REPEATS or more replies given since the
 *   workspace last changed (`lastingChangeAtTurn`) — "found more context in vendor/lib-4.js; next
 *   I will keep reading" turn after turn while wandering through files that change nothing;
 * - a fixed text: the same answer (SAME_ANSWER_SIMILARITY) as FIXED_TEXT_REPEATS or more earlier
 *   replies, moved or not — one boilerplate text given at every turn is no answer, however much
 *   work goes on around it.
 * An empty reply repeats nothing (it is unanswered anyway).
 */
export function repeatsEarlierReply(
  reply: string,
  earlier: readonly RememberedReply[],
  options: { similarity?: number; changedAtTurn: number; lastingChangeAtTurn?: number },
): string | undefined {
  const shape = replyShape(reply);
  if (shape === '') return undefined;
  const near = options.similarity ?? DEFAULT_PARROT_SIMILARITY;
  const same = Math.max(near, SAME_ANSWER_SIMILARITY);
  const compared = earlier
    .filter((other) => other.shape !== '')
    .map((other) => ({ other, overlap: similarity(shape, other.shape) }));
  const unmoved = compared.find(
    ({ other, overlap }) => other.atTurn > options.changedAtTurn && overlap >= near,
  );
  if (unmoved) return unmoved.other.shape;
  const lastingChange = options.lastingChangeAtTurn;
  const narrated =
    lastingChange === undefined
      ? []
      : compared.filter(({ other, overlap }) => other.atTurn > lastingChange && overlap >= near);
  if (narrated.length >= FIXED_TEXT_REPEATS) return narrated[0]?.other.shape;
  const fixed = compared.filter(({ overlap }) => overlap >= same);
  return fixed.length >= FIXED_TEXT_REPEATS ? fixed[0]?.other.shape : undefined;
}

export function rememberReply(
  earlier: readonly RememberedReply[],
  reply: string,
  atTurn: number,
): RememberedReply[] {
  const shape = replyShape(reply);
  if (shape === '') return [...earlier];
  return [...earlier, { shape, atTurn }].slice(-REMEMBERED_REPLIES);
}
