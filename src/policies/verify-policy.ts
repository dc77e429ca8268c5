/**
 * Verifies a compiled policy against the agent specification before anyone relies on it: every table,
 * column, role, attribute, action and predicate a rule names must exist (in the vocabulary, and the
 * vocabulary in the specification's text); no rule may be unreachable; contradictions are reported;
 * a condition may name only fields some engine provides; a policy that allows by default, one with no
 * rule that can deny, and rules an engine would not apply are reported. Findings are returned, not
 * thrown, so a reviewer sees them all at once.
 */
import {
  type Comparison,
  type Condition,
  comparisonValueProblems,
  conditionFieldProblems,
} from "../core/condition.js";
import type { AttributeRule, Policy, Requirement, ToolRule } from "../core/policy.js";
import { escapeRegex, type SafeRegex, safeRegex } from "../core/safe-regex.js";

export type Severity = "error" | "warning";

export interface Finding {
  severity: Severity;
  /** Where: "rules.access.rules[0].allow.diagnosis", "rules.toolRules[2]"... */
  path: string;
  message: string;
}

export interface VerifyOptions {
  policy: Policy;
  /**
   * Parses an LTLf formula and returns its atoms, or throws with a message; supplied by the shield
   * module so this file does not depend on it.
   */
  parseFormula?: (formula: string) => string[];
}

const lower = (s: string) => s.trim().toLowerCase();

