/**
 * One agent step as text for a model prompt (ShieldAgent's Binary-Check, the direct and rule-traverse
 * baselines): the action, its arguments and what the agent saw, each clipped so a long observation
 * cannot crowd out the question. The wording is part of prompts that are cached and recorded by their
 * text, so it changes only on purpose.
 */
import type { Step } from "../../core/subject.js";

export function clip(text: string | undefined, max: number): string {
  if (!text) return "";
  return text.length <= max ? text : `${text.slice(0, max)} …[${text.length - max} more characters]`;
}

export function describeStep(step: Step): string {
  const lines = [`action: ${step.action}`];
  if (Object.keys(step.args ?? {}).length > 0)
    lines.push(`arguments: ${clip(JSON.stringify(step.args), 1500)}`);
  if (step.element) lines.push(`element: ${clip(step.element, 300)}`);
  if (step.value) lines.push(`value: ${clip(step.value, 500)}`);
  if (step.url) lines.push(`page: ${step.url}`);
  if (step.thought) lines.push(`agent's reasoning: ${clip(step.thought, 800)}`);
  if (step.observation) lines.push(`observation: ${clip(step.observation, 2500)}`);
  return lines.join("\n");
}

/** Most steps shown to a model at once: the last ones, which the decision is about. */
const MAX_STEPS_SHOWN = 50;

/** What the agent was asked and did, as text: the task, its steps in order (the last 50), its final output. */
export function describeRun(options: { input: string; steps: readonly Step[]; output: string }): string {
  const { steps } = options;
  const first = Math.max(0, steps.length - MAX_STEPS_SHOWN);
  const shown = steps.slice(first).map((step, i) => `Step ${first + i}:\n${describeStep(step)}`);
  return [
    `Task given to the agent:\n${clip(options.input, 4000) || "(empty)"}`,
    steps.length === 0
      ? "Steps: none"
      : `Steps${first > 0 ? ` (the last ${MAX_STEPS_SHOWN} of ${steps.length})` : ""}:\n${shown.join("\n\n")}`,
    `Agent output:\n${clip(options.output, 8000) || "(empty)"}`,
  ].join("\n\n");
}
