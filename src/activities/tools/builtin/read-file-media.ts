import { suggestCall } from '../../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { apiRefusal, recogniseMedia, type MediaFile } from '../media-files';
import { failure, quoteShell, success } from '../tool-outcomes';

/**
 * The most bytes of an image or PDF read_file attaches. Far below the API's own limits (5 MB an
 * image, 32 MB a request): the attachment is carried base64 (4/3 its size) in the activity result,
 * in workflow history and in every later request until the context budget elides it, and the
 * budget counts it by that length (context-budget.ts measures the transcript's JSON). 200,000
 * bytes are 266,668 characters, which fit the default budget's cut (0.75 × 400,000) beside the
 * task, so the model sees the file before anything has to give way.
 */
export const READ_FILE_MAX_ATTACHMENT_BYTES = 200_000;

/** The first bytes are enough to tell the five formats apart. */
export const MEDIA_HEAD_BYTES = 16;

const LABELS: Record<MediaFile['mediaType'], string> = {
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'application/pdf': 'PDF',
};

/** The kind of media the file's head shows, or undefined for anything else (text, binaries). */
export function mediaKind(head: Uint8Array): MediaFile | undefined {
  return recogniseMedia(head.subarray(0, MEDIA_HEAD_BYTES));
}

/**
 * An image or PDF as the model sees it: attached whole, with a line saying what it is; or, when
 * keel or the API would not take it, a failed result that says why and what to do instead (the
 * goal goes on: the model reads the refusal like any other tool result).
 */
export function mediaOutcome(options: {
  relative: string;
  /** The whole file, when its size is within READ_FILE_MAX_ATTACHMENT_BYTES. */
  bytes: Uint8Array | undefined;
  size: number;
  kind: MediaFile;
  ranged: boolean;
}): ToolOutcome {
  const { relative, size } = options;
  const label = LABELS[options.kind.mediaType];
  if (options.bytes === undefined || size > READ_FILE_MAX_ATTACHMENT_BYTES) {
    return failure({
      content: `${relative} is a ${label} of ${size} bytes: too large to attach (read_file attaches images and PDFs up to ${READ_FILE_MAX_ATTACHMENT_BYTES} bytes, as they stay in the goal's context and history).`,
      candidates: candidates(relative, options.kind),
      facts: { bytes: size },
    });
  }
  const media = recogniseMedia(options.bytes) ?? options.kind;
  const refusal = apiRefusal(media, size);
  if (refusal !== undefined) {
    return failure({
      content: `${relative} is a ${label} the model API does not take: ${refusal}`,
      candidates: candidates(relative, media),
      facts: { bytes: size },
    });
  }
  const data = Buffer.from(options.bytes).toString('base64');
  const what =
    media.kind === 'image'
      ? `${label}${media.width === undefined ? '' : `, ${media.width}×${media.height} px`}`
      : `${label}${media.pages === undefined ? '' : `, ${media.pages} page${media.pages === 1 ? '' : 's'}`}`;
  const note = options.ranged ? ' (offset and limit apply to text files; this is the whole file)' : '';
  const content = `${relative}: ${what}, ${size} bytes, attached below${note}.`;
  const facts = { bytes: size, truncated: false, emptyOutput: false };
  return media.kind === 'image'
    ? { ...success({ content, facts }), images: [{ mediaType: media.mediaType, data }] }
    : { ...success({ content, facts }), documents: [{ mediaType: media.mediaType, data }] };
}

function candidates(relative: string, media: MediaFile): string[] {
  const quoted = quoteShell(relative);
  return media.kind === 'pdf'
    ? [
        `${suggestCall('run_command', { command: `pdftotext -layout ${quoted} - | head -n 200` })} — read its text instead`,
        `${suggestCall('run_command', { command: `pdfinfo ${quoted}` })} — see its pages and size`,
      ]
    : [
        `${suggestCall('run_command', { command: `file ${quoted}` })} — see its format and dimensions`,
        `${suggestCall('run_command', { command: `convert ${quoted} -resize 1568x1568 smaller.png` })} — make a smaller copy (ImageMagick), then read_file smaller.png`,
      ];
}
