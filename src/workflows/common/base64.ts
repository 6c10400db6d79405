/**
 * Base64 decoding for workflow code, where Node's Buffer is not available. Accepts the standard
 * and the URL-safe alphabet, with or without padding; anything else is refused (undefined) rather
 * than decoded loosely, because the bytes are keys and signatures.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE: Readonly<Record<string, string>> = { '-': '+', _: '/' };

export function decodeBase64(text: string): Uint8Array | undefined {
  const trimmed = text.trim().replace(/[-_]/g, (character) => URL_SAFE[character] ?? character);
  const body = trimmed.replace(/={1,2}$/, '');
  if (body.length % 4 === 1 || (trimmed.length !== body.length && trimmed.length % 4 !== 0)) return undefined;
  const bytes = new Uint8Array(Math.floor((body.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const character of body) {
    const value = ALPHABET.indexOf(character);
    if (value < 0) return undefined;
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[index++] = (buffer >> bits) & 0xff;
    }
  }
  // Leftover bits must be zero, or two different texts would decode to the same bytes.
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return bytes;
}
