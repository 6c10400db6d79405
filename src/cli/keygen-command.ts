/**
 * `keel keygen`: makes an Ed25519 key pair for signed approvals, writes the private key and prints
 * the public key as goal input and as a `keel run` flag; with --inbox-token, an approver's inbox
 * token (its hash into the approvers file); with --inbox-secret, a secret for decision links.
 */
import type { Command } from 'commander';
import { readFileSync, writeFileSync } from 'node:fs';
import { generateApprovalKeyPair } from '../client/approval-keys';
import { DECISION_LINK_SECRET_ENV, newDecisionLinkSecret } from '../client/decision-link';
import { newInboxToken, tokenHash, withApproverToken } from '../inbox/credentials';
import { CliError } from './cli-error';
import { defaultUserName } from '../client/os-user';

interface KeygenOptions {
  out?: string;
  approver?: string;
  inboxToken?: string;
  approvers?: string;
  inboxSecret?: boolean;
}

export function registerKeygenCommand(program: Command, print: (line: string) => void): void {
  program
    .command('keygen')
    .description(
      'make an Ed25519 key pair for signed approvals (--out), an inbox token (--inbox-token) or an inbox secret (--inbox-secret)',
    )
    .option('--out <file>', 'where to write the private key (PEM, mode 0600; never overwritten)')
    .option('--approver <name>', 'the name the key belongs to (default $USER, else the OS user)')
    .option('--inbox-token <name>', "make this approver's inbox token; its hash goes into --approvers")
    .option(
      '--approvers <file>',
      'with --inbox-token: the inbox approvers file to add it to (made if missing)',
    )
    .option('--inbox-secret', `print a new ${DECISION_LINK_SECRET_ENV} for decision links`)
    .action((options: KeygenOptions) => {
      const chosen = [options.out, options.inboxToken, options.inboxSecret].filter(
        (value) => value !== undefined,
      );
      if (chosen.length !== 1)
        throw new CliError('choose one: --out <file>, --inbox-token <name> or --inbox-secret');
      if (options.inboxSecret) return print(`${DECISION_LINK_SECRET_ENV}=${newDecisionLinkSecret()}`);
      if (options.inboxToken !== undefined) return inboxToken(options.inboxToken, options.approvers, print);
      const out = options.out ?? '';
      const pair = generateApprovalKeyPair();
      try {
        writeFileSync(out, pair.privateKeyPem, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new CliError(`cannot write ${out} (${code === 'EEXIST' ? 'it exists' : code})`);
      }
      const approver = options.approver ?? defaultUserName();
      print(`private key: ${out} (keep it secret; use with keel approve --sign-key)`);
      print(`public key: ${pair.publicKey}`);
      print(
        `goal input: "approvalSignatures": {"scheme": "ed25519", "keys": {"${approver}": "${pair.publicKey}"}}`,
      );
      print(`or: keel run ... --approval-key ${approver}=${pair.publicKey}`);
    });
}

/** A new token for the approver: its hash added to the approvers file, the token printed once. */
function inboxToken(name: string, file: string | undefined, print: (line: string) => void): void {
  if (file === undefined)
    throw new CliError('--inbox-token needs --approvers <file>, where its hash is kept');
  if (name.trim() === '') throw new CliError('--inbox-token takes the approver name');
  let existing: string | undefined;
  try {
    existing = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const token = newInboxToken();
  let text: string;
  try {
    text = withApproverToken(existing, name.trim(), tokenHash(token));
  } catch (error) {
    throw new CliError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  writeFileSync(file, text, { mode: 0o600 });
  print(`inbox token for ${name.trim()}: ${token}`);
  print(`(shown once; ${file} keeps only its hash: keel inbox --approvers ${file})`);
}
