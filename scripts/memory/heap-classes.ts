/** A V8 heap snapshot (the parts read here): nodes as flat numbers, described by `meta`. */
interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface HeapClass {
  name: string;
  count: number;
  /** Shallow sizes added up: what the objects themselves take, not what they keep alive. */
  bytes: number;
}

/**
 * The heap's objects grouped by class (constructor name for objects, the node type for strings,
 * code, arrays…), largest first: enough to tell a workflow's state from the SDK's machinery.
 */
export function heapClassesByName(snapshot: HeapSnapshot): HeapClass[] {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const classes = new Map<string, HeapClass>();
  for (let offset = 0; offset < snapshot.nodes.length; offset += width) {
    const type = types[snapshot.nodes[offset + typeAt] ?? 0] ?? 'unknown';
    const name =
      type === 'object' || type === 'closure'
        ? `${type === 'closure' ? 'closure ' : ''}${snapshot.strings[snapshot.nodes[offset + nameAt] ?? 0] ?? ''}`
        : `(${type})`;
    const entry = classes.get(name) ?? { name, count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += snapshot.nodes[offset + sizeAt] ?? 0;
    classes.set(name, entry);
  }
  return [...classes.values()].sort((a, b) => b.bytes - a.bytes);
}
