import { defaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';
import { ARRIVED_ENCRYPTED } from '../workflows/common/arrival';
import { METADATA_DECRYPTED } from './encryption-codec-metadata';

/**
 * The SDK's payload converter, plus one mark: an object whose payload the codec decrypted gets
 * a hidden (non-enumerable, symbol-keyed) property saying so, so the workflow can tell a decision
 * that arrived encrypted from one sent in plain text (workflows/common/arrival.ts). Nothing else
 * changes: JSON, zod parsing and equality ignore the mark. Loaded by path (`payloadConverterPath`)
 * so the workflow bundle and the worker use the same converter; only with encryption on.
 */
class ArrivalMarkingPayloadConverter implements PayloadConverter {
  toPayload<T>(value: T): Payload {
    return defaultPayloadConverter.toPayload(value);
  }

  fromPayload<T>(payload: Payload): T {
    const value = defaultPayloadConverter.fromPayload<T>(payload);
    if (payload.metadata?.[METADATA_DECRYPTED] !== undefined && typeof value === 'object' && value !== null) {
      Object.defineProperty(value, ARRIVED_ENCRYPTED, { value: true, enumerable: false });
    }
    return value;
  }
}

export const payloadConverter: PayloadConverter = new ArrivalMarkingPayloadConverter();
