/** Keel's search attributes registered on the server before the worker polls. */
import type { NativeConnection } from '@temporalio/worker';
import { ensureKeelSearchAttributes } from '../dev-server/search-attributes';
import { workerLog } from './worker-log';

/**
 * Goals upsert keel's search attributes; on a server without them (a plain `temporal server
 * start-dev`) every goal would hang on BadSearchAttributes. So the worker registers the missing
 * ones before it polls, and stops with one line when it cannot.
 */
export async function registerSearchAttributes(options: { connection: NativeConnection; namespace: string }) {
  const check = await ensureKeelSearchAttributes({
    connection: options.connection,
    namespace: options.namespace,
  });
  if (check.outcome === 'registered')
    workerLog.info(
      `registered search attributes ${check.names.join(', ')} in namespace ${options.namespace}`,
    );
  if (check.outcome === 'unknown')
    workerLog.warn(
      `cannot check keel's search attributes in namespace ${options.namespace} (${check.reason}); goals hang if they are missing`,
    );
}
