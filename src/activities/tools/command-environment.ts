/** Variables a command may see; everything else (API keys, cloud credentials, tokens) stays out. */
const ALLOWED_VARIABLES = ['PATH', 'HOME', 'LANG', 'TERM', 'TMPDIR', 'TZ', 'USER', 'SHELL'] as const;
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The environment for a command the model runs: an allowlist of the worker's variables (plus any
 * LC_* locale settings) and KEEL_IDEMPOTENCY_KEY, so a script can make itself safe to repeat.
 * An allowlist rather than a denylist: a new secret's name cannot be anticipated.
 */
export function commandEnvironment(options: {
  idempotencyKey: string;
  source?: NodeJS.ProcessEnv;
}): Record<string, string> {
  const source = options.source ?? process.env;
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if ((ALLOWED_VARIABLES as readonly string[]).includes(name) || name.startsWith('LC_'))
      environment[name] = value;
  }
  environment.PATH ??= FALLBACK_PATH;
  environment.KEEL_IDEMPOTENCY_KEY = options.idempotencyKey;
  return environment;
}
