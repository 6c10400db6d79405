/**
 * Links both ways between a fork and its original in the Web UI's details (issue 48): the fork
 * links to its original's page, and every goal to the list of goals forked from it — a search on
 * KeelForkOf, so it finds the forks the CLI started too, and those made after this goal ended.
 * Relative to the Web UI that shows the details, which serves this goal's namespace.
 */
import type { Lineage } from '../lineage/lineage';

export interface LineageLinks {
  /** The original's page, for a fork (a rewound goal is its own original). */
  original?: string;
  /** The goals forked from this one. */
  forks: string;
}

export function lineageLinks(
  namespace: string,
  workflowId: string,
  lineage: Pick<Lineage, 'kind' | 'of'> | undefined,
): LineageLinks {
  const workflows = `/namespaces/${encodeURIComponent(namespace)}/workflows`;
  const forks = `${workflows}?query=${encodeURIComponent(`KeelForkOf="${workflowId}"`)}`;
  if (lineage?.kind !== 'fork') return { forks };
  return { original: `${workflows}/${encodeURIComponent(lineage.of)}`, forks };
}
