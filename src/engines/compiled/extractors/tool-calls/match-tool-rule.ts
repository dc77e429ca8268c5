/**
 * Picks the effect of a policy's tool rules for one call. Semantics:
 * - A rule applies when its `tool` pattern matches the call's name (see tool-glob.ts) and its `when`
 *   condition, if any, holds over the facts `{ ...facts, tool, name, args, id, format }`. The name is
 *   read as texts are (trimmed, compatibility form, no accents), the strict way (namesTool).
 * - Conditions are three-valued (src/core/condition.ts): argument values of a known kind are compared in
 *   canonical form, and a value that cannot be canonicalised makes the condition unknown. A deny/ask
 *   rule's condition is read the strict way with `strictWhen: true`, an allow rule's with `false`.
 * - Among the rules that apply, the strictest effect wins: deny beats ask beats allow (an explicit deny
 *   cannot be overridden by a broader or narrower allow; "deny all but X" is written as a deny
 *   `toolDefault` plus allow rules).
 * - When no rule applies, the effect is `default` (fail-closed "deny" unless the caller says otherwise).
 * - A call written as code that runs a method (`page.goto(…)`, ToolCall.method) is also read as that
 *   method, the strict way: deny and ask rules naming the method (`goto`) apply to it as well, with the
 *   method as its name, and the stricter outcome wins; an allow rule must name the call itself.
 * - A rule whose condition is unknown may or may not apply. If the outcome with and without such rules
 *   can differ, the match is `undetermined` (the reasons, by rule id) and its effect is the strictest
 *   possible one; the caller fails closed on it or asks a model. If every possibility ends in the same
 *   effect, the unknown does not matter and the match is determined.
 * - The rule reported as the reason is the most specific one with the winning effect (exact name over
 *   glob, more literal characters over fewer, a `when` condition over none), ties broken by order.
 * - A condition that cannot be evaluated (an invalid regular expression, say) counts as holding for
 *   deny and ask rules and as not holding for allow rules, so an error never loosens the policy.
 */
import type { ArgKind, ArgumentKinds, PathOptions } from "../../../../core/arg-kinds.js";
import { textReadings } from "../../../../core/canonical/text.js";
import {
  type Condition,
  conditionForName,
  evaluateConditionTri,
  PreparedFacts,
} from "../../../../core/condition.js";
import type { Effect, ToolRule } from "../../../../core/policy.js";
import { withFields } from "../../../../util/with-fields.js";
import { matchesToolGlob, toolGlobSpecificity } from "./tool-glob.js";
import type { ToolCall } from "./types.js";

export interface ToolRuleMatch {
  effect: Effect;
  /** The rule that decided; absent when no rule applied and `default` was used. */
  rule?: ToolRule;
  /**
   * Every rule that certainly applied, deny rules first, each effect in policy order; when a deny rule
   * certainly applies, only deny rules are evaluated (the others cannot change the outcome).
   */
  matches: ToolRule[];
  defaulted: boolean;
  reason: string;
  /** Conditions that could not be evaluated, by rule id. */
  errors?: string[];
  /**
   * Set when the effect depends on conditions whose truth is unknown ("<rule id>: <field>: <why>"); the
   * effect is then the strictest possible outcome, and callers should fail closed or ask a model.
   */
  undetermined?: string[];
}

const STRICTNESS: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };
const BY_STRICTNESS: Effect[] = ["allow", "ask", "deny"];

function specificity(rule: ToolRule): number {
  return toolGlobSpecificity({ pattern: rule.tool }) * 2 + (rule.when ? 1 : 0);
}

const declaredCache = new WeakMap<ArgumentKinds, Map<string, Record<string, ArgKind[]> | undefined>>();

/**
 * The declarations of `rules.argumentKinds` whose tool glob matches the call, merged (cached per tool):
 * its name read as texts are, a declaration for any reading counts (a respelled name must not make a
 * declared path plain text).
 */
export function declaredKindsFor(options: {
  argumentKinds: ArgumentKinds | undefined;
  tool: string;
}): Record<string, ArgKind[]> | undefined {
  const { argumentKinds, tool } = options;
  if (!argumentKinds) return undefined;
  let byTool = declaredCache.get(argumentKinds);
  if (!byTool) {
    byTool = new Map();
    declaredCache.set(argumentKinds, byTool);
  }
  if (byTool.has(tool)) return byTool.get(tool);
  let out: Record<string, ArgKind[]> | undefined;
  const readings = textReadings({ text: tool });
  for (const [pattern, kinds] of Object.entries(argumentKinds)) {
    if (!readings.some((name) => matchesToolGlob({ pattern, name }))) continue;
    out ??= {};
    for (const [path, kind] of Object.entries(kinds)) out[path] = [...(out[path] ?? []), kind];
  }
  if (byTool.size >= 1024) byTool.clear();
  byTool.set(tool, out);
  return out;
}

/**
 * A rule that names a tool, with its condition for that tool's calls (conditionForName): `true` when it
 * applies whatever the call's other facts, `false` when it never does (`tool in [write_file…]` for a
 * read), else what is left to evaluate per call.
 */
