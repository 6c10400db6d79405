/**
 * Images and PDFs the model can be shown, recognised by their first bytes (a file's name can
 * lie), with the sizes the Messages API checks. Pure byte parsing with no Node built-ins, so the
 * scripted Messages server checks blocks with the same code read_file uses to make them.
 *
 * The API's limits:
 * - images: JPEG, PNG, GIF or WebP, base64; "If you submit an image larger than 8000x8000 px, it
 *   will be rejected" (docs.claude.com/en/docs/build-with-claude/vision, "Basics and Limits"),
 *   and at most 5 MB each through the API (the same page's FAQ; the API answers
 *   "image exceeds 5 MB maximum: N bytes > 5242880 bytes").
 * - PDFs: "Maximum request size 32MB, Maximum pages per request 100", standard PDFs without
 *   passwords or encryption (docs.claude.com/en/docs/build-with-claude/pdf-support).
 */
export const API_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const API_IMAGE_MAX_SIDE = 8000;
export const API_PDF_MAX_PAGES = 100;
export const API_REQUEST_MAX_BYTES = 32 * 1024 * 1024;

export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export type MediaFile =
  | { kind: 'image'; mediaType: ImageMediaType; width?: number; height?: number }
  /** pages: counted from the page objects; undefined when they are compressed out of sight. */
  | { kind: 'pdf'; mediaType: 'application/pdf'; pages?: number; encrypted: boolean };

/** What the bytes are, or undefined for anything but the five formats the model takes. */
export function recogniseMedia(bytes: Uint8Array): MediaFile | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    // IHDR comes first: width and height as big-endian 32-bit at 16 and 20.
    return { kind: 'image', mediaType: 'image/png', ...size(uint32(bytes, 16), uint32(bytes, 20)) };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff]))
    return { kind: 'image', mediaType: 'image/jpeg', ...jpegSize(bytes) };
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') {
    return { kind: 'image', mediaType: 'image/gif', ...size(uint16le(bytes, 6), uint16le(bytes, 8)) };
  }
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') {
    return { kind: 'image', mediaType: 'image/webp', ...webpSize(bytes) };
  }
  if (ascii(bytes, 0, 5) === '%PDF-')
    return { kind: 'pdf', mediaType: 'application/pdf', ...pdfFacts(bytes) };
  return undefined;
}

/** Bytes of base64 data once decoded, without decoding it. */
export function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/** Why the API would refuse this file, in its own terms, or undefined when it takes it. */
export function apiRefusal(media: MediaFile, bytes: number): string | undefined {
  if (media.kind === 'image') {
    if (bytes > API_IMAGE_MAX_BYTES)
      return `image exceeds 5 MB maximum: ${bytes} bytes > ${API_IMAGE_MAX_BYTES} bytes`;
    if ((media.width ?? 0) > API_IMAGE_MAX_SIDE || (media.height ?? 0) > API_IMAGE_MAX_SIDE)
      return `image dimensions exceed max allowed size: ${API_IMAGE_MAX_SIDE} pixels`;
    return undefined;
  }
  if (media.encrypted) return 'The PDF specified is encrypted or password-protected.';
  if (media.pages !== undefined && media.pages > API_PDF_MAX_PAGES)
    return `A maximum of ${API_PDF_MAX_PAGES} PDF pages may be provided.`;
  if (bytes > API_REQUEST_MAX_BYTES) return 'request exceeds the maximum size of 32 MB';
  return undefined;
}

function size(width: number | undefined, height: number | undefined): { width?: number; height?: number } {
  return width === undefined || height === undefined ? {} : { width, height };
}

// A JPEG's size is in its first start-of-frame segment (SOF0..SOF15 but DHT, JPG and DAC).
function jpegSize(bytes: Uint8Array): { width?: number; height?: number } {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return {};
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    const length = uint16(bytes, at + 2) ?? 0;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return size(uint16(bytes, at + 7), uint16(bytes, at + 5));
    if (length < 2) return {};
    at += 2 + length;
  }
  return {};
}

function webpSize(bytes: Uint8Array): { width?: number; height?: number } {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8X') return size(uint24le(bytes, 24) + 1, uint24le(bytes, 27) + 1);
  if (chunk === 'VP8L') {
    const b = (index: number): number => bytes[21 + index] ?? 0;
    const width = 1 + (((b(1) & 0x3f) << 8) | b(0));
    const height = 1 + (((b(3) & 0x0f) << 10) | (b(2) << 2) | ((b(1) & 0xc0) >> 6));
    return size(width, height);
  }
  if (chunk === 'VP8 ') {
    const width = uint16le(bytes, 26);
    const height = uint16le(bytes, 28);
    return size(
      width === undefined ? undefined : width & 0x3fff,
      height === undefined ? undefined : height & 0x3fff,
    );
  }
  return {};
}

// Page objects ("/Type /Page", not "/Pages") in the file's plain text; PDFs that keep their
// objects in compressed streams show none, and then the count is unknown rather than zero.
function pdfFacts(bytes: Uint8Array): { pages?: number; encrypted: boolean } {
  const text = latin1(bytes);
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  return { ...(pages > 0 ? { pages } : {}), encrypted: /\/Encrypt\s/.test(text) };
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 8192)
    text += String.fromCharCode(...bytes.subarray(at, Math.min(bytes.length, at + 8192)));
  return text;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return bytes.length < at + length ? '' : String.fromCharCode(...bytes.subarray(at, at + length));
}

function uint16(bytes: Uint8Array, at: number): number | undefined {
  return at + 2 > bytes.length ? undefined : ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
}

function uint16le(bytes: Uint8Array, at: number): number | undefined {
  return at + 2 > bytes.length ? undefined : ((bytes[at + 1] ?? 0) << 8) | (bytes[at] ?? 0);
}

function uint24le(bytes: Uint8Array, at: number): number {
  return ((bytes[at + 2] ?? 0) << 16) | ((bytes[at + 1] ?? 0) << 8) | (bytes[at] ?? 0);
}

function uint32(bytes: Uint8Array, at: number): number | undefined {
  if (at + 4 > bytes.length) return undefined;
  return (
    (bytes[at] ?? 0) * 0x1000000 +
    (((bytes[at + 1] ?? 0) << 16) | ((bytes[at + 2] ?? 0) << 8) | (bytes[at + 3] ?? 0))
  );
}
