/**
 * Which tools the guard proxy leaves out of `tools/list`: those whose every call the policy denies
 * outright, i.e. a tool rule with effect "deny" and no `when` condition whose pattern matches the tool's
 * name (as the call is checked: after the proxy's prefix). Deny beats every other effect in the tool
 * rules (match-tool-rule.ts), so such a call can never be allowed. Conservative on purpose: a conditional
 * deny, an `ask`, or a deny `toolDefault` hides nothing (another rule may allow some calls), and hiding
 * is only a courtesy to the agent: a call to a hidden tool is still checked and refused.
 */
import type { Policy } from "../core/policy.js";
import { matchesToolGlob } from "../engines/compiled/extractors/tool-calls/tool-glob.js";

export function deniedOutright(options: { policy: Policy; tool: string }): boolean {
  const rules = options.policy.rules?.toolRules ?? [];
  return rules.some(
    (rule) =>
      rule.effect === "deny" &&
      rule.when === undefined &&
      matchesToolGlob({ pattern: rule.tool, name: options.tool }),
  );
}
