/**
 * One case from start to end: fresh directories, the case's setup, its steps in order (each judged
 * on its own), and the directories removed again whatever happened.
 */
import type { Category, SecurityCase } from './security-case';
import { createFixture, removeFixture } from './fixture';
import type { PlantedSecrets } from './planted-secrets';
import { runStep, type StepRecord } from './run-step';
import type { ToolExecutor } from './tool-executor';
import type { Hole } from './verdicts';

export interface CaseRecord {
  readonly id: string;
  readonly category: Category;
  readonly title: string;
  readonly durationMs: number;
  readonly steps: readonly StepRecord[];
  readonly holes: readonly Hole[];
  /** The case itself failed (setup, or the executor threw outside a call): no verdict. */
  readonly error?: string;
}

export interface CaseContext {
  readonly tools: ToolExecutor;
  /** Where each case's directories are made (one temp directory per run). */
  readonly runRoot: string;
  readonly secrets: PlantedSecrets;
  readonly keyPrefix: string;
  readonly callTimeoutMs: number;
}

export async function runCase(securityCase: SecurityCase, context: CaseContext): Promise<CaseRecord> {
  const started = performance.now();
  const fixture = createFixture(context.runRoot, context.secrets);
  // The worker's home is the case's own, holding a planted secret: `cat ~/...` must not show it.
  const savedHome = process.env.HOME;
  process.env.HOME = fixture.home;
  const steps: StepRecord[] = [];
  let error: string | undefined;
  try {
    await securityCase.setup?.(fixture);
    const planned = securityCase.steps(fixture);
    for (const [index, step] of planned.entries())
      steps.push(await runStep(step, index, securityCase, { ...context, fixture }));
  } catch (caught) {
    error = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
  } finally {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
    removeFixture(fixture);
  }
  return {
    id: securityCase.id,
    category: securityCase.category,
    title: securityCase.title,
    durationMs: Math.round(performance.now() - started),
    steps,
    holes: steps.flatMap((step) => step.holes),
    ...(error === undefined ? {} : { error }),
  };
}
