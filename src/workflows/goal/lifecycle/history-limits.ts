/**
 * When a goal hands its run over to a new one (continue-as-new). Temporal suggests it once a
 * run's history reaches its own limits (4,096 events or 4 MB by default), but a turn that is
 * under way when the suggestion comes still adds its events, so runs ended just over 4,096.
 * keel hands over a little earlier, at its own softer limits, so every run stays under Temporal's
 * with room for the turn in progress. Pure: the inputs are Temporal's workflow info, which
 * replays exactly as recorded.
 */
/** A few hundred events of room for the turn in progress (a turn of five calls is ~20). */
export const HISTORY_EVENTS_SOFT_LIMIT = 3_500;
/** Well under the 4 MB suggestion, a turn's payloads included (each is bounded). */
export const HISTORY_BYTES_SOFT_LIMIT = 3 * 1024 * 1024;

export function timeForNewRun(info: {
  continueAsNewSuggested: boolean;
  historyLength: number;
  historySize: number;
}): boolean {
  if (info.continueAsNewSuggested) return true;
  return info.historyLength >= HISTORY_EVENTS_SOFT_LIMIT || info.historySize >= HISTORY_BYTES_SOFT_LIMIT;
}

/**
 * A turn parked on humans moves to a new run once its run is this long. A parked goal is the one
 * a bounded workflow cache evicts first, and its decision may come days later: the worker then
 * replays the whole current run before the call can go on (about 1.5 ms an event, most of it the
 * SDK's per-promise stack capture). A run of a few hundred events replays in well under a second,
 * whatever the goal did before; a goal that parks in a short run is left as it is.
 */
export const PARKED_RUN_EVENTS_LIMIT = 200;
/**
 * How long a turn stays parked before it moves: an answer within it (a script, a human watching)
 * costs no hand-over; an eviction happens under load, long after a goal parked.
 */
export const PARKED_HANDOVER_DELAY_MS = 10_000;

export function timeToHandOverParkedTurn(info: {
  continueAsNewSuggested: boolean;
  historyLength: number;
  historySize: number;
}): boolean {
  return timeForNewRun(info) || info.historyLength >= PARKED_RUN_EVENTS_LIMIT;
}
