/**
 * What rewind and fork cost (issue 48): the time to read and replay a recorded goal's history up
 * to a fork's state (what `keel fork` does before it starts the new goal), and what workspace
 * checkpoints store per turn against the bytes the turn changed, each beside a floor measured in
 * the same run (a plain replay of the same history; a full copy of the workspace per turn).
 */
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { captureTurn } from '../../src/client/fork/replay-capture';
import { takeCheckpoint, storeBytes } from '../../src/activities/checkpoints/checkpoint-store';
import type { BenchEnvironment } from './bench-environment';
import { spread, type Spread } from './stats';

export interface ForkCaptureResult {
  calls: number;
  runs: number;
  events: number;
  /** The events of the one run replayed (the run holding the turn). */
  replayedEvents: number;
  turn: number;
  /** Listing the runs, fetching and decoding their histories and replaying the run holding the turn. */
  captureMs: number;
  /** The state a fork at that turn starts from, as JSON. */
  stateBytes: number;
}

/** A fork at the middle turn of the recorded goal, to the point where the new goal would be started. */
export async function measureForkCapture(
  environment: BenchEnvironment,
  recorded: { workflowId: string; calls: number },
  bundle: string | undefined,
): Promise<ForkCaptureResult> {
  const turn = Math.max(1, Math.floor(recorded.calls / 2));
  const started = performance.now();
  const capture = await captureTurn(environment.client, recorded.workflowId, turn, bundle);
  const captureMs = performance.now() - started;
  if (capture.captured === undefined) throw new Error(`turn ${turn} of the recorded goal was not captured`);
  return {
    calls: recorded.calls,
    runs: capture.runs,
    events: capture.events,
    replayedEvents: capture.replayedEvents,
    turn,
    captureMs,
    stateBytes: Buffer.byteLength(JSON.stringify(capture.captured.state)),
  };
}

export interface CheckpointCostResult {
  files: number;
  fileBytes: number;
  turns: number;
  /** The bytes each turn changed (an edit and a new file), and what its checkpoint stored. */
  changedBytesPerTurn: number;
  storedBytesPerTurn: Spread;
  firstCheckpointBytes: number;
  checkpointMs: Spread;
  /** The floor: copying the whole workspace, as a checkpoint without deduplication would. */
  fullCopyMs: Spread;
  storeBytes: number;
}

/** A workspace of `files` files; each turn edits one file and adds one, then takes its checkpoint. */
export async function measureCheckpointCost(
  directory: string,
  turns: number,
  files = 500,
): Promise<CheckpointCostResult> {
  const workspace = path.join(directory, 'ws');
  const store = path.join(directory, 'store');
  const copies = path.join(directory, 'copies');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  const fileBytes = 2048;
  for (let index = 0; index < files; index += 1) {
    await writeFile(path.join(workspace, 'src', `file-${index}.txt`), `${index}`.padEnd(fileBytes, '.'));
  }
  const first = await takeCheckpoint({ store, goalId: 'bench', workspace, turn: 1 });
  const stored: number[] = [];
  const taking: number[] = [];
  const copying: number[] = [];
  const newFileBytes = 1024;
  const editBytes = 100;
  for (let turn = 2; turn <= turns + 1; turn += 1) {
    const edited = path.join(workspace, 'src', `file-${turn % files}.txt`);
    const content = await readFile(edited, 'utf8');
    await writeFile(edited, `${`turn ${turn}`.padEnd(editBytes, '#')}${content.slice(editBytes)}`);
    await writeFile(path.join(workspace, `new-${turn}.txt`), `${turn}`.padEnd(newFileBytes, '+'));
    let started = performance.now();
    const taken = await takeCheckpoint({ store, goalId: 'bench', workspace, turn });
    taking.push(performance.now() - started);
    stored.push(taken.storedBytes);
    started = performance.now();
    await cp(workspace, path.join(copies, String(turn)), { recursive: true });
    copying.push(performance.now() - started);
    await rm(path.join(copies, String(turn)), { recursive: true, force: true });
  }
  return {
    files,
    fileBytes,
    turns,
    changedBytesPerTurn: fileBytes + newFileBytes,
    storedBytesPerTurn: spread(stored),
    firstCheckpointBytes: first.storedBytes,
    checkpointMs: spread(taking),
    fullCopyMs: spread(copying),
    storeBytes: await storeBytes(store),
  };
}

const number = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function forkMarkdown(
  capture: ForkCaptureResult | { skipped: string } | undefined,
  checkpoints: CheckpointCostResult | { skipped: string } | undefined,
  replayMs: number | undefined,
): string[] {
  const lines: string[] = [];
  if (capture && 'skipped' in capture) lines.push(`- Fork of a long goal: skipped (${capture.skipped}).`);
  else if (capture) {
    const floor =
      replayMs === undefined
        ? ''
        : `; × a plain replay of every run of the same history: ${number(capture.captureMs / replayMs, 2)}`;
    lines.push(
      `- Fork of the recorded ${capture.calls.toLocaleString('en')}-call goal at turn ${capture.turn} (${capture.runs} runs, ${capture.events} events; the run holding the turn replayed, ${capture.replayedEvents} events): reading its histories and replaying to the state of the turn took **${number(capture.captureMs / 1000, 2)} s** (target < 10 s)${floor}; that state is ${kb(capture.stateBytes)}.`,
    );
  }
  if (checkpoints && 'skipped' in checkpoints)
    lines.push(`- Workspace checkpoints: skipped (${checkpoints.skipped}).`);
  else if (checkpoints) {
    const stored = checkpoints.storedBytesPerTurn.median;
    lines.push(
      `- Workspace checkpoints, ${checkpoints.files} files of ${kb(checkpoints.fileBytes)}, ${checkpoints.turns} turns each changing one file and adding one (${kb(checkpoints.changedBytesPerTurn)} changed): stored per turn ${kb(stored)} median (${number(stored / checkpoints.changedBytesPerTurn, 2)}× the bytes changed; the first checkpoint ${kb(checkpoints.firstCheckpointBytes)}, the whole store ${kb(checkpoints.storeBytes)}); a checkpoint took ${number(checkpoints.checkpointMs.median, 1)} ms median (${number(checkpoints.checkpointMs.min, 1)}–${number(checkpoints.checkpointMs.max, 1)}), ${number(checkpoints.checkpointMs.median / checkpoints.fullCopyMs.median, 2)}× a full copy of the workspace (${number(checkpoints.fullCopyMs.median, 1)} ms), the floor a checkpoint without deduplication would cost.`,
    );
  }
  return lines;
}
