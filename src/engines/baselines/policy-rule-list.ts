/**
 * The policy as a list of rules in words, for the baselines that hand a model "the complete policy"
 * (ShieldAgent's direct prompt) or one rule at a time (rule traverse): every compiled rule with its id
 * and what it says — access rules, attribute rules, tool rules, temporal rules — and, for a policy with
 * no compiled rules, each guard request as a rule of its own. Ids are what a model's answer must name.
 */
import type { Policy } from "../../core/policy.js";
import { clip } from "../common/describe-step.js";

export interface ListedRule {
  id: string;
  text: string;
}

/** Most rules one baseline lists: beyond it the prompt (or the number of calls) is no longer a baseline. */
const MAX_RULES = 200;
const MAX_RULE_CHARS = 600;

/**
 * The guard requests one by one: each numbered or bulleted item, or else each non-empty line, without its
 * list marker. Headings (`#`) and blank lines are not requests.
 */
export function requestItems(options: { requests: string; max: number; maxChars: number }): string[] {
  const lines = options.requests
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const itemPattern = /^(?:\d+[.)]|[-*•])\s+/;
  const items = lines.some((l) => itemPattern.test(l)) ? lines.filter((l) => itemPattern.test(l)) : lines;
  return items
    .map((l) => l.replace(itemPattern, "").trim())
    .filter((t) => t !== "")
    .slice(0, options.max)
    .map((t) => (t.length <= options.maxChars ? t : `${t.slice(0, options.maxChars - 1)}…`));
}

function accessText(rule: NonNullable<Policy["rules"]>["access"]): ListedRule[] {
  return (rule?.rules ?? []).map((r) => {
    const tables = Object.entries(r.allow)
      .map(([table, columns]) => `${table} (${columns === "*" ? "every column" : columns.join(", ")})`)
      .join("; ");
    return {
      id: r.id,
      text: `A user with role "${r.role}" may read only: ${tables}.${r.description ? ` ${r.description}` : ""}`,
    };
  });
}

export function policyRuleList(options: { policy: Policy }): ListedRule[] {
  const rules = options.policy.rules;
  const listed: ListedRule[] = [
    ...accessText(rules?.access),
    ...(rules?.attributeRules ?? []).map((r) => ({
      id: r.id,
      text: `${r.message} (tasks that ${r.description}; requires ${r.require.map((q) => `${q.attribute} ${q.operator} ${JSON.stringify(q.value)}`).join(" and ")})`,
    })),
    ...(rules?.toolRules ?? []).map((r) => ({
      id: r.id,
      text: `${r.message} (tool ${r.tool}, ${r.effect}${r.when ? ` when ${clip(JSON.stringify(r.when), 300)}` : ""})`,
    })),
    ...(rules?.temporalRules ?? []).map((r) => ({ id: r.id, text: r.message ?? r.description })),
  ];
  const chosen =
    listed.length > 0
      ? listed
      : requestItems({ requests: options.policy.requests, max: MAX_RULES, maxChars: MAX_RULE_CHARS }).map(
          (text, i) => ({ id: `request.${i + 1}`, text }),
        );
  return chosen.slice(0, MAX_RULES).map((r) => ({ id: r.id, text: clip(r.text, MAX_RULE_CHARS) }));
}
