/**
 * The per-policy work done once, not per check: lower-cased access sets, the task-category classifier
 * built from the attribute rules, the database schema for the EHRAgent extractor. Cached by policy
 * object, so a long-running process compiles each loaded policy once. The classifier's module is loaded
 * on demand (extractors/load-extractors.ts): await `loadExtractors` for the policy first.
 */
import type { ArgumentKinds, PathOptions } from "../../core/arg-kinds.js";
import type { AccessRule, AttributeRule, Effect, Policy, ToolRule } from "../../core/policy.js";
import { type AccessGrants, compileAccessGrants } from "./access-grants.js";
import { type DatabaseSchema, EICU_SCHEMA, normalizeSchema } from "./extractors/ehragent/schema.js";
import { loadedTaskCategory } from "./extractors/load-extractors.js";
import type { CategoryClassifier } from "./extractors/task-category/types.js";

export interface CompiledAccessRule {
  rule: AccessRule;
  /** table -> allowed columns (lower-case); null = every column of the table. */
  allow: Map<string, Set<string> | null>;
  /** `allow` indexed for checkCompiledAccess, so a check does not rebuild it. */
  grants: AccessGrants;
}

export interface CompiledPolicy {
  policy: Policy;
  access?: {
    byRole: Map<string, CompiledAccessRule>;
    unknownRole: "deny" | "allow";
  };
  attributeRules: AttributeRule[];
  classifier?: CategoryClassifier;
  toolRules: ToolRule[];
  toolDefault: Effect;
  /**
   * Whether the policy governs tool calls at all: it has tool rules or states a `toolDefault`. A policy
   * that only states a default (`{"toolRules": [], "toolDefault": "deny"}`, a lockdown) still answers
   * every call with it.
   */
  governsTools: boolean;
  /** How tool-rule conditions read arguments: the policy's `argumentKinds` and `paths`. */
  toolScope: { argumentKinds?: ArgumentKinds; paths?: PathOptions };
  /** Whether the policy has temporal (LTLf) rules, which only the shield judges. */
  temporal: boolean;
  schema: DatabaseSchema;
}

const cache = new WeakMap<Policy, CompiledPolicy>();

export function compilePolicyRules(options: { policy: Policy }): CompiledPolicy {
  const { policy } = options;
  const hit = cache.get(policy);
  if (hit) return hit;
  const rules = policy.rules ?? {};
  const byRole = new Map<string, CompiledAccessRule>();
  for (const rule of rules.access?.rules ?? []) {
    const allow = new Map<string, Set<string> | null>();
    for (const [table, columns] of Object.entries(rule.allow)) {
      allow.set(table.toLowerCase(), columns === "*" ? null : new Set(columns.map((c) => c.toLowerCase())));
    }
    const allowed: Record<string, string[] | "*"> = {};
    for (const [table, columns] of allow) allowed[table] = columns === null ? "*" : [...columns];
    byRole.set(rule.role.trim().toLowerCase(), { rule, allow, grants: compileAccessGrants({ allowed }) });
  }
  const attributeRules = rules.attributeRules ?? [];
  const resources = rules.vocabulary?.resources;
  const compiled: CompiledPolicy = {
    policy,
    ...(rules.access ? { access: { byRole, unknownRole: rules.access.unknownRole } } : {}),
    attributeRules,
    ...(attributeRules.length > 0
      ? { classifier: loadedTaskCategory().createCategoryClassifier({ rules: attributeRules }) }
      : {}),
    toolRules: rules.toolRules ?? [],
    toolDefault: rules.toolDefault ?? "deny",
    governsTools: (rules.toolRules?.length ?? 0) > 0 || rules.toolDefault !== undefined,
    toolScope: toolScopeOf({ policy }),
    temporal: (rules.temporalRules?.length ?? 0) > 0,
    schema: resources ? normalizeSchema({ schema: resources }) : EICU_SCHEMA,
  };
  cache.set(policy, compiled);
  return compiled;
}

/** What tool-rule conditions need from the policy besides the rules (shared with the shield). */
export function toolScopeOf(options: { policy: Policy }): {
  argumentKinds?: ArgumentKinds;
  paths?: PathOptions;
} {
  const rules = options.policy.rules;
  return {
    ...(rules?.argumentKinds ? { argumentKinds: rules.argumentKinds } : {}),
    ...(rules?.paths ? { paths: rules.paths } : {}),
  };
}
