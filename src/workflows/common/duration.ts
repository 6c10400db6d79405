const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "500ms", "90s", "30m", "24h", "7d" → milliseconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return Number.isFinite(value) && value > 0 ? Math.round(value) : undefined;
}
