import { temporal } from '@temporalio/proto';

/**
 * Custom search attributes keel keeps current on every goal, so the Web UI can filter goals
 * (e.g. `KeelPendingApprovals > 0`). The dev server keel starts registers them at start; on any
 * other server the worker registers the missing ones through the operator service
 * (ensureKeelSearchAttributes), and docs/configuration.md shows the `temporal operator search-attribute
 * create` commands for clusters where a worker may not.
 *
 * SQL visibility stores (the dev server's SQLite among them) allow only three custom Int
 * attributes per namespace, so priority, the fourth number, is a Double.
 */
export const KEEL_SEARCH_ATTRIBUTES = {
  KeelStatus: 'Keyword',
  KeelPhase: 'Keyword',
  KeelToolCalls: 'Int',
  KeelPlanAttempt: 'Int',
  KeelPendingApprovals: 'Int',
  KeelPriority: 'Double',
  /** The goal's workspace host: `keel hosts` and the host watcher find the running goals bound to each. */
  KeelHost: 'Keyword',
  /** What the goal spent in USD, its children's spend included (Web UI: `KeelCostUsd > 1`). */
  KeelCostUsd: 'Double',
  /** The goal a fork or rewind came from, set by the client that starts it (Web UI: `KeelForkOf = "goal-x"`). */
  KeelForkOf: 'Keyword',
} as const;

/** The name clients query goals by their workspace host with. */
export const KEEL_HOST_SEARCH_ATTRIBUTE = 'KeelHost' satisfies keyof typeof KEEL_SEARCH_ATTRIBUTES;

type AttributeType = (typeof KEEL_SEARCH_ATTRIBUTES)[keyof typeof KEEL_SEARCH_ATTRIBUTES];
const { IndexedValueType } = temporal.api.enums.v1;
const INDEXED_TYPE: Record<AttributeType, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
};

/** Both the client's Connection and the worker's NativeConnection have one. */
export interface OperatorConnection {
  operatorService: temporal.api.operatorservice.v1.OperatorService;
}

export const SEARCH_ATTRIBUTES_ERROR = 'KeelSearchAttributesError';

/** One line: which attributes, which namespace, what went wrong and the command that fixes it. */
export class SearchAttributesError extends Error {
  override readonly name = SEARCH_ATTRIBUTES_ERROR;
}

export type SearchAttributesCheck =
  | { outcome: 'present' }
  | { outcome: 'registered'; names: string[] }
  /** The server would not say (e.g. no permission to list): keel cannot tell, and goes on. */
  | { outcome: 'unknown'; reason: string };

/**
 * Makes sure keel's search attributes exist in `namespace`, registering the missing ones. Without
 * them every goal's first upsert fails its workflow task (BadSearchAttributes) and the goal hangs
 * at "thinking", so a worker checks before it polls. Throws SearchAttributesError when one exists
 * with another type or the missing ones cannot be registered.
 */
export async function ensureKeelSearchAttributes(options: {
  connection: OperatorConnection;
  namespace: string;
  /** How long to wait for newly registered attributes to be listed (default 15 s). */
  timeoutMs?: number;
}): Promise<SearchAttributesCheck> {
  const { connection, namespace } = options;
  let existing: Record<string, temporal.api.enums.v1.IndexedValueType>;
  try {
    existing = await listCustom(connection, namespace);
  } catch (error) {
    return { outcome: 'unknown', reason: firstLine(error) };
  }
  const wrong = Object.entries(KEEL_SEARCH_ATTRIBUTES).filter(
    ([name, type]) => existing[name] !== undefined && existing[name] !== INDEXED_TYPE[type],
  );
  if (wrong.length > 0) {
    const names = wrong.map(([name, type]) => `${name} (keel needs ${type})`).join(', ');
    throw new SearchAttributesError(
      `search attributes ${names} exist in namespace ${namespace} with another type: remove them or use another namespace`,
    );
  }
  const missing = Object.entries(KEEL_SEARCH_ATTRIBUTES).filter(([name]) => existing[name] === undefined);
  if (missing.length === 0) return { outcome: 'present' };
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_TYPE[type]])),
    });
  } catch (error) {
    // Another worker starting at the same moment may have registered them first (AlreadyExists).
    const now = await listCustom(connection, namespace).catch(() => existing);
    if (missing.every(([name, type]) => now[name] === INDEXED_TYPE[type])) return { outcome: 'present' };
    const names = missing.map(([name]) => name).join(', ');
    throw new SearchAttributesError(
      `search attributes ${names} are missing in namespace ${namespace} and keel could not register them ` +
        `(${firstLine(error)}); create them as docs/configuration.md shows under "Search attributes on other clusters", ` +
        `e.g. temporal operator search-attribute create --namespace ${namespace} --name ${missing[0]?.[0] ?? ''} --type ${missing[0]?.[1] ?? ''}`,
    );
  }
  await waitUntilListed(
    connection,
    namespace,
    missing.map(([name]) => name),
    options.timeoutMs ?? 15_000,
  );
  return { outcome: 'registered', names: missing.map(([name]) => name) };
}

async function listCustom(
  connection: OperatorConnection,
  namespace: string,
): Promise<Record<string, temporal.api.enums.v1.IndexedValueType>> {
  const response = await connection.operatorService.listSearchAttributes({ namespace });
  return response.customAttributes ?? {};
}

/** Registration is asynchronous on some servers: goals may upsert only once the server lists them. */
async function waitUntilListed(
  connection: OperatorConnection,
  namespace: string,
  names: string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await listCustom(connection, namespace);
    if (names.every((name) => listed[name] !== undefined)) return;
    if (Date.now() > deadline) {
      throw new SearchAttributesError(
        `registered search attributes ${names.join(', ')} in namespace ${namespace}, but the server did not list them within ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
