import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The TypeScript snippets of the README and docs/ that claim to type-check: fenced blocks whose
 * info string is `ts typecheck`. A snippet is written to the file its info string names
 * (`ts typecheck file=examples/own-project/worker.ts`) or its first line names in a comment
 * (`// tools/send-invoice.ts`), so the snippets of one page can import each other as a reader's
 * project would; a snippet naming a file under examples/ must also be that file, word for word, so
 * the guide and the runnable example cannot drift apart.
 */
export interface DocSnippet {
  readonly page: string;
  readonly line: number;
  readonly file: string;
  readonly code: string;
}

const FENCE = /^```(\S*)(.*)$/;
const FILE_COMMENT = /^\/\/ ([\w./-]+\.tsx?)\s*$/;

export function typeCheckedSnippets(page: string, markdown: string): DocSnippet[] {
  const snippets: DocSnippet[] = [];
  const lines = markdown.split('\n');
  let open: { line: number; checked: boolean; file?: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = FENCE.exec(text);
    if (open === undefined) {
      if (fence !== null) {
        const [, language = '', rest = ''] = fence;
        const checked = (language === 'ts' || language === 'typescript') && /\btypecheck\b/.test(rest);
        const file = /\bfile=(\S+)/.exec(rest)?.[1];
        open = { line: index + 1, checked, body: [], ...(file === undefined ? {} : { file }) };
      }
      return;
    }
    if (text.startsWith('```')) {
      if (open.checked) {
        const code = open.body.join('\n') + '\n';
        const named = FILE_COMMENT.exec(open.body[0] ?? '');
        const file = open.file ?? named?.[1] ?? `snippet-${open.line}.ts`;
        snippets.push({ page, line: open.line, file, code });
      }
      open = undefined;
      return;
    }
    open.body.push(text);
  });
  return snippets;
}

/** The pages whose snippets are checked: README.md and every Markdown file under docs/. */
export function documentationPages(root: string): string[] {
  const docs = path.join(root, 'docs');
  const pages = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...pages.sort()];
}

export function snippetsOf(root: string): DocSnippet[] {
  return documentationPages(root).flatMap((page) =>
    typeCheckedSnippets(page, readFileSync(path.join(root, page), 'utf8')),
  );
}
