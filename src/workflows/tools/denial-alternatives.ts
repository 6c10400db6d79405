import { Reversibility } from './reversibility';
import type { ToolCatalogue } from './tool-catalogue';

/** keel's own tools, first when a goal has them: the ones a model knows best. */
const LOOKING_FIRST = ['list_dir', 'read_file', 'search'];

/**
 * The next actions after a denied or timed-out call (principle 2): alternatives that need no
 * approval, naming only tools this goal has — a goal without the built-ins, or with a few picked
 * tools, must not be sent after tools it cannot call. Never another way to the refused change: a
 * denial is of what the call would do, whatever tool does it (issue 44). Pure: it reads the
 * goal's recorded catalogue.
 */
export function denialAlternatives(options: {
  catalogue: ToolCatalogue;
  /** The denied call's tool (never suggested again) and tier. */
  toolName: string;
  reversibility: Reversibility;
}): string[] {
  const { catalogue, toolName } = options;
  const readers = toolsOfTier(catalogue, Reversibility.ReadOnly, toolName, LOOKING_FIRST).slice(0, 3);
  return [
    readers.length > 0
      ? `Inspect first with read-only calls (${readers.join(', ')}) to confirm whether this step is needed at all`
      : 'Check against what you have already seen whether this step is needed at all',
    'Leave the refused change undone: making it with another tool or a script is the same request, and waits for a human again',
    'Explain in your answer what this step would do and why, so a human can approve it next time',
  ];
}

/** Tools whose tier is always `tier` (a per-call tier may be anything), the preferred ones first. */
function toolsOfTier(
  catalogue: ToolCatalogue,
  tier: Reversibility,
  except: string,
  preferred: readonly string[],
): string[] {
  const names = catalogue
    .filter((entry) => entry.tier.kind === 'fixed' && entry.tier.tier === tier && entry.name !== except)
    .map((entry) => entry.name);
  const rank = (name: string) => {
    const index = preferred.indexOf(name);
    return index < 0 ? preferred.length : index;
  };
  return [...names].sort((a, b) => rank(a) - rank(b)); // stable: the catalogue's order otherwise
}
