import {
  API_IMAGE_MAX_BYTES,
  apiRefusal,
  decodedLength,
  recogniseMedia,
} from '../activities/tools/media-files';
import { isObject, messageBlocks, type MessagesRequestBody, type RequestBlock } from './request-body';

/**
 * Image and document blocks as the API checks them, in a user message or inside a tool_result's
 * content (docs.claude.com/en/docs/build-with-claude/vision: base64 JPEG, PNG, GIF or WebP, "If
 * you submit an image larger than 8000x8000 px, it will be rejected", at most 5 MB an image;
 * docs.claude.com/en/docs/build-with-claude/pdf-support: application/pdf, at most 100 pages, no
 * encryption; docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use: a tool_result's
 * content is text, image or document blocks). The data is decoded and looked at, as the API does:
 * a media type that does not match the bytes is refused.
 */
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const TOOL_RESULT_BLOCK_TYPES = ['text', 'image', 'document', 'search_result'];

export function mediaRejection(body: MessagesRequestBody): string | undefined {
  for (const [index, message] of (body.messages ?? []).entries()) {
    for (const [blockIndex, block] of messageBlocks(message).entries()) {
      const path = `messages.${index}.content.${blockIndex}`;
      const own = blockRejection(block, path);
      if (own !== undefined) return own;
      if (block.type !== 'tool_result' || !Array.isArray(block.content)) continue;
      for (const [innerIndex, inner] of (block.content as unknown[]).entries()) {
        const innerPath = `${path}.content.${innerIndex}`;
        if (!isObject(inner) || !TOOL_RESULT_BLOCK_TYPES.includes(String(inner.type)))
          return `${innerPath}: Input tag '${String(isObject(inner) ? inner.type : inner)}' found using 'type' does not match any of the expected tags: ${TOOL_RESULT_BLOCK_TYPES.map((type) => `'${type}'`).join(', ')}`;
        const rejection = blockRejection(inner, innerPath);
        if (rejection !== undefined) return rejection;
      }
    }
  }
  return undefined;
}

function blockRejection(block: RequestBlock, path: string): string | undefined {
  if (block.type === 'image') return imageRejection(block, `${path}.image.source`);
  if (block.type === 'document') return documentRejection(block, `${path}.document.source`);
  return undefined;
}

function imageRejection(block: RequestBlock, path: string): string | undefined {
  const source = isObject(block.source) ? block.source : undefined;
  if (source?.type === 'url')
    return typeof source.url === 'string' ? undefined : `${path}.url.url: Field required`;
  if (source?.type !== 'base64')
    return `${path}: Input tag '${String(source?.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url'`;
  const mediaType = source.media_type;
  if (typeof mediaType !== 'string' || !IMAGE_TYPES.includes(mediaType))
    return `${path}.base64.media_type: Input should be ${IMAGE_TYPES.map((type) => `'${type}'`).join(', ')}`;
  const bytes = decoded(source.data);
  if (bytes === undefined) return `${path}.base64.data: The image data is not valid base64`;
  if (decodedLength(String(source.data)) > API_IMAGE_MAX_BYTES)
    return `${path}.base64: image exceeds 5 MB maximum: ${bytes.length} bytes > ${API_IMAGE_MAX_BYTES} bytes`;
  const media = recogniseMedia(bytes);
  if (media?.kind !== 'image') return `${path}.base64.data: Could not process image`;
  if (media.mediaType !== mediaType)
    return `${path}.base64: The image was specified using the ${mediaType} media type, but the image appears to be a ${media.mediaType} image`;
  const refusal = apiRefusal(media, bytes.length);
  return refusal === undefined ? undefined : `${path}.base64: ${refusal}`;
}

function documentRejection(block: RequestBlock, path: string): string | undefined {
  const source = isObject(block.source) ? block.source : undefined;
  // Only the base64 PDF form keel sends is checked; text, content and url sources are the API's.
  if (source?.type !== 'base64') return undefined;
  if (source.media_type !== 'application/pdf')
    return `${path}.base64.media_type: Input should be 'application/pdf'`;
  const bytes = decoded(source.data);
  const media = bytes === undefined ? undefined : recogniseMedia(bytes);
  if (bytes === undefined || media?.kind !== 'pdf')
    return `${path}.base64.data: The PDF specified was not valid.`;
  const refusal = apiRefusal(media, bytes.length);
  return refusal === undefined ? undefined : `${path}.base64: ${refusal}`;
}

function decoded(data: unknown): Uint8Array | undefined {
  if (
    typeof data !== 'string' ||
    data === '' ||
    !/^[A-Za-z0-9+/]*={0,2}$/.test(data) ||
    data.length % 4 !== 0
  )
    return undefined;
  return Buffer.from(data, 'base64');
}
