import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signs the thinking this server writes, as the API does
 * (platform.claude.com/docs/en/build-with-claude/extended-thinking: thinking blocks carry a
 * `signature` that verifies Claude wrote them; a block sent back altered is refused with
 * "Invalid `signature` in `thinking` block"). The key is random per server, so a signature from
 * another server (another conversation, as the API words it) does not verify either. Signatures
 * depend on the text alone, so a request asked again gets the same answer, signature included.
 */
export class ThinkingSigner {
  private readonly key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.key = key;
  }

  sign(thinking: string): string {
    return this.mac(`thinking\0${thinking}`).toString('base64');
  }

  verify(thinking: unknown, signature: unknown): boolean {
    if (typeof thinking !== 'string' || typeof signature !== 'string') return false;
    return sameBytes(Buffer.from(signature, 'base64'), this.mac(`thinking\0${thinking}`));
  }

  /** Opaque redacted_thinking data: a MAC then the seed, so the server can recognise its own. */
  redactedData(seed: string): string {
    const payload = Buffer.from(seed, 'utf8');
    return Buffer.concat([this.mac(Buffer.concat([Buffer.from('redacted\0'), payload])), payload]).toString(
      'base64',
    );
  }

  verifyRedacted(data: unknown): boolean {
    if (typeof data !== 'string') return false;
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length < 32) return false;
    const payload = bytes.subarray(32);
    const expected = this.mac(Buffer.concat([Buffer.from('redacted\0'), payload]));
    return sameBytes(bytes.subarray(0, 32), expected);
  }

  private mac(input: string | Buffer): Buffer {
    return createHmac('sha256', this.key).update(input).digest();
  }
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
