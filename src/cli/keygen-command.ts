/**
 * `keel keygen`: makes an Ed25519 key pair for signed approvals, writes the private key and prints
 * the public key as goal input and as a `keel run` flag.
 */
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { generateApprovalKeyPair } from '../client/approval-keys';
import { CliError } from './cli-error';
import { defaultUserName } from '../client/os-user';

export function registerKeygenCommand(program: Command, print: (line: string) => void): void {
  program
    .command('keygen')
    .description('make an Ed25519 key pair for signed approvals; prints the public key for goal input')
    .requiredOption('--out <file>', 'where to write the private key (PEM, mode 0600; never overwritten)')
    .option('--approver <name>', 'the name the key belongs to (default $USER, else the OS user)')
    .action((options: { out: string; approver?: string }) => {
      const pair = generateApprovalKeyPair();
      try {
        writeFileSync(options.out, pair.privateKeyPem, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new CliError(`cannot write ${options.out} (${code === 'EEXIST' ? 'it exists' : code})`);
      }
      const approver = options.approver ?? defaultUserName();
      print(`private key: ${options.out} (keep it secret; use with keel approve --sign-key)`);
      print(`public key: ${pair.publicKey}`);
      print(
        `goal input: "approvalSignatures": {"scheme": "ed25519", "keys": {"${approver}": "${pair.publicKey}"}}`,
      );
      print(`or: keel run ... --approval-key ${approver}=${pair.publicKey}`);
    });
}
