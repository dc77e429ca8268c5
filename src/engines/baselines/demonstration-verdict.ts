/**
 * The verdict a demonstration shows the baseline: the stored one (learned cases keep it), else the
 * result of running the demonstration's guardrail code once in the sandbox, else just its label.
 */
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { Demonstration } from "../../store/store.js";
import { agentAnswer } from "../common/agent-answer.js";
import { normaliseInaccessible, violationsFromReasons } from "../common/violations-from-reasons.js";
import type { GuardToolbox } from "../guardagent/contracts.js";

export async function demonstrationVerdict(options: {
  demonstration: Demonstration;
  sandbox?: Sandbox;
  toolbox?: GuardToolbox;
}): Promise<unknown> {
  const d = options.demonstration;
  const stored = d.meta?.verdict;
  if (stored !== undefined) return stored;
  if (options.sandbox && d.code) {
    const answer = agentAnswer({ subject: { input: d.input, output: d.output } });
    const run = await options.sandbox.run({
      code: d.code,
      data: { input: d.input, output: d.output, answer, context: {} },
      prelude: options.toolbox?.enabled ? options.toolbox.prelude() : [],
    });
    if (run.ok) {
      const reasons = run.result.reasons as Record<string, unknown> | undefined;
      const inaccessible = normaliseInaccessible(reasons?.inaccessible) ?? {};
      return {
        label: run.result.label,
        violations: violationsFromReasons({ reasons: { violations: reasons?.violations } }).map((v) => ({
          rule: v.ruleId,
          message: v.message,
        })),
        inaccessible,
        output: run.result.label === 0 ? (run.result.output ?? answer) : null,
      };
    }
  }
  return { label: d.label ?? 0 };
}
