import type { ToolOutcome } from '../../workflows/tools/tool-outcome';

/**
 * The most of a tool's result keel records. The built-ins cap their own output, but a user's tool
 * or an MCP server can return megabytes, and an activity result over Temporal's 2 MB payload limit
 * cannot be recorded: the attempt would fail and be retried for nothing. Text keeps its head and
 * tail (as run_command does); images over their share are described instead of sent.
 */
export const MAX_RESULT_TEXT_CHARS = 200_000;
export const MAX_RESULT_IMAGE_CHARS = 1_000_000;

export function capOutcome(outcome: ToolOutcome): ToolOutcome {
  let { content } = outcome;
  const notes: string[] = [];
  if (content.length > MAX_RESULT_TEXT_CHARS) {
    const half = MAX_RESULT_TEXT_CHARS / 2;
    const omitted = content.length - MAX_RESULT_TEXT_CHARS;
    content = `${content.slice(0, half)}\n[… ${omitted} characters omitted by keel …]\n${content.slice(-half)}`;
  }
  let images = outcome.images;
  if (images !== undefined) {
    let budget = MAX_RESULT_IMAGE_CHARS;
    const kept = images.filter((image) => (budget -= image.data.length) >= 0);
    if (kept.length < images.length)
      notes.push(
        `[${images.length - kept.length} image(s) left out by keel: over its ${MAX_RESULT_IMAGE_CHARS}-character limit for images]`,
      );
    images = kept;
  }
  // PDFs share no budget with images: read_file sends one at most, far below this cap.
  let documents = outcome.documents;
  if (documents !== undefined) {
    let budget = MAX_RESULT_IMAGE_CHARS;
    const kept = documents.filter((document) => (budget -= document.data.length) >= 0);
    if (kept.length < documents.length)
      notes.push(
        `[${documents.length - kept.length} PDF(s) left out by keel: over its ${MAX_RESULT_IMAGE_CHARS}-character limit for documents]`,
      );
    documents = kept;
  }
  if (content === outcome.content && images === outcome.images && documents === outcome.documents)
    return outcome;
  return {
    ...outcome,
    content: [content, ...notes].join('\n'),
    ...(images === undefined ? {} : { images }),
    ...(documents === undefined ? {} : { documents }),
    facts: { ...outcome.facts, truncated: true },
  };
}
