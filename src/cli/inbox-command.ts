/**
 * `keel inbox`: the approval inbox, a small web app on 127.0.0.1 by default (src/inbox/). Its
 * approvers sign in with a token (`keel keygen --inbox-token NAME --approvers FILE` makes one)
 * or open a signed one-time link from a notification (KEEL_INBOX_SECRET); see
 * docs/approvals-and-security.md, Inbox.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { loadSigningKey } from '../client/approval-keys';
import { DECISION_LINK_SECRET_ENV, decisionLinkSecret } from '../client/decision-link';
import { InboxSetupError, parseApproverTokens, type ApproverTokens } from '../inbox/credentials';
import { defaultUsedLinksDirectory, openUsedLinks } from '../inbox/used-links';
import { DEFAULT_INBOX_HOST, DEFAULT_INBOX_PORT } from '../inbox/server';
import { CliError } from './cli-error';
import type { GlobalOptions } from './with-client';
import { connectionSettings } from '../client/connection-settings';

interface InboxFlags {
  approvers: string;
  host: string;
  port: string;
  publicUrl?: string;
  signingKey: string[];
  usedLinks?: string;
}

export function registerInboxCommand(program: Command, print: (line: string) => void): void {
  program
    .command('inbox')
    .description('serve the approval inbox: every waiting call, decided from a browser')
    .requiredOption(
      '--approvers <file>',
      'approver name → token hash, JSON (keel keygen --inbox-token NAME writes it)',
    )
    .option('--host <address>', 'where to listen', DEFAULT_INBOX_HOST)
    .option('--port <number>', 'the port (0: any free one)', String(DEFAULT_INBOX_PORT))
    .option('--public-url <url>', 'the address approvers open, when not the listening one (a proxy)')
    .option(
      '--signing-key <name=file>',
      "hold this approver's Ed25519 private key and sign their decisions with it (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--used-links <dir>',
      'where used decision links are remembered (default under KEEL_STATE_DIRECTORY)',
    )
    .action(async (flags: InboxFlags, command: Command) => {
      const setup = inboxSetup(flags);
      const settings = connectionSettings(command.optsWithGlobals<GlobalOptions>());
      // Loaded here: the server and the Temporal client are heavy, and `keel --help` needs neither.
      const [{ connectClient }, { startInbox }, { temporalGoals }] = await Promise.all([
        import('../client/goal-client'),
        import('../inbox/server'),
        import('../inbox/goals'),
      ]);
      const client = await connectClient(settings);
      const inbox = await startInbox({
        ...setup,
        goals: temporalGoals(client),
        log: (line) => process.stderr.write(`${line}\n`),
      }).catch(async (error: unknown) => {
        await client.connection.close();
        const code = (error as NodeJS.ErrnoException).code;
        throw new CliError(`cannot listen on ${flags.host}:${flags.port}${code ? ` (${code})` : ''}`);
      });
      print(`inbox: ${inbox.url}`);
      print(`approvers: ${[...setup.approvers.keys()].join(', ')}`);
      print(
        setup.linkSecret === undefined
          ? `decision links: off (set ${DECISION_LINK_SECRET_ENV}: keel keygen --inbox-secret)`
          : `decision links: on, used ones remembered in ${setup.usedLinks.directory}`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await inbox.close();
      await client.connection.close();
    });
}

/** Everything `keel inbox` reads before it listens, each mistake one line (exit 2). */
export function inboxSetup(flags: InboxFlags, env: NodeJS.ProcessEnv = process.env) {
  const port = Number(flags.port);
  if (!/^\d{1,5}$/.test(flags.port) || port > 65535)
    throw new CliError(`--port takes 0 to 65535, not ${flags.port}`);
  const wildcard = ['0.0.0.0', '::', ''].includes(flags.host);
  if (wildcard && flags.publicUrl === undefined)
    throw new CliError(
      `--host ${flags.host} answers on every address: give --public-url, the address approvers open`,
    );
  if (flags.publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(flags.publicUrl))
    throw new CliError(`--public-url takes an http(s) address, not ${flags.publicUrl}`);
  let approvers: ApproverTokens;
  let linkSecret: Buffer | undefined;
  try {
    approvers = parseApproverTokens(readText(flags.approvers), flags.approvers);
    linkSecret = env[DECISION_LINK_SECRET_ENV]?.trim()
      ? decisionLinkSecret(env[DECISION_LINK_SECRET_ENV])
      : undefined;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  const signingKeys = new Map<string, KeyObject>();
  for (const spec of flags.signingKey) {
    const [name, file] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
    if (!spec.includes('=') || name.trim() === '' || file.trim() === '')
      throw new CliError(`--signing-key takes NAME=FILE, not ${spec}`);
    try {
      signingKeys.set(name.trim(), loadSigningKey(file.trim()));
    } catch (error) {
      throw new CliError(`--signing-key ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return {
    approvers,
    ...(linkSecret === undefined ? {} : { linkSecret }),
    usedLinks: openUsedLinks(flags.usedLinks ?? defaultUsedLinksDirectory(env)),
    signingKeys,
    host: flags.host,
    port,
    ...(flags.publicUrl === undefined ? {} : { publicUrl: flags.publicUrl }),
  };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InboxSetupError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
