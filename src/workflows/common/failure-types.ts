/**
 * Stable names of keel's non-retryable failures, matched across the workflow/activity boundary
 * and by clients (`ApplicationFailure.type`).
 */
export const FailureType = {
  InvalidGoalInput: 'InvalidGoalInput',
  InvalidGoalState: 'InvalidGoalState',
  ModelBadRequest: 'ModelBadRequest',
  ModelAuthentication: 'ModelAuthentication',
  ModelPermissionDenied: 'ModelPermissionDenied',
  ModelNotFound: 'ModelNotFound',
  ModelUnprocessable: 'ModelUnprocessable',
  ModelResponseInvalid: 'ModelResponseInvalid',
  /**
   * The model API stayed unavailable (429, 529, 5xx, lost connections, silent streams) for the
   * goal's whole patience (model.patienceMs): the goal fails with this type, its message saying
   * how long it waited and the last error.
   */
  ModelUnavailable: 'ModelUnavailable',
  /**
   * The account cannot pay: a 402 billing_error, or a 429 with error_code
   * enforced_spend_limit_reached. No retry helps before someone pays or the limit resets.
   */
  ModelSpendLimitReached: 'ModelSpendLimitReached',
  /**
   * The request is longer than the model's context window ("prompt is too long", or 413): the
   * workflow trims the context harder and asks once more, then fails the goal with this type.
   */
  ModelContextTooLong: 'ModelContextTooLong',
  /** The model declined to go on (stop reason "refusal"): the goal fails with this type. */
  ModelRefused: 'ModelRefused',
  WorkspaceMissing: 'WorkspaceMissing',
  /** A fork's or rewind's files cannot be restored: its turn's checkpoints are gone (retention) or damaged. */
  CheckpointUnavailable: 'CheckpointUnavailable',
  /** A fork or rewind asked by Update that cannot be: no such turn, a workspace inside the original's. */
  ForkRefused: 'ForkRefused',
  /** The goal's tool patterns match no tool the worker has. */
  UnknownTools: 'UnknownTools',
  /** A `decideApproval` Update refused: unknown or decided call, unauthorized approver, bad signature. */
  ApprovalRefused: 'ApprovalRefused',
  /**
   * An irreversible call began (its journal says so) but no outcome was recorded: it may or may
   * not have taken effect, so it is reported, never run again.
   */
  OutcomeUnknown: 'OutcomeUnknown',
  /** The goal ended without reaching its goal (e.g. every plan attempt failed); details: the result. */
  GoalFailed: 'GoalFailed',
  /** The goal hit its turn or tool-call limit; details: the result. */
  GoalLimitReached: 'GoalLimitReached',
  /** The goal spent a budget (principle 4); details: the result. */
  GoalBudgetExhausted: 'GoalBudgetExhausted',
  /** Its output was rejected by the review (human or LLM judge); details: the result. */
  GoalRejected: 'GoalRejected',
  /** A hard guard stopped the goal (a loop, no progress, ignored checkpoints); details: the result. */
  GoalStuck: 'GoalStuck',
  /** A host cannot make the goal's workspace: outside its roots, a file in the way, or git failed. */
  WorkspaceUnpreparable: 'WorkspaceUnpreparable',
  /** A workspace activity reached a host other than the one the goal is bound to. */
  WrongHost: 'WrongHost',
  /** The host asked for (e.g. `keel run --host`, `keel rebind --host`) polls no keel queue. */
  UnknownHost: 'UnknownHost',
  /** No host serving the task queue has the goal's workspace, and it has no source to clone. */
  WorkspaceNotFound: 'WorkspaceNotFound',
  /**
   * The goal's workspace lies inside, or contains, a running goal's workspace on its host (or
   * inside keel's state): workspaces never nest, so no goal reaches another's held changes.
   */
  WorkspaceNested: 'WorkspaceNested',
  /**
   * A model turn extends a stored request the worker's store does not have (another machine's
   * store, or pruned): nothing was sent to the model, and the workflow sends the request whole.
   */
  ModelRequestMissing: 'ModelRequestMissing',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Model errors Temporal retries with backoff (they are thrown with these types). */
export const RetryableModelFailureType = {
  RateLimited: 'ModelRateLimited',
  Overloaded: 'ModelOverloaded',
  ServerError: 'ModelServerError',
  Timeout: 'ModelTimeout',
  Conflict: 'ModelConflict',
  Connection: 'ModelConnectionError',
} as const;

export const NON_RETRYABLE_MODEL_FAILURES: readonly string[] = [
  FailureType.ModelBadRequest,
  FailureType.ModelAuthentication,
  FailureType.ModelPermissionDenied,
  FailureType.ModelNotFound,
  FailureType.ModelUnprocessable,
  FailureType.ModelResponseInvalid,
  FailureType.ModelSpendLimitReached,
  FailureType.ModelRequestMissing,
  FailureType.ModelContextTooLong,
];
