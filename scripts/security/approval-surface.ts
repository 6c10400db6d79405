/**
 * What an approver would be shown for a call: the prepared call's summary is the label (keel
 * pending, the Web UI), and the prepared input is what a details view can show in full. Reported,
 * not counted as a hole: a short label is fine as long as the whole call is available beside it.
 */
import { hasInvisibleCharacters } from './printable';

export interface ApprovalSurface {
  readonly label: string;
  /** The prepared call keeps every field of the input the model sent, unchanged. */
  readonly fullInputKept: boolean;
  /** The label shows every text field of the input whole (whitespace runs counted as one space). */
  readonly labelShowsWholeInput: boolean;
  /** Line breaks, control characters, bidi overrides or zero-width characters in the label. */
  readonly labelHasInvisibleCharacters: boolean;
  /** For deceptive-label cases: whether the label shows the dangerous part. */
  readonly hiddenPartShown?: boolean;
}

export function inspectApprovalSurface(options: {
  summary: string;
  preparedInput: unknown;
  originalInput: Readonly<Record<string, unknown>>;
  hiddenPart?: string;
}): ApprovalSurface {
  const prepared = (
    typeof options.preparedInput === 'object' && options.preparedInput !== null ? options.preparedInput : {}
  ) as Record<string, unknown>;
  const fullInputKept = Object.entries(options.originalInput).every(
    ([field, value]) => JSON.stringify(prepared[field]) === JSON.stringify(value),
  );
  const texts = Object.values(options.originalInput).filter(
    (value): value is string => typeof value === 'string',
  );
  return {
    label: options.summary,
    fullInputKept,
    labelShowsWholeInput: texts.every((text) => oneLine(options.summary).includes(oneLine(text))),
    labelHasInvisibleCharacters: hasInvisibleCharacters(options.summary),
    ...(options.hiddenPart === undefined
      ? {}
      : { hiddenPartShown: options.summary.includes(options.hiddenPart) }),
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
