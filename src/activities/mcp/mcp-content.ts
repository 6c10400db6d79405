import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { MODEL_IMAGE_TYPES, type ToolOutcome } from '../../workflows/tools/tool-outcome';

type Image = NonNullable<ToolOutcome['images']>[number];

/**
 * The content of an MCP tool result as keel's outcome parts: text the model reads, and images it
 * sees. Nothing is dropped silently: what the model cannot receive is named in a short note.
 */
export function contentToOutcomeParts(result: CallToolResult): { content: string; images: Image[] } {
  const lines: string[] = [];
  const images: Image[] = [];
  for (const block of result.content) {
    const rendered = renderBlock(block);
    if (rendered.image) images.push(rendered.image);
    lines.push(rendered.text);
  }
  // A tool that answers only with structured content still has an answer to read.
  if (lines.length === 0 && result.structuredContent !== undefined) {
    lines.push(JSON.stringify(result.structuredContent, null, 2));
  }
  return { content: lines.length === 0 ? '(no result)' : lines.join('\n'), images };
}

function renderBlock(block: ContentBlock): { text: string; image?: Image } {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'image': {
      // Only the types the model API takes travel as images; others are described.
      const mediaType = MODEL_IMAGE_TYPES.find((type) => type === block.mimeType);
      if (mediaType === undefined) {
        return {
          text: `[image ${block.mimeType}, ${decodedBytes(block.data)} bytes, not shown: the model takes ${MODEL_IMAGE_TYPES.join(', ')}]`,
        };
      }
      return {
        text: `[image ${block.mimeType}, ${decodedBytes(block.data)} bytes, attached]`,
        image: { mediaType, data: block.data },
      };
    }
    case 'audio':
      return { text: `[audio ${block.mimeType}, ${decodedBytes(block.data)} bytes, not shown]` };
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource) return { text: resource.text };
      const type = resource.mimeType ?? 'binary';
      return {
        text: `[resource ${resource.uri} (${type}, ${decodedBytes(resource.blob)} bytes), not shown]`,
      };
    }
    case 'resource_link':
      return { text: `[resource link: ${block.uri}${block.description ? ` — ${block.description}` : ''}]` };
    default:
      return { text: `[unsupported content: ${JSON.stringify(block).slice(0, 200)}]` };
  }
}

/** Size of base64 data once decoded, without decoding it. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}
