import { z } from 'zod';
import { separateHereDocuments, type HereDocument } from '../tools/here-documents';
import { splitRoughly } from '../tools/rough-words';
import { splitSimpleCommands } from '../tools/shell-words';
import { normalizedInput, resultDigest } from './loop-guard';
import { effectsOf, effectsOverlap, effectsText, type HeldChanges } from './denied-effects';

/**
 * What a call is about, to recognise a request a human already denied when the model asks again
 * in other words (issue 22): `rm -rf build`, `rm -r ./build/` and `find build -delete` are one
 * intent — the same tool on the same target. Pure: the workflow's guards and its approval gate
 * both match with it, and replay must match alike.
 *
 * Targets are the paths a call names: its path-like input fields, or for a shell command the
 * arguments of every simple command (options and the program names left out; the command line
 * of `sh -c` or `eval`, and a here-document a shell reads, read as commands in turn; any other
 * here-document is text, not targets). Two calls share an
 * intent when they use the same tool and name a target in common; a call that names no target is
 * the same intent only as the very same call. Deliberately broad: it is only ever compared
 * against calls a human denied, and a false match costs one more "ask differently" prompt, while a
 * miss costs the human another approval request.
 */
export const callIntentSchema = z.lazy(() =>
  z.object({
    tool: z.string(),
    /** Normalized target paths, sorted; empty when the call names none. */
    targets: z.array(z.string()),
    /**
     * The normalized call itself, for calls without targets ('' for a call with targets: those are
     * matched by their targets alone, and a write_file's content can be large). Past
     * MAX_CALL_CHARS it is kept as a prefix, its length and a checksum: intents live in workflow state.
     */
    call: z.string(),
    /**
     * What the call would delete, empty or replace (denied-effects.ts): a denial is of these,
     * whatever tool or wording tries them again (issue 44). Absent in intents kept before.
     */
    effects: z.array(z.string()).optional(),
  }),
);
export type CallIntent = z.infer<typeof callIntentSchema>;

/** Beyond this, a target-less call is kept by a prefix, its length and a checksum. */
const MAX_CALL_CHARS = 1_000;
/** How much of a long intent a line of text shows. */
const SHOWN_CALL_CHARS = 200;

/** Input fields that name what a call acts on (built-in, MCP and user tools alike). */
const TARGET_FIELDS: ReadonlySet<string> = new Set([
  'path',
  'paths',
  'file',
  'files',
  'filePath',
  'file_path',
  'filename',
  'target',
  'targets',
  'directory',
  'dir',
  'source',
  'destination',
  'from',
  'to',
  'url',
  'uri',
]);

/** Fields that hold a shell command line. */
const COMMAND_FIELDS: readonly string[] = ['command', 'cmd', 'script'];

/** Programs that only run another command: their first argument is the program, not a target. */
const WRAPPERS: ReadonlySet<string> = new Set(['sudo', 'env', 'nice', 'nohup', 'time', 'timeout', 'xargs']);

/** Shells whose `-c` argument is itself a command line: `bash -c 'rm -rf build'` names `build`. */
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh']);

const MAX_TARGETS = 16;

/** How many command lines inside command lines (`eval`, `sh -c`) are read for targets. */
const MAX_NESTED_COMMAND_LINES = 3;

/** `held`: the changes the call's copy-on-write layer holds, when it ran on one. */
export function intentOf(toolName: string, input: unknown, held?: HeldChanges): CallIntent {
  const targets = new Set<string>();
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    for (const [field, value] of Object.entries(input as Record<string, unknown>)) {
      if (TARGET_FIELDS.has(field)) for (const text of strings(value)) addTarget(targets, text);
      if (COMMAND_FIELDS.includes(field) && typeof value === 'string') {
        for (const word of commandTargets(value)) addTarget(targets, word);
      }
    }
  }
  const sorted = [...targets].sort().slice(0, MAX_TARGETS);
  const effects = effectsOf(toolName, input, held);
  return {
    tool: toolName,
    targets: sorted,
    call: sorted.length > 0 ? '' : keptCall(toolName, input),
    ...(effects.length > 0 ? { effects } : {}),
  };
}

function keptCall(toolName: string, input: unknown): string {
  const call = `${toolName} ${normalizedInput(input)}`;
  if (call.length <= MAX_CALL_CHARS) return call;
  return `${call.slice(0, SHOWN_CALL_CHARS)}… (${call.length} chars, fnv1a ${resultDigest(call)})`;
}