function mentioned(text: string, word: string): boolean {
  const escaped = word.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`, "i").test(text);
}

/** Glob with * over tool names (dots are literal). */
export function globToRegExp(glob: string): SafeRegex {
  const body = glob
    .split("*")
    .map((part) => escapeRegex({ text: part }))
    .join("(?s:.*)");
  return safeRegex({ pattern: `^${body}$`, re2Syntax: true });
}

/** The step facts the shield gives predicate bindings (src/engines/shield/assign/step-facts.ts). */
const STEP_FACT_ROOTS = new Set([
  "index",
  "action",
  "actionType",
  "url",
  "element",
  "value",
  "observation",
  "thought",
  "meta",
  "input",
  "context",
  "bid",
  "elementText",
  "selector",
  "selectors",
  "typed",
  "message",
  "targetUrl",
  "isInput",
  "isOutput",
  "argsText",
  "text",
  "page",
  "target",
]);
/** Fields under which any sub-field may exist (free-form objects). */
const OPEN_STEP_FACTS = new Set(["meta", "context", "page", "target"]);

/** Why a predicate binding's field is no step fact (undefined when it is one). */
function stepFactFieldProblem(field: string): string | undefined {
  if (
    field === "args" ||
    field.startsWith("args.") ||
    field.startsWith("args:") ||
    field.startsWith("raw.")
  ) {
    const problems = conditionFieldProblems({ field });
    return problems.length > 0 ? `condition field ${problems[0]}` : undefined;
  }
  const [head, ...rest] = field.split(".");
  if (STEP_FACT_ROOTS.has(head!) && (rest.length === 0 || OPEN_STEP_FACTS.has(head!))) return undefined;
  return `condition field "${field}" is not a step fact the shield provides (${[...STEP_FACT_ROOTS, "args…"].join(", ")}): it is always undefined.`;
}

/** Every comparison of a condition, in order. */
function comparisonsOf(condition: Condition): Comparison[] {
  if ("all" in condition) return condition.all.flatMap(comparisonsOf);
  if ("any" in condition) return condition.any.flatMap(comparisonsOf);
  if ("not" in condition) return comparisonsOf(condition.not);
  return [condition];
}

function requirementsConflict(a: Requirement, b: Requirement): boolean {
  if (lower(a.attribute) !== lower(b.attribute)) return false;
  const sat = (r: Requirement, v: number | boolean | string) => {
    const x = r.value;
    switch (r.operator) {
      case "==":
        return v === x;
      case "!=":
        return v !== x;
      case ">=":
        return typeof v === "number" && typeof x === "number" && v >= x;
      case ">":
        return typeof v === "number" && typeof x === "number" && v > x;
      case "<=":
        return typeof v === "number" && typeof x === "number" && v <= x;
      case "<":
        return typeof v === "number" && typeof x === "number" && v < x;
    }
  };
  // Try the boundary values of both requirements: if none satisfies both, they contradict.
  const candidates: (number | boolean | string)[] = [true, false];
  for (const r of [a, b]) {
    if (typeof r.value === "number") candidates.push(r.value - 1, r.value, r.value + 1);
    else candidates.push(r.value);
  }
  return !candidates.some((v) => sat(a, v) && sat(b, v));
}

export function verifyPolicy(options: VerifyOptions): { findings: Finding[]; ok: boolean } {
  const { policy } = options;
  const findings: Finding[] = [];
  const error = (path: string, message: string) => findings.push({ severity: "error", path, message });
  const warn = (path: string, message: string) => findings.push({ severity: "warning", path, message });
  const rules = policy.rules;
  if (!rules) {
    warn("rules", "The policy has no compiled rules: only the model-based engines can apply it.");
    return { findings, ok: true };
  }
  const spec = policy.specification;
  const vocab = rules.vocabulary ?? {};

  // 1. The vocabulary must come from the specification.
  if (spec.trim() !== "") {
    for (const [table, columns] of Object.entries(vocab.resources ?? {})) {
      if (!mentioned(spec, table))
        error(
          `rules.vocabulary.resources.${table}`,
          `Table "${table}" is not mentioned in the agent specification.`,
        );
      for (const column of columns) {
        if (!mentioned(spec, column)) {
          error(
            `rules.vocabulary.resources.${table}`,
            `Column "${table}.${column}" is not mentioned in the agent specification.`,
          );
        }
      }
    }
    for (const attribute of Object.keys(vocab.attributes ?? {})) {
      if (!mentioned(spec, attribute) && !mentioned(policy.requests, attribute)) {
        error(
          `rules.vocabulary.attributes.${attribute}`,
          `Attribute "${attribute}" is mentioned neither in the specification nor in the requests.`,
        );
      }
    }
    for (const action of vocab.actions ?? []) {
      if (!mentioned(spec, action))
        warn(`rules.vocabulary.actions`, `Action "${action}" is not mentioned in the agent specification.`);
    }
  }

  // 2. Access rules name known roles, tables and columns.
  const resources = new Map(
    Object.entries(vocab.resources ?? {}).map(([t, cs]) => [lower(t), new Set(cs.map(lower))] as const),
  );
  const roles = new Set((vocab.roles ?? []).map(lower));
  const seenRoles = new Map<string, number>();
  rules.access?.rules.forEach((rule, i) => {
    const path = `rules.access.rules[${i}]`;
    if (roles.size > 0 && !roles.has(lower(rule.role)))
      error(
        path,
        `Role "${rule.role}" is not one of the roles in the vocabulary (${[...roles].join(", ")}).`,
      );
    const earlier = seenRoles.get(lower(rule.role));
    if (earlier !== undefined) {
      error(
        path,
        `Role "${rule.role}" already has access rule rules.access.rules[${earlier}]: this one is unreachable.`,
      );
    } else seenRoles.set(lower(rule.role), i);
    if (resources.size === 0) {
      warn(path, "The vocabulary lists no resources, so the tables and columns cannot be checked.");
      return;
    }
    for (const [table, columns] of Object.entries(rule.allow)) {
      const known = resources.get(lower(table));
      if (!known) {
        error(
          `${path}.allow.${table}`,
          `Table "${table}" does not exist in the agent specification's vocabulary.`,
        );
        continue;
      }
      if (columns === "*") continue;
      for (const column of columns) {
        if (!known.has(lower(column)))
          error(
            `${path}.allow.${table}`,
            `Column "${table}.${column}" does not exist in the agent specification's vocabulary.`,
          );
      }
    }
  });
  for (const role of roles) {
    if (rules.access && !seenRoles.has(role)) {
      warn(
        "rules.access",
        `Role "${role}" has no access rule: ${rules.access.unknownRole === "allow" ? "everything is allowed" : "everything is denied"} for it.`,
      );
    }
  }

  // 3. Attribute rules name known attributes with values of the right type; none contradict.
  const attributes = new Map(
    Object.entries(vocab.attributes ?? {}).map(([n, a]) => [lower(n), a.type] as const),
  );
  const ids = new Map<string, string>();
  const checkId = (id: string, path: string) => {
    const before = ids.get(id);
    if (before) error(path, `Rule id "${id}" is already used at ${before}.`);
    else ids.set(id, path);
  };
  rules.access?.rules.forEach((r, i) => {
    checkId(r.id, `rules.access.rules[${i}]`);
  });
  const byCategory = new Map<string, { rule: AttributeRule; index: number }[]>();
  rules.attributeRules?.forEach((rule, i) => {
    const path = `rules.attributeRules[${i}]`;
    checkId(rule.id, path);
    for (const req of rule.require) {
      const type = attributes.get(lower(req.attribute));
      if (attributes.size > 0 && !type) {
        error(
          path,
          `Attribute "${req.attribute}" is not in the vocabulary (${[...attributes.keys()].join(", ")}).`,
        );
      } else if (type && typeof req.value !== type) {
        error(
          path,
          `Attribute "${req.attribute}" is a ${type} but the rule compares it with ${JSON.stringify(req.value)}.`,
        );
      } else if (type === "boolean" && !["==", "!="].includes(req.operator)) {
        error(path, `Boolean attribute "${req.attribute}" can only be compared with == or !=.`);
      }
    }
    for (const [a, b] of pairs(rule.require)) {
      if (requirementsConflict(a, b))
        error(
          path,
          `Requirements on "${a.attribute}" contradict each other: no user can satisfy rule ${rule.id}.`,
        );
    }
    const key = lower(rule.category);
    byCategory.set(key, [...(byCategory.get(key) ?? []), { rule, index: i }]);
  });
  for (const [category, list] of byCategory) {
    const all = list.flatMap((x) => x.rule.require);
    for (const [a, b] of pairs(all)) {
      if (requirementsConflict(a, b)) {
        error(
          `rules.attributeRules[${list.map((x) => x.index).join(",")}]`,
          `Rules for category "${category}" contradict each other on "${a.attribute}": no user can do it.`,
        );
      }
    }
  }

  // 4. Tool rules: known tools, conditions over call fields, no unreachable or contradictory rules.
  const actions = vocab.actions ?? [];
  rules.toolRules?.forEach((rule, i) => {
    const path = `rules.toolRules[${i}]`;
    checkId(rule.id, path);
    const re = globToRegExp(rule.tool);
    if (actions.length > 0 && !actions.some((a) => re.test(a))) {
      error(path, `Tool "${rule.tool}" matches no action of the vocabulary: the rule can never apply.`);
    }
    // A field outside the grammar is provided by no engine: it is always undefined, so the rule never
    // fires (or, negated, always does).
    for (const comparison of rule.when ? comparisonsOf(rule.when) : []) {
      for (const problem of conditionFieldProblems({ field: comparison.field })) {
        error(path, `Condition field ${problem}: no engine provides it, so it is always undefined.`);
      }
      for (const problem of comparisonValueProblems({ comparison })) {
        error(path, `Condition on "${comparison.field}": ${problem}.`);
      }
    }
    const earlier = rules.toolRules?.slice(0, i).find((o) => sameScope(o, rule));
    if (earlier && earlier.effect !== rule.effect) {
      error(
        path,
        `Rule ${rule.id} (${rule.effect}) and rule ${earlier.id} (${earlier.effect}) apply to exactly the same calls with different effects.`,
      );
    } else if (earlier) {
      warn(path, `Rule ${rule.id} duplicates rule ${earlier.id}.`);
    }
  });

  // 4b. Predicate bindings read the shield's step facts: a field outside them is always undefined.
  rules.predicates?.forEach((p, i) => {
    const b = p.binding;
    const when =
      b?.kind === "condition" || b?.kind === "history"
        ? b.when
        : b?.kind === "detector" && b.params?.when && typeof b.params.when === "object"
          ? (b.params.when as Condition)
          : undefined;
    for (const comparison of when ? comparisonsOf(when) : []) {
      const problem = stepFactFieldProblem(comparison.field);
      if (problem) error(`rules.predicates[${i}]`, `Binding of "${p.name}": ${problem}`);
    }
  });

  // 5. Temporal rules: formulas parse, atoms are declared predicates, predicates are used.
  const predicateNames = new Set((rules.predicates ?? []).map((p) => p.name));
  const used = new Set<string>();
  rules.temporalRules?.forEach((rule, i) => {
    const path = `rules.temporalRules[${i}]`;
    checkId(rule.id, path);
    if (!options.parseFormula) return;
    try {
      for (const atom of options.parseFormula(rule.formula)) {
        used.add(atom);
        if (!predicateNames.has(atom))
          error(path, `Formula of ${rule.id} uses "${atom}", which is not a declared predicate.`);
      }
    } catch (e) {
      error(path, `Formula of ${rule.id} does not parse: ${(e as Error).message}`);
    }
  });
  if (options.parseFormula) {
    for (const p of rules.predicates ?? []) {
      if (!used.has(p.name)) warn(`rules.predicates.${p.name}`, `Predicate "${p.name}" is used by no rule.`);
    }
  }

  // 6. Defaults: what the policy answers when its rules say nothing, and whether anything can deny.
  if (rules.toolDefault === "allow") {
    warn(
      "rules.toolDefault",
      "The policy allows by default: a tool call no rule names is allowed (write deny rules for what must not happen, or make the default deny or ask).",
    );
  }
  if (rules.access?.unknownRole === "allow") {
    warn(
      "rules.access.unknownRole",
      "The policy allows by default: a role no access rule names may read everything.",
    );
  }
  if (!canDeny(rules)) {
    warn("rules", "No rule of the policy can deny or ask: every check it decides is allowed.");
  }

  // 7. Rules an engine would not apply.
  const temporal = (rules.temporalRules?.length ?? 0) > 0;
  const shieldIgnores = [
    ...(rules.access ? ["access rules"] : []),
    ...((rules.attributeRules?.length ?? 0) > 0 ? ["attribute rules"] : []),
  ];
  if (temporal) {
    warn(
      "rules.temporalRules",
      "The compiled engine does not judge temporal rules: with --engine compiled every check fails closed. --engine shield and --engine auto (which sends this policy to the shield) judge them.",
    );
    if (shieldIgnores.length > 0) {
      warn(
        "rules",
        `The shield engine does not judge the ${shieldIgnores.join(" or ")}: with --engine shield they are ignored. --engine auto applies them as well as the temporal rules.`,
      );
    }
  } else if ((rules.predicates?.length ?? 0) > 0 || (rules.circuits?.length ?? 0) > 0) {
    warn(
      "rules.predicates",
      "The policy declares predicates or circuits but no temporal rule: no engine uses them.",
    );
  }

  return { findings, ok: !findings.some((f) => f.severity === "error") };
}

/** Whether some rule of the policy can give a deny or an ask. */
function canDeny(rules: NonNullable<Policy["rules"]>): boolean {
  if (rules.access && (rules.access.unknownRole === "deny" || rules.access.rules.length > 0)) return true;
  if ((rules.attributeRules?.length ?? 0) > 0 || (rules.temporalRules?.length ?? 0) > 0) return true;
  const toolRules = rules.toolRules ?? [];
  if (toolRules.some((r) => r.effect !== "allow")) return true;
  // A tool policy without a stated default denies what no rule allows.
  return (toolRules.length > 0 || rules.toolDefault !== undefined) && rules.toolDefault !== "allow";
}

function sameScope(a: ToolRule, b: ToolRule): boolean {
  return lower(a.tool) === lower(b.tool) && JSON.stringify(a.when ?? null) === JSON.stringify(b.when ?? null);
}

function* pairs<T>(items: readonly T[]): Generator<[T, T]> {
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++) yield [items[i]!, items[j]!];
}
