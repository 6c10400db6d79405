/* eslint-disable @typescript-eslint/no-require-imports -- loading on first use is this file's purpose */
import type * as GoalClient from '../client/goal-client';
import type * as DecisionDelivery from '../client/decision-delivery';
import type * as GoalRecord from '../client/goal-record';
import type * as WorkerAnswer from '../client/worker-answer';
import type * as PendingCalls from '../client/pending-calls';
import type * as HostBindingClient from '../client/host-binding-client';
import type * as Hosts from '../client/hosts';
import type * as Worker from '../worker';
import type * as WorkerTools from '../client/worker-tools';
import type * as FollowGoal from './follow-goal';
import type * as WatchView from './watch-view';

/**
 * The CLI's heavy dependencies, each loaded on its first call. Loading the Temporal SDK (client,
 * protobufs, gRPC) takes a few hundred milliseconds and the worker's twice that; `keel --help`,
 * `keel keygen` and a rejected argument need none of it, and each command loads only what it uses.
 * The names and types are the modules' own, so commands read as if they imported them directly.
 */

/** The module, required once on first use (require caches it; the closure saves the lookup). */
function onFirstUse<Module>(load: () => Module): () => Module {
  let loaded: Module | undefined;
  return () => (loaded ??= load());
}

const goalClient = onFirstUse(() => require('../client/goal-client') as typeof GoalClient);
const decisionDelivery = onFirstUse(() => require('../client/decision-delivery') as typeof DecisionDelivery);
const goalRecord = onFirstUse(() => require('../client/goal-record') as typeof GoalRecord);
const workerAnswer = onFirstUse(() => require('../client/worker-answer') as typeof WorkerAnswer);
const pendingCalls = onFirstUse(() => require('../client/pending-calls') as typeof PendingCalls);
const hostBindingClient = onFirstUse(
  () => require('../client/host-binding-client') as typeof HostBindingClient,
);
const worker = onFirstUse(() => require('../worker') as typeof Worker);
const hosts = onFirstUse(() => require('../client/hosts') as typeof Hosts);
const workerToolsModule = onFirstUse(() => require('../client/worker-tools') as typeof WorkerTools);
const followGoalModule = onFirstUse(() => require('./follow-goal') as typeof FollowGoal);
const watchView = onFirstUse(() => require('./watch-view') as typeof WatchView);

export const connectClient: typeof GoalClient.connectClient = (...args) =>
  goalClient().connectClient(...args);
export const decideApproval: typeof GoalClient.decideApproval = (...args) =>
  goalClient().decideApproval(...args);
export const decideApprovals: typeof GoalClient.decideApprovals = (...args) =>
  goalClient().decideApprovals(...args);
export const addApprovalRule: typeof GoalClient.addApprovalRule = (...args) =>
  goalClient().addApprovalRule(...args);
export const revokeApprovalRule: typeof GoalClient.revokeApprovalRule = (...args) =>
  goalClient().revokeApprovalRule(...args);
export const approvalRules: typeof GoalClient.approvalRules = (...args) =>
  goalClient().approvalRules(...args);
export const closedGoalStatus: typeof GoalClient.closedGoalStatus = (...args) =>
  goalClient().closedGoalStatus(...args);
export const goalHandle: typeof GoalClient.goalHandle = (...args) => goalClient().goalHandle(...args);
export const goalStatus: typeof GoalClient.goalStatus = (...args) => goalClient().goalStatus(...args);
export const listRunningGoals: typeof GoalClient.listRunningGoals = (...args) =>
  goalClient().listRunningGoals(...args);
export const sendUserMessage: typeof GoalClient.sendUserMessage = (...args) =>
  goalClient().sendUserMessage(...args);
export const submitReview: typeof GoalClient.submitReview = (...args) => goalClient().submitReview(...args);
export const startGoal: typeof GoalClient.startGoal = (...args) => goalClient().startGoal(...args);

export const deliverDecision: typeof DecisionDelivery.deliverDecision = (...args) =>
  decisionDelivery().deliverDecision(...args);
export const deliverBulkDecision: typeof DecisionDelivery.deliverBulkDecision = (...args) =>
  decisionDelivery().deliverBulkDecision(...args);
export const goalRecordOf: typeof GoalRecord.goalRecordOf = (...args) => goalRecord().goalRecordOf(...args);
export const goalRecordOfListing: typeof GoalRecord.goalRecordOfListing = (...args) =>
  goalRecord().goalRecordOfListing(...args);
export const modelActivity: typeof GoalRecord.modelActivity = (...args) =>
  goalRecord().modelActivity(...args);
export const askWorker: typeof WorkerAnswer.askWorker = (...args) => workerAnswer().askWorker(...args);
export const workersMayAnswer: typeof WorkerAnswer.workersMayAnswer = (...args) =>
  workerAnswer().workersMayAnswer(...args);

export const awaitHostBinding: typeof HostBindingClient.awaitHostBinding = (...args) =>
  hostBindingClient().awaitHostBinding(...args);
export const rebindHost: typeof HostBindingClient.rebindHost = (...args) =>
  hostBindingClient().rebindHost(...args);

export const runWorker: typeof Worker.runWorker = (...args) => worker().runWorker(...args);

export const hostsServing: typeof Hosts.hostsServing = (...args) => hosts().hostsServing(...args);
export const hostSightings: typeof Hosts.hostSightings = (...args) => hosts().hostSightings(...args);
export const hostsToAsk: typeof Hosts.hostsToAsk = (...args) => hosts().hostsToAsk(...args);
export const workerTools: typeof WorkerTools.workerTools = (...args) =>
  workerToolsModule().workerTools(...args);

export const followGoal: typeof FollowGoal.followGoal = (...args) => followGoalModule().followGoal(...args);
export const describeResult: typeof FollowGoal.describeResult = (...args) =>
  followGoalModule().describeResult(...args);

export const watchCommandAction: typeof WatchView.watchCommandAction = (...args) =>
  watchView().watchCommandAction(...args);
export const runningGoals: typeof PendingCalls.runningGoals = (...args) =>
  pendingCalls().runningGoals(...args);
export const statusOfEach: typeof PendingCalls.statusOfEach = (...args) =>
  pendingCalls().statusOfEach(...args);
