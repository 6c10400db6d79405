/**
 * Runs prepared calls through the executor with a time limit: one call, or several at once (a
 * race: repeated victims, a swapper, perhaps a host script) until the race window closes. A call
 * stuck past its time is recorded as hung; FIFOs are released so it can still finish.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { releaseFifosUntil } from './fifo-release';
import type { Fixture } from './fixture';
import { startHostScript } from './host-script';
import type { Step, ToolCall } from './security-case';
import type { EvaluatedExecuteInput, ObservedOutcome, ToolExecutor } from './tool-executor';

export interface CallRequest {
  readonly call: ToolCall;
  readonly input: EvaluatedExecuteInput;
}

export interface Execution {
  readonly outcome?: ObservedOutcome;
  readonly error?: string;
  /** It did not return within the time limit (it may have finished once FIFOs were released). */
  readonly hung: boolean;
  readonly attempts: number;
}

/** How long a hung call gets, FIFOs released, before the harness gives up waiting for it. */
const RELEASE_MILLISECONDS = 5000;
const DEFAULT_RACE_MILLISECONDS = 1500;
/** A repeated victim stops after this many attempts even if the window is still open. */
const MAX_ATTEMPTS = 20_000;

export async function executeOnce(
  tools: ToolExecutor,
  input: EvaluatedExecuteInput,
  root: string,
  timeoutMs: number,
): Promise<Execution> {
  const pending = tools.executeTool(input).then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
  const timer = new AbortController();
  const first = await Promise.race([
    pending,
    delay(timeoutMs, 'timeout' as const, { signal: timer.signal }).catch(() => 'timeout' as const),
  ]);
  if (first !== 'timeout') {
    timer.abort();
    return { ...first, hung: false, attempts: 1 };
  }
  const finished = await releaseFifosUntil(root, pending, RELEASE_MILLISECONDS);
  if (!finished) return { error: 'no answer, even with every FIFO released', hung: true, attempts: 1 };
  return { ...(await pending), hung: true, attempts: 1 };
}

/**
 * Starts every call of the step at once. Calls marked `repeat` run again and again while the
 * others (or the host script, for durationMs) are still going; of their attempts, the first
 * whose output `shows` something is kept, else the last.
 */
export async function executeTogether(options: {
  requests: readonly CallRequest[];
  step: Step;
  fixture: Fixture;
  tools: ToolExecutor;
  timeoutMs: number;
  shows: (execution: Execution) => boolean;
}): Promise<Execution[]> {
  const { requests, step, fixture, tools, timeoutMs } = options;
  const host =
    step.hostScript === undefined ? undefined : startHostScript(step.hostScript, fixture.workspace);
  let open = true;
  try {
    const runs = requests.map((request) =>
      request.call.repeat === true ? undefined : executeOnce(tools, request.input, fixture.root, timeoutMs),
    );
    const fixed = runs.filter((run): run is Promise<Execution> => run !== undefined);
    const window =
      fixed.length > 0 ? Promise.all(fixed) : delay(step.durationMs ?? DEFAULT_RACE_MILLISECONDS);
    void window.finally(() => {
      open = false;
    });
    const repeated = requests.map(async (request, index) => {
      const run = runs[index];
      if (run !== undefined) return run;
      let kept: Execution | undefined;
      let attempts = 0;
      let hung = false;
      do {
        const next = await executeOnce(tools, request.input, fixture.root, timeoutMs);
        attempts += 1;
        hung ||= next.hung;
        if (kept === undefined || !options.shows(kept)) kept = next;
      } while (open && attempts < MAX_ATTEMPTS);
      return { ...kept, hung, attempts };
    });
    await window;
    return await Promise.all(repeated);
  } finally {
    await host?.stop();
  }
}
