/**
 * The model client a worker calls: the Anthropic API from the environment, or a scripted model
 * (a scenario replayed from a loopback Messages endpoint) for runs without a real LLM.
 */
import Anthropic from '@anthropic-ai/sdk';
import type * as ScenarioModule from '../scripted-model/scenario';
import type * as ScriptedServerModule from '../scripted-model/scripted-messages-server';
import type { ScriptedMessagesServer } from '../scripted-model/scripted-messages-server';

/**
 * The Anthropic client from the worker's environment only. The SDK's own retries are off
 * (maxRetries 0): Temporal's retry policy is the single place that retries a model call.
 */
export function anthropicFromEnvironment(env: NodeJS.ProcessEnv = process.env): Anthropic {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) {
    throw new Error(
      'ANTHROPIC_API_KEY is not set: set it in the worker environment, or run a scripted model with --scripted FILE',
    );
  }
  return new Anthropic({ apiKey, baseURL: env.ANTHROPIC_BASE_URL || undefined, maxRetries: 0 });
}

/**
 * Starts the scenario's Messages endpoint and a client of it (no key, no retries); the caller
 * closes the server when the worker stops.
 */
export async function startScriptedModel(
  scriptedScenarioFile: string,
  log: (line: string) => void,
): Promise<{ server: ScriptedMessagesServer; anthropic: Anthropic }> {
  // Only a scripted worker needs these (and the YAML parser behind them): loaded here.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { loadScenarioFile } = require('../scripted-model/scenario') as typeof ScenarioModule;
  const { startScriptedMessagesServer } =
    require('../scripted-model/scripted-messages-server') as typeof ScriptedServerModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const scenario = loadScenarioFile(scriptedScenarioFile);
  const scripted = await startScriptedMessagesServer({ scenarios: [scenario] });
  const anthropic = new Anthropic({
    apiKey: 'scripted-model-needs-no-key',
    baseURL: scripted.url,
    maxRetries: 0,
  });
  log(
    `keel worker: SCRIPTED model — replaying scenario "${scenario.name}" from ${scripted.url} (no real LLM)`,
  );
  return { server: scripted, anthropic };
}
