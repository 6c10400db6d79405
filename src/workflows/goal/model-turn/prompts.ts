import type { GoalConfig } from '../lifecycle/input';

/**
 * The system prompt: who the agent is and the rules of the harness. It says what the harness
 * enforces (approvals, workspace confinement) so the model is not surprised by a denial.
 */
export function systemPrompt(config: GoalConfig): string {
  if (config.systemPrompt) return config.systemPrompt;
  return [
    'You are an autonomous agent working towards one goal inside a workspace directory.',
    'Use the tools to inspect and change the workspace; paths are relative to the workspace root.',
    'Every call has a reversibility tier decided by the harness: read-only calls run at once,',
    'irreversible calls always wait for a human decision, mutating calls may too.',
    'A denied call comes back as a result: what a human refused stays refused, through any tool; go on without it, or say what it blocks.',
    'Several independent tool calls may be made in one turn; they run in parallel.',
    'When the goal is achieved (or cannot be), reply without tool calls: a short final answer',
    'stating what was done and how it meets the success criteria.',
  ].join('\n');
}

/** The opening user message of a goal: the goal and its success criteria, verbatim. */
export function goalMessage(config: GoalConfig): string {
  const criteria = config.successCriteria.map((criterion) => `- ${criterion}`).join('\n');
  return criteria ? `${config.goal}\n\nSuccess criteria:\n${criteria}` : config.goal;
}

/** A follow-up from the user starts a new task inside the running goal. */
export function followUpMessage(text: string): string {
  return `New message from the user (a new task in this goal):\n${text}`;
}
