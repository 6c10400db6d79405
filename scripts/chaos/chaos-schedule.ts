/** One disruption of the chaos run, and how long after the previous one it comes. */
export interface Disruption {
  readonly kind: 'kill-worker' | 'restart-server';
  readonly afterMs: number;
}

/**
 * A seeded order of `kills` worker kills and `restarts` server restarts, with delays drawn
 * uniformly from [minDelayMs, maxDelayMs]: the same seed gives the same schedule, so a run that
 * found a problem can be repeated (the moments it lands on still vary with the machine's speed).
 */
export function disruptionSchedule(options: {
  kills: number;
  restarts: number;
  seed: number;
  minDelayMs: number;
  maxDelayMs: number;
}): Disruption[] {
  const random = mulberry32(options.seed);
  const kinds: Disruption['kind'][] = [
    ...Array<Disruption['kind']>(options.kills).fill('kill-worker'),
    ...Array<Disruption['kind']>(options.restarts).fill('restart-server'),
  ];
  for (let index = kinds.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [kinds[index], kinds[other]] = [kinds[other] as Disruption['kind'], kinds[index] as Disruption['kind']];
  }
  const span = options.maxDelayMs - options.minDelayMs;
  return kinds.map((kind) => ({ kind, afterMs: Math.round(options.minDelayMs + random() * span) }));
}

/** A small, well-known seeded generator (uniform in [0, 1)). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
