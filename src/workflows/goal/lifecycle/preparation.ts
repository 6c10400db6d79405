/**
 * A goal's first steps, before its first model turn: the workspace host, the tools, the worker's
 * defaults, notes from earlier runs, the first plan. A workspace no host has fails the goal here,
 * before any model call is paid for.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { userText } from '../../common/transcript';
import { initialPrinciplesState, resolveCadence } from '../../principles/principles';
import { harnessOffer } from '../tool-calls/turn';
import { modelToolDefinitions } from '../../tools/harness-tools';
import type { ToolCatalogue } from '../../tools/tool-catalogue';
import type { GoalHost } from '../host/binding';
import { goalMessage } from '../model-turn/prompts';
import { assertNamedToolOffered } from '../model-turn/request-options';
import type { GoalPlanning } from '../oversight/planning';
import type { GoalReflection } from '../oversight/reflection';
import type { GoalApprovalRules } from '../tool-calls/approval-rules';
import type { GoalVisibility } from '../views/visibility';
import type { ActivityProxies } from './activity-proxies';
import { describeFailure } from './failures';
import { GoalPhase, type GoalState } from './state';

export class GoalPreparation {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      readonly activities: ActivityProxies;
      readonly visibility: GoalVisibility;
      readonly host: GoalHost;
      readonly rules: GoalApprovalRules;
      readonly reflection: GoalReflection;
      readonly planning: GoalPlanning;
    },
  ) {}

  /** First run only; a failure's reason ends the goal as failed. */
  async prepare(): Promise<string | undefined> {
    const { state, activities, visibility, host, rules, reflection, planning } = this.goal;
    const config = state.config;
    await host.bind();
    const toolsFailure = await this.learnTools();
    if (toolsFailure) return toolsFailure;
    const defaults = await activities.startLookups.workerDefaults();
    state.workerDefaults = defaults;
    rules.seed(config.approvalRules, defaults.approvalRules);
    // A delegated child: its parent's rules and remembered denials hold here too.
    const parent = wf.workflowInfo().parent?.workflowId;
    rules.inherit(config.inherited?.rules, parent);
    if (parent !== undefined && (config.inherited?.rememberedDenials ?? []).length > 0)
      state.rememberedDenials = config.inherited?.rememberedDenials;
    state.principles = initialPrinciplesState(resolveCadence(config.principles, defaults.reflectionCadence));
    const withNotes = config.reflection.enabled ? await reflection.openingMessage() : undefined;
    state.transcript = [userText(withNotes ?? goalMessage(config))];
    visibility.record(LedgerEventKind.GoalStarted, `goal started: ${config.goal}`, {
      cadence: state.principles.cadence.base,
      notesApplied: state.reflection.notesApplied,
    });
    host.recordBinding();
    if (!config.planning.enabled) return undefined;
    state.phase = GoalPhase.Planning;
    visibility.show();
    const outcome = await planning.start();
    return outcome.kind === 'give-up' ? outcome.reason : undefined;
  }

  /**
   * Records the tools this goal may use, as the worker describes them now. From here on the goal
   * decides from this data alone, so a worker deployed later with other tools cannot change it.
   */
  async learnTools(): Promise<string | undefined> {
    const { state, activities } = this.goal;
    try {
      const catalogue = await activities.startLookups.describeTools.executeWithOptions(
        { summary: "learn the goal's tools" },
        [state.config.tools === undefined ? {} : { patterns: state.config.tools }],
      );
      state.tools = { catalogue };
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      return `the goal's tools could not be set up: ${describeFailure(error)}`;
    }
    // A tool choice naming a tool the goal does not offer would be refused on every model turn.
    assertNamedToolOffered(
      state.config.model.toolChoice,
      modelToolDefinitions(catalogueOf(state), harnessOffer(state.config)),
    );
    return undefined;
  }
}

/** The tools the goal learned at its start (none before). */
export function catalogueOf(state: GoalState): ToolCatalogue {
  return state.tools?.catalogue ?? [];
}
