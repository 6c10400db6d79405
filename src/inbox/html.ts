import { visibleText } from '../workflows/tools/call-text';

/**
 * HTML built only through `html`: every interpolated value is escaped unless it is already Html
 * (made by `html` itself). Goal data is the model's text, so a tool call may hold `<script>`: it
 * is shown, never run (and the page's Content-Security-Policy would not run it either).
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | undefined | null | readonly Part[];

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

/** The model's text with nothing hidden (control and bidirectional characters made visible), escaped. */
export function shown(text: string, options: { oneLine?: boolean } = {}): Html {
  return new Html(escapeHtml(visibleText(text, options)));
}
