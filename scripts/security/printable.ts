/**
 * Text from cases and tool output, made safe to print: the report must not itself be a deceptive
 * label. Line breaks become ⏎ and ␍; other control characters, bidi controls and zero-width
 * characters become \u{…}, so what a terminal shows is what the text holds.
 */
export function printable(text: string, maximum = 160): string {
  let escaped = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (character === '\n') escaped += '⏎';
    else if (character === '\r') escaped += '␍';
    else if (isInvisible(codePoint)) escaped += `\\u{${codePoint.toString(16)}}`;
    else escaped += character;
  }
  return escaped.length <= maximum ? escaped : `${escaped.slice(0, maximum - 1)}…`;
}

/** Whether a text holds line breaks, or characters a terminal or browser would not show as themselves. */
export function hasInvisibleCharacters(text: string): boolean {
  for (const character of text) {
    if (character === '\n' || character === '\r' || isInvisible(character.codePointAt(0) ?? 0)) return true;
  }
  return false;
}

/** C0 and C1 controls (tab aside), bidi controls, zero-width characters and the BOM. */
function isInvisible(codePoint: number): boolean {
  return (
    (codePoint < 0x20 && codePoint !== 0x09 && codePoint !== 0x0a && codePoint !== 0x0d) ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    codePoint === 0x061c ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2060 && codePoint <= 0x2069) ||
    codePoint === 0xfeff
  );
}
