/**
 * What each Claude model can write in one answer and read in one request, from the model pages of
 * Anthropic's documentation (platform.claude.com/docs/en/models/<model>/overview: "Max output",
 * "Context window"). keel uses the output limit to ask a cut answer again with more room, and the
 * loopback Messages server refuses a max_tokens above it, as the API does. Models not listed
 * (newer ones, other providers' ids) get no limit from keel: the endpoint decides.
 */
export interface ModelLimits {
  readonly maxOutputTokens: number;
  readonly contextWindowTokens: number;
}

const limits = (maxOutputTokens: number, contextWindowTokens: number): ModelLimits => ({
  maxOutputTokens,
  contextWindowTokens,
});

/** Model id prefix → limits; the longest prefix that fits an id wins. */
export const MODEL_LIMITS: Readonly<Record<string, ModelLimits>> = {
  'claude-fable-5': limits(128_000, 1_000_000),
  'claude-opus-5': limits(128_000, 1_000_000),
  'claude-sonnet-5': limits(128_000, 1_000_000),
  'claude-haiku-5': limits(128_000, 1_000_000),
  'claude-opus-4-8': limits(128_000, 1_000_000),
  'claude-opus-4-7': limits(128_000, 1_000_000),
  'claude-opus-4-6': limits(128_000, 1_000_000),
  'claude-sonnet-4-6': limits(128_000, 1_000_000),
  'claude-opus-4-5': limits(64_000, 200_000),
  'claude-sonnet-4-5': limits(64_000, 200_000),
  'claude-haiku-4-5': limits(64_000, 200_000),
  'claude-opus-4-1': limits(32_000, 200_000),
  'claude-opus-4': limits(32_000, 200_000),
  'claude-sonnet-4': limits(64_000, 200_000),
  'claude-3-7-sonnet': limits(64_000, 200_000),
  'claude-3-5-haiku': limits(8_192, 200_000),
  'claude-3-haiku': limits(4_096, 200_000),
};

/** The highest max_tokens keel accepts for any model (the largest output limit above). */
export const MAX_OUTPUT_TOKENS = 128_000;

// Cloud-provider prefixes such as "anthropic." or "us.anthropic." (Bedrock ids).
const providerPrefix = /^(?:[a-z]+\.)?anthropic\./;

/** The limits of `model`, or undefined for a model keel does not know. */
export function modelLimits(model: string): ModelLimits | undefined {
  const id = model.trim().toLowerCase().replace(providerPrefix, '');
  let best: string | undefined;
  for (const key of Object.keys(MODEL_LIMITS)) {
    if (id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : MODEL_LIMITS[best];
}

/**
 * Claude models without extended thinking: the extended-thinking docs' "Supported models" name
 * Claude 3.7 Sonnet and the Claude 4 and later models; the other Claude 3 models refuse a
 * `thinking` parameter. Models keel does not know are left to the endpoint (true).
 */
export function supportsExtendedThinking(model: string): boolean {
  const id = model.trim().toLowerCase().replace(providerPrefix, '');
  return !(id.startsWith('claude-3-') && !id.startsWith('claude-3-7-'));
}
