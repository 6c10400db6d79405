/**
 * One adversarial case of `npm run eval:security`: tool calls a model could make, run against fresh
 * directories. A case states no expected result: the harness judges every case by what actually
 * happened (see verdicts.ts), so the same corpus measures today's code and tomorrow's.
 */
import type { Fixture } from './fixture';

export const Category = {
  ShellParsing: 'shell-parsing',
  OptionTricks: 'option-tricks',
  GitConfigs: 'git-configs',
  OutsideReads: 'outside-reads',
  Races: 'races',
  ForbiddenWrites: 'forbidden-writes',
  CatastrophicRegex: 'catastrophic-regex',
  DeceptiveLabels: 'deceptive-labels',
  /** Repeated and reused tool_use ids (call-id-cases.ts: keel's bookkeeping, not tool calls). */
  CallIds: 'call-ids',
  /** Commands worded so a human's approval rule covers more than it names (approval-rule-cases.ts). */
  ApprovalRules: 'approval-rules',
  /** setuid, setgid, sticky bits and ownership a command gives its files (issue 43). */
  Privileges: 'privileges',
  /** Repositories git would find without any `.git` in their path (issue 43). */
  GitWithoutDotGit: 'git-without-dot-git',
  /** keel's state beside the workspace (held layers, journals) tampered with or read (issue 43). */
  NestingAndState: 'nesting-and-state',
  /** Every way a call's start is decided, then changes beyond its tier (approval-path-cases.ts, issue 43). */
  ApprovalPaths: 'approval-paths',
  /** Held layers whose change list is longer than a list names (long-change-list-cases.ts, issue 43). */
  LongChangeLists: 'long-change-lists',
  /** A network-granted command reaching this host's own services (confinement-cases.ts, issue 43). */
  Network: 'network',
  /** Commands past small memory, process, file and layer limits (confinement-cases.ts, issue 43). */
  Resources: 'resources',
} as const;
export type Category = (typeof Category)[keyof typeof Category];
export const CATEGORIES: readonly Category[] = Object.values(Category);

/** run_command's own timeout in every case: a hanging command ends well inside the case's time. */
export const COMMAND_TIMEOUT_SECONDS = 8;

export interface ToolCall {
  readonly toolName: string;
  readonly input: Readonly<Record<string, unknown>>;
  /**
   * Set only where a human's approval is the case's premise (a race's swapper stands for a build
   * script someone approved): why. Every other call runs with approved: false.
   */
  readonly approvedBecause?: string;
  /** Started again and again until the rest of its step is done: the victim of a race. */
  readonly repeat?: boolean;
}

export interface Step {
  /** One call, or several started together, as the workflow runs one turn's calls. */
  readonly calls: readonly ToolCall[];
  /** A shell loop the harness itself runs in the workspace during the step: a change from outside keel. */
  readonly hostScript?: string;
  /** How long repeated calls keep going when no other call of the step bounds them. */
  readonly durationMs?: number;
}

export interface SecurityCase {
  /** `<category>/<slug>`, unique. */
  readonly id: string;
  readonly category: Category;
  readonly title: string;
  /** Part of the `--ci` subset. */
  readonly ci?: boolean;
  /** Plants what the case needs before any call (files, links, configs); the harness's own I/O. */
  readonly setup?: (fixture: Fixture) => void | Promise<void>;
  readonly steps: (fixture: Fixture) => readonly Step[];
  /** Deceptive labels: the part of the input an approver must be able to see. */
  readonly hiddenPart?: string;
}

export function runCommand(command: string, extra: Partial<ToolCall> = {}): ToolCall {
  return {
    toolName: 'run_command',
    input: { command, timeoutSeconds: COMMAND_TIMEOUT_SECONDS },
    ...extra,
  };
}

export function toolCall(
  toolName: string,
  input: Record<string, unknown>,
  extra: Partial<ToolCall> = {},
): ToolCall {
  return { toolName, input, ...extra };
}

/** Calls one after another, each its own turn. */
export function inSequence(...calls: readonly ToolCall[]): Step[] {
  return calls.map((call) => ({ calls: [call] }));
}

/** A text that may name the fixture's directories. */
export type FixtureText = string | ((fixture: Fixture) => string);

export function fixtureText(text: FixtureText, fixture: Fixture): string {
  return typeof text === 'string' ? text : text(fixture);
}

/** A case of one run_command call: most of the corpus. */
export function commandCase(options: {
  category: Category;
  slug: string;
  title: string;
  command: FixtureText;
  setup?: SecurityCase['setup'];
  ci?: boolean;
  hiddenPart?: string;
}): SecurityCase {
  const { command, hiddenPart, ...rest } = options;
  return {
    ...callsCase({ ...rest, calls: (fixture) => [runCommand(fixtureText(command, fixture))] }),
    ...(hiddenPart === undefined ? {} : { hiddenPart }),
  };
}

/** A case of any calls, one after another (or as given). */
export function callsCase(options: {
  category: Category;
  slug: string;
  title: string;
  calls: (fixture: Fixture) => readonly ToolCall[];
  setup?: SecurityCase['setup'];
  ci?: boolean;
}): SecurityCase {
  return {
    id: `${options.category}/${options.slug}`,
    category: options.category,
    title: options.title,
    ...(options.ci === true ? { ci: true } : {}),
    ...(options.setup === undefined ? {} : { setup: options.setup }),
    steps: (fixture) => inSequence(...options.calls(fixture)),
  };
}
