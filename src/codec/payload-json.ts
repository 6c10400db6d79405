import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/**
 * A payload as the Web UI's remote codec protocol sends it: proto JSON, so metadata values and
 * data are base64 strings.
 */
const jsonPayloadSchema = z.object({
  metadata: z.record(z.string(), z.string()).nullish(),
  data: z.string().nullish(),
});
export const payloadsBodySchema = z.object({ payloads: z.array(jsonPayloadSchema) });
export type JsonPayload = z.infer<typeof jsonPayloadSchema>;

export function payloadFromJson(json: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(json.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(json.data ?? '', 'base64'),
  };
}

export function payloadToJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}
