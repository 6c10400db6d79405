/**
 * Whether a message reached the workflow encrypted (issue 24): with payload encryption on, a
 * decision sent as plain JSON (`temporal workflow signal --input '{…}'` without the codec) puts
 * the approver and reason in history in plain text. The codec marks what it decrypted, keel's
 * payload converter (codec/payload-converter.ts) marks each such object with this symbol, and the
 * workflow reads the mark here. Deterministic: replay decodes the same history the same way.
 */
export const ARRIVED_ENCRYPTED = Symbol.for('keel.arrived-encrypted');

export function arrivedEncrypted(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[ARRIVED_ENCRYPTED] === true
  );
}
