import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core. Never a downloaded browser: CI installs the
 * `chromium` package (scripts/ensure-chromium.sh) and KEEL_CHROMIUM may point elsewhere.
 */
export function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumExecutable();
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    // A failure, not a skip: a browser test that silently does not run proves nothing.
    throw new Error(
      `Chromium not found at ${executablePath}: run \`apt-get install chromium\` (or scripts/ensure-chromium.sh), or set KEEL_CHROMIUM`,
    );
  }
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