interface NamedRule {
  rule: ToolRule;
  when: Condition | boolean;
}

/**
 * Per rules list: the rules whose pattern names each tool name, with what the list held when they were
 * worked out (each rule, its pattern and its condition), so a list changed in place is worked out again.
 */
interface NamedRules {
  rules: readonly ToolRule[];
  patterns: readonly string[];
  conditions: readonly (Condition | undefined)[];
  byName: Map<string, readonly NamedRule[]>;
}
const rulesByName = new WeakMap<readonly ToolRule[], NamedRules>();
/** Tool names remembered per rules list; past this many the memory starts over. */
const MAX_REMEMBERED_NAMES = 1024;

const unchanged = (rules: readonly ToolRule[], named: NamedRules): boolean =>
  rules.length === named.rules.length &&
  rules.every(
    (rule, i) =>
      rule === named.rules[i] && rule.tool === named.patterns[i] && rule.when === named.conditions[i],
  );

/**
 * The rules of `rules` whose tool pattern matches `name`, deny rules first, then ask, then allow, each in
 * policy order, with their conditions specialised to the name: the glob walk and the comparisons on the
 * name run once per (rules list, name) rather than once per rule on every call of that tool. Checking that
 * the list is unchanged costs a few comparisons per rule, far less than the walks.
 */
function rulesNaming(options: {
  rules: readonly ToolRule[];
  name: string;
  /** Only the deny and ask rules (a method's reading, matchToolRule). */
  strictOnly?: boolean;
}): readonly NamedRule[] {
  const { rules, name } = options;
  const strictOnly = options.strictOnly === true;
  // A NUL cannot begin a rule-naming key otherwise, so the two readings keep apart.
  const key = strictOnly ? `\0${name}` : name;
  let named = rulesByName.get(rules);
  if (!named || !unchanged(rules, named)) {
    named = {
      rules: [...rules],
      patterns: rules.map((rule) => rule.tool),
      conditions: rules.map((rule) => rule.when),
      byName: new Map(),
    };
    rulesByName.set(rules, named);
  }
  let matching = named.byName.get(key);
  if (!matching) {
    // Strictest effect first (a stable sort: policy order within each effect), so that once a deny
    // certainly applies the ask and allow rules, which cannot change the outcome, are not evaluated.
    // A deny or ask rule's condition is read the strict way, an allow rule's the other (matchToolRule).
    const readings = textReadings({ text: name });
    matching = named.rules
      .filter((rule) => (!strictOnly || rule.effect !== "allow") && namesTool({ rule, readings }))
      .sort((a, b) => STRICTNESS[b.effect] - STRICTNESS[a.effect])
      .map((rule) => ({
        rule,
        when: rule.when
          ? conditionForName({ condition: rule.when, name, strictWhen: rule.effect !== "allow" })
          : true,
      }));
    if (named.byName.size >= MAX_REMEMBERED_NAMES) named.byName.clear();
    named.byName.set(key, matching);
  }
  return matching;
}

/**
 * Whether a rule's pattern names the call's tool, its name read as a dispatcher may read it (trimmed, in
 * compatibility form, without accents: text.ts), the strict way: a deny or ask rule names it when its
 * pattern matches some reading, an allow rule only when it matches every one. A dispatcher that strips
 * or normalises the model's names runs `repo.delete` for `"repo.delete "` or `"ｒｅｐｏ.delete"`.
 */
function namesTool(options: { rule: ToolRule; readings: readonly string[] }): boolean {
  const { rule, readings } = options;
  const matches = (name: string) => matchesToolGlob({ pattern: rule.tool, name });
  return rule.effect === "allow" ? readings.every(matches) : readings.some(matches);
}

/** The rule with the winning effect among `rules` (strictest, then most specific, then first). */
function strictestRule(rules: readonly ToolRule[]): ToolRule {
  let best = rules[0]!;
  for (const rule of rules.slice(1)) {
    const stricter = STRICTNESS[rule.effect] - STRICTNESS[best.effect];
    if (stricter > 0 || (stricter === 0 && specificity(rule) > specificity(best))) best = rule;
  }
  return best;
}

export interface MatchToolRuleOptions {
  rules: readonly ToolRule[];
  call: Pick<ToolCall, "name" | "args"> & Partial<Pick<ToolCall, "id" | "format" | "inputSchema" | "method">>;
  /** Effect when no rule applies (the policy's `toolDefault`); "deny" when not given. */
  default?: Effect;
  /** Further facts conditions may read, e.g. `{ context, input }`; the call's own fields take precedence. */
  facts?: Record<string, unknown>;
  /** The policy's `rules.argumentKinds` (tool glob -> argument path -> kind). */
  argumentKinds?: ArgumentKinds;
  /** The policy's `rules.paths` (caseFold, base; `base` wins over `context.cwd`). */
  paths?: PathOptions;
}

