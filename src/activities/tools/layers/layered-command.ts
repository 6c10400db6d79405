import type { ToolOutcome, WorkspaceEffects } from '../../../workflows/tools/tool-outcome';
import { effectsText, overlappingEffects } from '../../../workflows/principles/denied-effects';
import { changeListOversize, listedForTheResult } from './change-list-size';
import { describeRefusals, refusalsInOneLine } from '../../../workflows/tools/workspace-change-policy';
import type { ShellProcessResult } from '../shell-process';
import { escalation, failure } from '../tool-outcomes';
import { withWorkspaceLock } from '../workspace-access/workspace-lock';
import { applyOperations, changedSinceCapture } from './apply-layer';
import type { CapturedLayer } from './layer-capture';
import { CallLayer, type LayerRecord } from './layer-record';
import { networkSetupFailure } from '../sandbox/network-isolation';
import { runInLayer } from './run-in-layer';
import { heldDiff } from './held-diff';

export type LayeredCommandResult =
  | { readonly kind: 'outcome'; readonly outcome: ToolOutcome }
  /** No layer could be mounted here: the caller decides (ask a human, or run it straight). */
  | { readonly kind: 'no-layer'; readonly reason: string };

/**
 * One run_command call on a copy-on-write layer, start to end, at most once per call key:
 * run the command on the layer, take stock of what it changed, then apply the changes, hold
 * them for a human (a change an unapproved call may not make, see workspace-change-policy.ts)
 * or discard them (the command timed out, or the workspace changed under it). A retried attempt
 * answers from the layer's record instead of running the command again.
 */
export async function runLayeredCommand(
  options: Omit<Parameters<typeof runInLayer>[0], 'layer'> & {
    callKey: string;
    approved: boolean;
    /** Paths a human's denials in this goal cover (denied-effects.ts): changes to them are held. */
    deniedEffects?: readonly string[];
    /** The result the model reads once the layer's fate is known (run-command.ts knows its shape). */
    outcomeOf: (
      result: ShellProcessResult,
      effects: WorkspaceEffects | undefined,
      note: string,
    ) => Promise<ToolOutcome>;
  },
): Promise<LayeredCommandResult> {
  const layer = new CallLayer(options.workspace, options.callKey);
  return withWorkspaceLock(options.workspace, async () => {
    const earlier = await layer.read();
    const answered = await answerFromRecord(layer, earlier);
    if (answered !== undefined) return { kind: 'outcome', outcome: answered };

    await layer.write({ state: 'running', operations: [], baseline: [] });
    const run = await runInLayer({ ...options, layer });
    if (!run.mounted) {
      // Nothing ran: no record is left, so a later attempt of this call (approved, say) starts over.
      await layer.forget();
      const why = run.result.stderr.toString().trim().split('\n')[0] ?? '';
      return {
        kind: 'no-layer',
        reason: `a copy-on-write layer could not be mounted${why === '' ? '' : ` (${why})`}`,
      };
    }
    // A granted network that could not be set up: the command never started ("not run", typed).
    const setupFailure = options.network ? networkSetupFailure(run.result) : undefined;
    if (setupFailure !== undefined) {
      await layer.forget();
      throw setupFailure;
    }
    if (run.overLimit !== undefined) {
      const note = `Its changes were discarded whole, none applied: ${run.overLimit}. Nothing of it reached the workspace.`;
      return {
        kind: 'outcome',
        outcome: await discard(layer, overLimitFailure(await options.outcomeOf(run.result, undefined, note))),
      };
    }
    if (run.capture === undefined) {
      const note =
        run.captureError === undefined
          ? 'Its changes were discarded: nothing of it reached the workspace.'
          : `keel could not read what it changed (${run.captureError}), so none of its changes were kept.`;
      return {
        kind: 'outcome',
        outcome: await discard(layer, await options.outcomeOf(run.result, undefined, note)),
      };
    }
    const capture = run.capture;
    const applied = await options.outcomeOf(
      run.result,
      listedForTheResult(capture.effects),
      privilegeNote(capture.privilegeNotes),
    );
    // A change a tier allows (an edit) is still held when it touches what a human refused: after
    // `rm -rf build` was denied, `truncate -s0 build/a.txt` or `python3 wipe.py` empties build/.
    const refused = options.approved ? [] : deniedChanges(capture, options.deniedEffects, options.workspace);
    const holds = !options.approved && (capture.refusals.length > 0 || refused.length > 0);
    // A held set is listed whole for its approver: one too long to review goes whole, unapplied.
    const oversize = holds ? changeListOversize(capture.effects) : undefined;
    if (oversize !== undefined) {
      const note = `Its changes were discarded whole, none applied: ${oversize}. Nothing of it reached the workspace.`;
      return {
        kind: 'outcome',
        outcome: await discard(layer, overLimitFailure(await options.outcomeOf(run.result, undefined, note))),
      };
    }
    if (holds) {
      const held = escalation({
        content: [
          // The effects are not part of the content (formatToolResult adds them): the same text.
          applied.content,
          `Its changes are held, not applied: a call no human approved may not make them.`,
          ...(capture.refusals.length > 0 ? [describeRefusals(capture.refusals)] : []),
          ...(refused.length > 0 ? [deniedText(refused)] : []),
        ].join('\n'),
        reason: [
          ...(capture.refusals.length > 0
            ? [`its changes go beyond a mutating call: ${refusalsInOneLine(capture.refusals)}`]
            : []),
          ...(refused.length > 0 ? [deniedText(refused)] : []),
        ].join('; '),
        held: { changes: capture.effects, ...(await heldDiffOf(layer, capture)) },
      });
      await layer.write({
        state: 'held',
        operations: capture.operations,
        baseline: capture.baseline,
        outcome: applied,
        held,
      });
      return { kind: 'outcome', outcome: held };
    }
    return { kind: 'outcome', outcome: await apply(layer, capture, applied) };
  });
}