/**
 * The same tool on a target in common, the very same target-less call, or — whatever the tools —
 * effects that touch one place: emptying `build/a.txt` is part of deleting `build`.
 */
export function sameIntent(a: CallIntent, b: CallIntent): boolean {
  if (effectsOverlap(a.effects ?? [], b.effects ?? [])) return true;
  if (a.tool !== b.tool) return false;
  if (a.targets.length === 0 || b.targets.length === 0) return a.call === b.call;
  return a.targets.some((target) => b.targets.includes(target));
}

/**
 * "run_command on build", for prompts and the ledger: one line, cut when long. Effects its
 * targets do not name come first: what a denial refuses is what the call would change.
 */
export function intentText(intent: CallIntent): string {
  const named = intent.targets.length > 0 ? `${intent.tool} on ${intent.targets.join(', ')}` : intent.call;
  const unnamed = (intent.effects ?? []).filter((path) => !intent.targets.includes(path));
  const text = unnamed.length > 0 ? `deleting or overwriting ${effectsText(unnamed)} (${named})` : named;
  return text.length <= SHOWN_CALL_CHARS ? text : `${text.slice(0, SHOWN_CALL_CHARS)}…`;
}

/**
 * A path as the same place however it is spelled: `./build/`, `.//build`, `build/*` and `build`
 * are one target. A leading `$PWD/` or `./` (with any slashes after it), trailing slashes and a
 * trailing glob segment go; case is kept (file systems differ on it).
 */
export function normalizeTarget(text: string): string {
  let target = text.trim();
  target = target.replace(/^(\$PWD|\$\{PWD\}|\$\(pwd\))\/+/, '');
  target = target.replace(/^(\.\/+)+/, '');
  target = target.replace(/(\/\*+)+$/, '');
  // `/` is the root, not `.` with a slash
  if (/^\/+$/.test(target)) return '/';
  target = target.replace(/\/+$/, '');
  return target === '' ? '.' : target;
}

function addTarget(targets: Set<string>, text: string): void {
  // /dev/null and friends are where output goes, not what a call is about
  if (text.trim() === '' || text.trim().startsWith('/dev/')) return;
  targets.add(normalizeTarget(text));
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/**
 * The targets a command line names. A command the tokenizer refuses (substitutions, unusual
 * syntax) falls back to its whitespace-separated words, so it still matches on the paths it names.
 */
function commandTargets(commandLine: string, depth = 0): string[] {
  const { command, documents } = separateHereDocuments(commandLine);
  const split = splitSimpleCommands(command);
  const commands = split.ok
    ? split.commands.map((words) => words.map((word) => word.text))
    : roughSplit(command);
  return [
    ...documents.flatMap((document) => documentTargets(document, depth)),
    ...simpleCommandTargets(commands, depth),
  ];
}

/**
 * A here-document is what a program reads: a script when a shell on its line reads it
 * (`bash <<EOF`, `cat <<EOF | sh`), arguments when xargs does (`cat <<EOF | xargs rm`), and
 * otherwise text (`cat > fix.py << 'EOF'`) whose words would make any two such calls one intent
 * ("import", "EOF").
 */
function documentTargets(document: HereDocument, depth: number): string[] {
  const readers = roughSplit(document.line).flat();
  if (readers.some(isShell))
    return depth < MAX_NESTED_COMMAND_LINES ? commandTargets(document.body, depth + 1) : [];
  if (readers.some((word) => word.split('/').pop() === 'xargs'))
    return document.body.split(/\s+/).filter((word) => word !== '' && !word.startsWith('-'));
  return [];
}

function isShell(word: string): boolean {
  return SHELLS.has(word.split('/').pop() ?? '');
}

/**
 * The arguments of each simple command, past the program name, its wrappers and environment
 * assignments; options are not targets. `cd DIR` names none: agents start most commands with
 * `cd /testbed &&` (the recorded trajectories: 1,413 of 3,436), which made any two of them one
 * intent. Its directory stands in for the `.` or bare glob of the commands after it instead, so
 * `cd build && rm -rf *` is still about `build`.
 */
function simpleCommandTargets(commands: readonly string[][], depth: number): string[] {
  let directory: string | undefined;
  return commands.flatMap((words) => {
    let index = 0;
    while (index < words.length) {
      const word = words[index] ?? '';
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || WRAPPERS.has(word)) index += 1;
      else break;
    }
    const program = words[index] ?? '';
    const args = words.slice(index + 1);
    if (DIRECTORY_CHANGES.has(program)) {
      directory = directoryAfter(directory, args);
      return [];
    }
    // A command line handed to eval or to a shell's -c names what the commands in it name; read
    // so only a few levels deep (`eval eval … rm x`, thousands of times over, would otherwise
    // overflow the workflow's stack), deeper ones keep their words as targets.
    const nested = depth < MAX_NESTED_COMMAND_LINES;
    if (program === 'eval' && nested) return commandTargets(args.join(' '), depth + 1);
    const option = nested && isShell(program) ? args.findIndex((word) => /^-[a-z]*c[a-z]*$/.test(word)) : -1;
    const script = option >= 0 ? args[option + 1] : undefined;
    const rest = script === undefined ? args : args.filter((_, at) => at !== option + 1);
    // `python -m pytest tests`: the module is the program that runs, not what the call is about
    // (or `pip install pytest` and every test run would be one intent).
    const moduleOption = PYTHON.test(program.split('/').pop() ?? '') ? rest.indexOf('-m') : -1;
    const operands = moduleOption >= 0 ? rest.filter((_, at) => at !== moduleOption + 1) : rest;
    return [
      ...(script === undefined ? [] : commandTargets(script, depth + 1)),
      ...operands
        .filter((word) => !word.startsWith('-') && !/^\d+$/.test(word))
        .map((word) => (directory !== undefined && isHere(word) ? directory : word)),
    ];
  });
}

