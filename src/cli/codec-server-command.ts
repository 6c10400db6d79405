import { type Command, InvalidArgumentError, Option } from 'commander';
import { startCodecServer, DEFAULT_CODEC_SERVER_HOST, DEFAULT_UI_ORIGIN } from '../codec/codec-server';
import type * as EncryptionCodecModule from '../codec/encryption-codec';
import { ENCRYPTION_KEYS_VARIABLE, encryptionKeysFromEnv } from '../codec/encryption-keys';
import { CliError } from './cli-error';

interface CodecServerOptions {
  port: number;
  host: string;
  uiOrigin: string[];
}

const DEFAULT_PORT = 8888;

function port(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535)
    throw new InvalidArgumentError('must be a port number (0-65535)');
  return number;
}

function origin(value: string, all: string[]): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an origin such as http://localhost:8233');
  }
  // Browsers send the bare origin; a trailing slash or path here would never match it.
  return [...all, url.origin];
}

/** `keel codec-server`: decodes payloads for the Temporal Web UI with KEEL_ENCRYPTION_KEYS. */
export function registerCodecServerCommand(program: Command, print: (line: string) => void): void {
  program
    .command('codec-server')
    .description('serve the Web UI remote codec endpoint, so people see decrypted payloads in the UI')
    .option('--port <port>', 'port to listen on', port, DEFAULT_PORT)
    .option(
      '--host <address>',
      'address to bind; anyone who can reach it can decrypt',
      DEFAULT_CODEC_SERVER_HOST,
    )
    // The default is said once, in words: commander would add "(default: [])", the list's start.
    .addOption(
      new Option('--ui-origin <url>', "the Web UI's origin, repeatable")
        .argParser(origin)
        .default([], DEFAULT_UI_ORIGIN),
    )
    .action(async (options: CodecServerOptions) => {
      const keyring = encryptionKeysFromEnv(process.env);
      if (!keyring)
        throw new CliError(
          `${ENCRYPTION_KEYS_VARIABLE} is not set: the codec server needs the keys to decode with`,
        );
      const uiOrigins = options.uiOrigin.length > 0 ? options.uiOrigin : [DEFAULT_UI_ORIGIN];
      // Loaded when the command runs: the codec pulls in Temporal's protobufs, which every other
      // command's start would otherwise pay for.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { EncryptionCodec } = require('../codec/encryption-codec') as typeof EncryptionCodecModule;
      const server = await startCodecServer({
        codec: new EncryptionCodec(keyring),
        port: options.port,
        host: options.host,
        uiOrigins,
        log: (line) => console.error(line),
      });
      print(`keel codec-server: ${server.url} (keys ${[...keyring.keys.keys()].join(', ')})`);
      print(
        `  for the Web UI at ${uiOrigins.join(', ')}: temporal server start-dev --ui-codec-endpoint ${server.url}`,
      );
      print("  or set it as the Remote Codec Endpoint in the Web UI's data encoder settings");
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