/**
 * The paths the layer would change that a human's denial covers. Every path applying it would
 * remove or put in place counts, not only those listed to the model (the list may be cut short).
 */
function deniedChanges(
  capture: Pick<CapturedLayer, 'operations'>,
  denied: readonly string[] | undefined,
  workspace: string,
): string[] {
  if (denied === undefined || denied.length === 0) return [];
  const changed = capture.operations
    .filter((operation) => operation.op !== 'directory')
    .map((operation) => operation.path);
  return [...new Set(overlappingEffects(changed, denied, workspace))];
}

/** The held changes as a diff for the approver; a diff that cannot be read is left out, not a failure. */
async function heldDiffOf(layer: CallLayer, capture: Pick<CapturedLayer, 'operations'>) {
  const diff = await heldDiff({
    operations: capture.operations,
    upper: layer.directories.upper,
    workspace: layer.workspace,
  }).catch(() => undefined);
  return diff === undefined ? {} : { diff };
}

function deniedText(paths: readonly string[]): string {
  return `it would change ${effectsText(paths)}, which a human refused: a denial covers those effects through any command`;
}

/** A human approved a held layer: apply it (unless the workspace changed under it). */
export async function applyHeldLayer(options: { workspace: string; callKey: string }): Promise<ToolOutcome> {
  const layer = new CallLayer(options.workspace, options.callKey);
  return withWorkspaceLock(options.workspace, async () => {
    const record = await layer.read();
    if (record?.state === 'held' && record.outcome !== undefined) {
      return apply(layer, record, record.outcome);
    }
    return (await answerFromRecord(layer, record)) ?? lostLayer();
  });
}