/** python, python3, python3.12: `-m MODULE` names the program to run. */
const PYTHON = /^python[0-9.]*$/;

/** Commands that change the directory the commands after them run in. */
const DIRECTORY_CHANGES: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd']);

/**
 * The directory after `cd ARGS` (or pushd, popd), as far as the words show it: undefined when
 * they do not (`cd`, `cd -`, `cd ~`, `cd $DIR`, popd), relative ones joined to the one before.
 */
function directoryAfter(before: string | undefined, args: readonly string[]): string | undefined {
  const operands = args.filter((word) => !word.startsWith('-'));
  const target = operands[0];
  if (operands.length !== 1 || target === undefined || /^[~$]|^\+\d/.test(target)) return undefined;
  if (target.startsWith('/') || before === undefined) return normalizeTarget(target);
  return normalizeTarget(`${before}/${target}`);
}

/** `.`, `./`, `*`, `./*`: the directory a command runs in, whatever it is. */
function isHere(word: string): boolean {
  return /^(?:\.\/*)?\**$/.test(word) && word !== '';
}

/**
 * sh's (and bash's) redirection marks: `>`, `2>>`, `<>`, `<<-`, `<<<`, `>|`, `>&`, `&>`, `&>>`.
 * Exact, not "any run of < and >": a mark the pattern missed would stay on its word, and
 * `&>/dev/null`, which many commands end with, would be one target they all share.
 */
const REDIRECTION_MARK = '(?:&>>?|\\d*(?:<<<|<<-?|<>|>>|>\\||[<>]&?))';
/**
 * sh's operators and redirections standing alone, which are neither programs nor targets: a
 * duplicated descriptor (`2>&1`, `<&3`, `2>&-`, bash's `>&2-`) names no file either.
 */
const OPERATOR = new RegExp(`^(?:&&|\\|\\||[;|&]|${REDIRECTION_MARK}|\\d*[<>]&(?:\\d+-?|-))$`);
/** The mark in front of the file a redirection names (`>out.txt`, `&>>log`, `>&file`). */
const LEADING_MARK = new RegExp(`^${REDIRECTION_MARK}`);

/**
 * For a command the tokenizer refuses (it refuses output redirections, substitutions, …): split
 * on blanks and on sh's separators outside quotes, and leave operators and redirection marks out, so
 * `echo a > out.txt && rm -r build` names `a`, `out.txt` and `build` — not `>` or `&&`.
 */
function roughSplit(command: string): string[][] {
  return splitRoughly(command)
    .map((words) =>
      words
        // operators first: stripping a mark first would leave `&1` of `2>&1` as a target
        .filter((word) => !OPERATOR.test(word))
        .map((word) => word.replace(LEADING_MARK, ''))
        .filter((word) => word !== ''),
    )
    .filter((words) => words.length > 0);
}