export function matchToolRule(options: MatchToolRuleOptions): ToolRuleMatch {
  const asCalled = matchName({ options, name: options.call.name, strictOnly: false });
  const method = options.call.method;
  if (method === undefined || method === options.call.name) return asCalled;
  // The method's reading: only deny and ask rules, and no default of its own (allow adds nothing).
  const asMethod = matchName({ options: { ...options, default: "allow" }, name: method, strictOnly: true });
  const stricter = STRICTNESS[asMethod.effect] - STRICTNESS[asCalled.effect];
  // The stricter outcome, and between equal ones a certain deny or ask over an undetermined one.
  if (
    stricter > 0 ||
    (stricter === 0 && asCalled.undetermined && !asMethod.undetermined && !asMethod.defaulted)
  ) {
    return {
      ...asMethod,
      reason: `${asMethod.reason} (the call "${options.call.name}" runs the method "${method}")`,
    };
  }
  return asCalled;
}

/** The match for the call under one name: its own, or (strictOnly) its method's, with deny and ask rules only. */
function matchName(args: {
  options: MatchToolRuleOptions;
  name: string;
  strictOnly: boolean;
}): ToolRuleMatch {
  const { options, name } = args;
  const { call } = options;
  // withFields, not a literal beginning with the spread: on Node 20 that costs microseconds (with-fields.ts).
  const facts = withFields({
    base: options.facts,
    fields: {
      tool: name,
      name: name,
      args: call.args,
      ...(call.id !== undefined ? { id: call.id } : {}),
      ...(call.format !== undefined ? { format: call.format } : {}),
    },
  });
  const declaredKinds = declaredKindsFor({ argumentKinds: options.argumentKinds, tool: name });
  // One prepared view per call: argument kinds and canonical forms are computed once for every rule.
  const prepared = new PreparedFacts(facts, {
    ...(declaredKinds ? { declaredKinds } : {}),
    ...(call.inputSchema !== undefined ? { inputSchema: call.inputSchema } : {}),
    ...(options.paths ? { paths: options.paths } : {}),
  });
  const matches: ToolRule[] = [];
  const maybe: { rule: ToolRule; reasons: string[] }[] = [];
  const errors: string[] = [];
  for (const { rule, when } of rulesNaming({ rules: options.rules, name, strictOnly: args.strictOnly })) {
    // A certain deny is the outcome whatever the rest say; only the deny rules still count, to name the
    // most specific of them.
    if (rule.effect !== "deny" && matches.length > 0) break;
    if (when === false) continue;
    if (when !== true) {
      let holds: boolean | "unknown";
      try {
        const result = evaluateConditionTri({
          condition: when,
          facts: prepared,
          strictWhen: rule.effect !== "allow",
        });
        holds = result.value;
        if (holds === "unknown") maybe.push({ rule, reasons: result.unknown.map((r) => `${rule.id}: ${r}`) });
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        errors.push(`${rule.id}: ${why}`);
        holds = rule.effect !== "allow";
      }
      if (holds !== true) continue;
    }
    matches.push(rule);
  }
  const errorPart = errors.length > 0 ? { errors } : {};
  const fallback = options.default ?? "deny";

  // The outcomes the unknown rules allow: with every, some or none of them applying.
  const best = matches.length > 0 ? strictestRule(matches) : undefined;
  const certain = best ? STRICTNESS[best.effect] : undefined;
  const possible = maybe.map((m) => STRICTNESS[m.rule.effect]);
  const withAll = Math.max(certain ?? -1, ...possible);
  const strictest = certain === undefined ? Math.max(withAll, STRICTNESS[fallback]) : withAll;
  const loosest = certain !== undefined ? certain : Math.min(STRICTNESS[fallback], ...possible);
  const undetermined = strictest !== loosest ? maybe.flatMap((m) => m.reasons) : undefined;

  if (undetermined) {
    const effect = BY_STRICTNESS[strictest]!;
    // Name the strictest rule that may apply; the default when it is the strictest outcome.
    const candidates = [...matches, ...maybe.map((m) => m.rule)].filter((r) => r.effect === effect);
    const rule = candidates.length > 0 ? strictestRule(candidates) : undefined;
    const why = `undetermined: ${undetermined.join("; ")}`;
    return {
      effect,
      ...(rule ? { rule } : {}),
      matches,
      defaulted: rule === undefined,
      reason: rule
        ? `${effect}, as rule ${rule.id} (${rule.tool}) may apply (${why}): ${rule.message}`
        : `${effect}, the default for "${name}", as the rules that may apply are ${why}`,
      ...errorPart,
      undetermined,
    };
  }
  if (!best) {
    return {
      effect: fallback,
      matches,
      defaulted: true,
      reason: `no tool rule applies to "${name}"; default effect ${fallback}`,
      ...errorPart,
    };
  }
  return {
    effect: best.effect,
    rule: best,
    matches,
    defaulted: false,
    reason: `${best.effect} by rule ${best.id} (${best.tool}): ${best.message}`,
    ...errorPart,
  };
}