/** A human denied a held layer (or it timed out): its changes go, and never reach the workspace. */
export async function discardHeldLayer(options: { workspace: string; callKey: string }): Promise<void> {
  const layer = new CallLayer(options.workspace, options.callKey);
  await withWorkspaceLock(options.workspace, async () => {
    const record = await layer.read();
    if (record?.state !== 'held') return;
    await layer.dropLayer();
    await layer.write({
      state: 'discarded',
      operations: [],
      baseline: [],
      ...(record.outcome ? { outcome: record.outcome } : {}),
    });
  });
}

/** What an earlier attempt of the same call left: its answer, a half-done apply to finish, or nothing. */
async function answerFromRecord(
  layer: CallLayer,
  record: LayerRecord | undefined,
): Promise<ToolOutcome | undefined> {
  if (record === undefined || record.state === 'running') return undefined;
  if (record.state === 'held') return record.held ?? lostLayer();
  if (record.state === 'applying') {
    await applyOperations({
      workspace: layer.workspace,
      upper: layer.directories.upper,
      operations: record.operations,
    });
    await finish(layer, record.outcome);
  }
  if (record.outcome === undefined) return lostLayer();
  return {
    ...record.outcome,
    content: `(Not run again: an earlier attempt of this call ran it; this is its recorded result.)\n${record.outcome.content}`,
  };
}

async function apply(
  layer: CallLayer,
  capture: Pick<CapturedLayer, 'operations' | 'baseline'>,
  outcome: ToolOutcome,
): Promise<ToolOutcome> {
  const changed = await changedSinceCapture(layer.workspace, capture.baseline);
  if (changed.length > 0) {
    return discard(
      layer,
      failure({
        content: `${outcome.content}\nIts changes were not applied: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ` and ${changed.length - 5} more` : ''} changed in the workspace meanwhile (another call or process), and applying over them would undo that. Nothing of this call reached the workspace.`,
        candidates: ['Look at the workspace as it is now, then run the command again'],
        facts: outcome.facts,
      }),
    );
  }
  await layer.write({
    state: 'applying',
    operations: capture.operations,
    baseline: capture.baseline,
    outcome,
  });
  await applyOperations({
    workspace: layer.workspace,
    upper: layer.directories.upper,
    operations: capture.operations,
  });
  await finish(layer, outcome);
  return outcome;
}

async function finish(layer: CallLayer, outcome: ToolOutcome | undefined): Promise<void> {
  await layer.write({ state: 'applied', operations: [], baseline: [], ...(outcome ? { outcome } : {}) });
  await layer.dropLayer();
}

async function discard(layer: CallLayer, outcome: ToolOutcome): Promise<ToolOutcome> {
  await layer.dropLayer();
  await layer.write({ state: 'discarded', operations: [], baseline: [], outcome });
  return outcome;
}

function lostLayer(): ToolOutcome {
  return failure({
    content:
      "This call's held changes are gone (the worker lost its layer, or it was removed after a week), so nothing was applied.",
    candidates: ['Look at the workspace as it is now, then run the command again'],
  });
}

/**
 * A layer never grants privileges (layer-capture.ts strips setuid, setgid and sticky bits and
 * foreign owners): the model is told, or it would believe the helper it made setuid is.
 */
export function privilegeNote(notes: readonly string[]): string {
  if (notes.length === 0) return '';
  const shown = notes.slice(0, PRIVILEGE_NOTES_SHOWN);
  const more = notes.length - shown.length;
  return `A call grants no privileges, so keel took them off what it changed: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`;
}

const PRIVILEGE_NOTES_SHOWN = 10;

/** Whatever the command's exit, a call whose layer went over a limit failed: nothing of it applies. */
function overLimitFailure(outcome: ToolOutcome): ToolOutcome {
  return failure({
    content: outcome.content,
    candidates: [
      'Do the work in smaller steps, each writing less',
      'Ask a human to raise the limit (KEEL_LAYER_MAX_BYTES, KEEL_LAYER_MAX_ENTRIES, KEEL_COMMAND_MAX_FILE_SIZE) if the task needs it',
    ],
    facts: outcome.facts,
  });
}
