import type { LedgerSink } from './ledger-sink';

export const STDOUT_SINK_NAME = 'stdout';

export interface StdoutSinkOptions {
  /** Receives one JSON line, without its newline; the worker's standard output by default. */
  write?: (line: string) => void;
}

/**
 * One JSON object per event, `{workflowId, ...event}`, one per line, so log shippers and `jq`
 * read the worker's output without a parser for batches.
 */
export function createStdoutSink(options: StdoutSinkOptions = {}): LedgerSink {
  const write =
    options.write ??
    ((line: string) => {
      process.stdout.write(`${line}\n`);
    });
  return {
    name: STDOUT_SINK_NAME,
    publish({ workflowId, events }) {
      return new Promise<void>((resolve) => {
        for (const event of events) write(JSON.stringify({ workflowId, ...event }));
        resolve();
      });
    },
  };
}
