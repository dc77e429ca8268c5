/**
 * The policy: what the guarded agent is (specification I_s), what it must respect (guard requests I_r),
 * and optionally the compiled rules — a versioned, reviewable, diff-friendly artifact that the compiled
 * engine decides with in microseconds and that the shield extends with predicates, LTLf rules, weights
 * and circuits. Every compiled rule keeps `source`: the request sentence or policy clause it came from.
 */
import { z } from "zod";
import { onFirstUse } from "../util/first-use.js";
import { ArgumentKindsSchema, PathOptionsSchema } from "./arg-kinds.js";
import { type Condition, ConditionSchema, conditionRegexProblems } from "./condition.js";
import { WardenError } from "./errors.js";
import { depthProblem, MAX_DOCUMENT_DEPTH } from "./limits.js";
import { RiskModeSchema } from "./risk.js";

export const POLICY_SCHEMA_VERSION = 1;

/** Most rules (or predicates, clauses, circuits) of one kind in a policy; bundled policies have < 100. */
export const MAX_RULES_PER_KIND = 10_000;
/**
 * Deepest `when` condition, counted in JSON objects and arrays (`{"all": [{"not": …}]}` is 3 levels per
 * `all`); the bundled policies need fewer than 10.
 */
export const MAX_CONDITION_DEPTH = 64;

export const OPERATORS = ["==", "!=", ">=", ">", "<=", "<"] as const;
export type Operator = (typeof OPERATORS)[number];

export const EFFECTS = ["allow", "deny", "ask"] as const;
export type Effect = (typeof EFFECTS)[number];

/** An invalid or unsupported `matches` regex makes the policy invalid (named by `owner`), at load. */
function refineRegexes(when: Condition | undefined, owner: string, ctx: z.RefinementCtx): void {
  for (const problem of when ? conditionRegexProblems({ condition: when }) : []) {
    ctx.addIssue({ code: "custom", message: `${owner}: ${problem}`, path: ["when"] });
  }
}

/**
 * Rule ids are what decisions report (`violation.ruleId`) and circuits refer to, so the rules that
 * decide (access, attribute, tool and temporal rules) share one namespace; clause ids have their own.
 */
function duplicateIdIssues(options: {
  rules: {
    access?: { rules: { id: string }[] } | undefined;
    attributeRules?: { id: string }[] | undefined;
    toolRules?: { id: string }[] | undefined;
    temporalRules?: { id: string }[] | undefined;
    clauses?: { id: string }[] | undefined;
  };
}): { message: string; path: (string | number)[] }[] {
  const { rules } = options;
  const namespaces: [string, { id: string }[] | undefined][][] = [
    [
      ["access.rules", rules.access?.rules],
      ["attributeRules", rules.attributeRules],
      ["toolRules", rules.toolRules],
      ["temporalRules", rules.temporalRules],
    ],
    [["clauses", rules.clauses]],
  ];
  const issues: { message: string; path: (string | number)[] }[] = [];
  for (const kinds of namespaces) {
    const seen = new Map<string, string>();
    for (const [kind, list] of kinds) {
      for (const [index, rule] of (list ?? []).entries()) {
        const where = `${kind}.${index}`;
        const first = seen.get(rule.id);
        if (first === undefined) seen.set(rule.id, where);
        else
          issues.push({
            message: `duplicate rule id "${rule.id}" (also ${first}); every rule id must be unique`,
            path: [...kind.split("."), index, "id"],
          });
      }
    }
  }
  return issues;
}

/**
 * The schemas, built on first use: a policy the build validated is taken as parsed (load-policy.ts), so
 * a one-shot check (`warden hook`) never parses one, and building these ~240 zod objects at module load
 * cost every start a few milliseconds. Each exported schema is a z.lazy of its built form.
 */
function buildSchemas() {
  const rulesList = <T extends z.ZodType>(schema: T) =>
    z.array(schema).max(MAX_RULES_PER_KIND, `at most ${MAX_RULES_PER_KIND} entries`);

  /** Long text may be written inline or kept in a file beside the policy (resolved by the loader). */
  const TextOrFileSchema = z.union([z.string(), z.object({ file: z.string().min(1) }).strict()]);

  const id = z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9_.:-]+$/, "use letters, digits and . _ : - only");

  /** Names of tables/columns/attributes/predicates: as written by the agent, compared case-insensitively. */
  const name = z.string().min(1);

  const VocabularySchema = z
    .object({
      /** Resources the agent can read: table -> columns (from the agent specification). */
      resources: z.record(name, z.array(name)).optional(),
      /** Roles (identities) a user of the agent can have. */
      roles: z.array(name).optional(),
      /** User attributes rules may test, with their type. */
      attributes: z
        .record(
          name,
          z.object({ type: z.enum(["boolean", "number", "string"]), description: z.string().optional() }),
        )
        .optional(),
      /** Tools or actions the agent can invoke. */
      actions: z.array(name).optional(),
      /**
       * Names a provider or framework calls a tool by → the name the policy knows it by (`{ "send_mail":
       * "email.send" }`); see core/tool-names.ts for how a name is resolved without one.
       */
      toolAliases: z
        .record(
          z.string().regex(/^[A-Za-z0-9_-]+$/, "a provider's function name: letters, digits, _ and -"),
          name,
        )
        .optional(),
    })
    .strict();

  /** Role-based access control: role -> table -> allowed columns ("*" = every column). */
  const AccessRuleSchema = z
    .object({
      id,
      role: name,
      allow: z.record(name, z.union([z.array(name), z.literal("*")])),
      description: z.string().optional(),
      source: z.string().optional(),
    })
    .strict();

  const AccessPolicySchema = z
    .object({
      rules: rulesList(AccessRuleSchema),
      /** What to answer for a role that no rule names: deny everything (default) or allow everything. */
      unknownRole: z.enum(["deny", "allow"]).default("deny"),
    })
    .strict();

  const RequirementSchema = z
    .object({
      attribute: name,
      operator: z.enum(OPERATORS),
      value: z.union([z.boolean(), z.number(), z.string()]),
    })
    .strict();

  /**
   * Attribute rule (GuardAgent's CheckRule): when a task falls in `category`, the user must satisfy every
   * requirement, else `message` is the violation.
   */
  const AttributeRuleSchema = z
    .object({
      id,
      /** Action category, e.g. "rent a car". */
      category: z.string().min(1),
      /** What the category covers, in words (the rule's own action description, e.g. "Buy/Rent/Find/Browse a car/truck"). */
      description: z.string().min(1),
      /** Extra words that signal the category (the extractor adds lemmas and synonyms). */
      keywords: z.array(z.string()).default([]),
      /** Words that must not be taken as the category on their own (e.g. "car seat" for cars). */
      exclude: z.array(z.string()).default([]),
      require: z.array(RequirementSchema).min(1),
      message: z.string().min(1),
      source: z.string().optional(),
    })
    .strict();

  /** Tool/action rule: a tool (exact name or glob with *) + a condition over its call -> effect. */
  const ToolRuleSchema = z
    .object({
      id,
      tool: z.string().min(1),
      when: ConditionSchema.optional(),
      effect: z.enum(EFFECTS),
      message: z.string().min(1),
      source: z.string().optional(),
    })
    .strict()
    .superRefine((rule, ctx) => refineRegexes(rule.when, `rule "${rule.id}"`, ctx));

  /** How a predicate gets its truth value at a step, without a model where possible. */
  const BindingSchema = z.discriminatedUnion("kind", [
    /** A condition over the current step's facts (action, args, url, element, value, observation, input). */
    z
      .object({ kind: z.literal("condition"), when: ConditionSchema })
      .strict()
      .superRefine((b, ctx) => refineRegexes(b.when, "binding", ctx)),
    /** Search: true if some earlier or current step of the trajectory satisfies the condition. */
    z
      .object({
        kind: z.literal("history"),
        when: ConditionSchema,
        /** Only look at the last n steps. */
        within: z.number().int().positive().optional(),
      })
      .strict()
      .superRefine((b, ctx) => refineRegexes(b.when, "binding", ctx)),
    /** Detect: a named detector (pii, secret, url-scope, ...) over a field of the step. */
    z
      .object({
        kind: z.literal("detector"),
        detector: z.string().min(1),
        field: z.string().optional(),
        params: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
    /** Binary-Check: a yes/no question to the model (unassigned, hence marginalised, when no model). */
    z.object({ kind: z.literal("ask"), question: z.string().min(1) }).strict(),
  ]);

  const PredicateSchema = z
    .object({
      /** LTLf atom: lower-case identifier. */
      name: z.string().regex(/^[a-z_][a-z0-9_]*$/, "predicate names are lower-case identifiers"),
      kind: z.enum(["action", "state"]),
      description: z.string().min(1),
      binding: BindingSchema.optional(),
      source: z.string().optional(),
      /** Where the predicate applies (e.g. "task:12", "site:gitlab"); absent = everywhere. */
      scope: z.string().optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    })
    .strict();

  const TemporalRuleSchema = z
    .object({
      id,
      /** LTLf formula over the predicates (see `warden ltl`). */
      formula: z.string().min(1),
      description: z.string().min(1),
      /** Action rule (constrains an action) or physical rule (relation between state predicates). */
      type: z.enum(["action", "physical"]).default("action"),
      /** Soft weight w_r >= 0 of the rule in the Markov logic network. */
      weight: z.number().nonnegative().default(1),
      /** What happens when the rule is violated, for the compiled (hard) reading of the rule. */
      effect: z.enum(["deny", "ask"]).default("deny"),
      message: z.string().optional(),
      countermeasure: z.string().optional(),
      source: z.string().optional(),
      /** Where the rule applies (e.g. "task:12", "site:gitlab"); absent = everywhere. */
      scope: z.string().optional(),
      /**
       * When the formula is judged: "step" = at every step on the trajectory so far (safety rules; a
       * violation blocks the step), "end" = only once the trajectory is complete (obligations such as
       * "the sequence a, b must occur").
       */
      check: z.enum(["step", "end"]).default("step"),
      /** Importer- or evaluator-specific facts (e.g. the benchmark eval type the rule came from). */
      meta: z.record(z.string(), z.unknown()).optional(),
    })
    .strict();

  /** A policy clause extracted from a document (ShieldAgent policy extraction). */
  const ClauseSchema = z
    .object({
      id,
      text: z.string(),
      definitions: z.record(z.string(), z.string()).default({}),
      scope: z.string().optional(),
      document: z.string().optional(),
      reference: z.string().optional(),
    })
    .strict();

  /** An action-based rule circuit: the rules (and state-predicate clusters) that bear on one action. */
  const CircuitSchema = z
    .object({
      action: z.string(),
      rules: z.array(z.string()),
      clusters: z.array(z.array(z.string())).default([]),
    })
    .strict();

  const RulesSchema = z
    .object({
      vocabulary: VocabularySchema.optional(),
      access: AccessPolicySchema.optional(),
      attributeRules: rulesList(AttributeRuleSchema).optional(),
      toolRules: rulesList(ToolRuleSchema).optional(),
      /** Effect for a tool call no tool rule matches. */
      toolDefault: z.enum(EFFECTS).optional(),
      /**
       * Kinds of tool arguments, so conditions compare their canonical forms: tool glob -> argument path
       * (dot-separated, `*` = any element or key; a path covers everything below it) -> path | url | email |
       * command. Kinds are also learned from the tool's inputSchema, argument names and value shapes.
       */
      argumentKinds: ArgumentKindsSchema.optional(),
      /** How paths are canonicalised: `caseFold` (case-insensitive file system), `base` for relative paths. */
      paths: PathOptionsSchema.optional(),
      predicates: rulesList(PredicateSchema).optional(),
      temporalRules: rulesList(TemporalRuleSchema).optional(),
      clauses: rulesList(ClauseSchema).optional(),
      circuits: rulesList(CircuitSchema).optional(),
      /** Shield tolerance ε >= 0 (smaller = stricter). */
      epsilon: z.number().nonnegative().optional(),
    })
    .strict()
    .superRefine((rules, ctx) => {
      for (const issue of duplicateIdIssues({ rules })) ctx.addIssue({ code: "custom", ...issue });
    });

  const PolicySchema = z
    .object({
      $schema: z.string().optional(),
      kind: z.literal("warden.policy").default("warden.policy"),
      schemaVersion: z.literal(POLICY_SCHEMA_VERSION).default(POLICY_SCHEMA_VERSION),
      name: z.string().min(1),
      version: z.string().min(1).default("1"),
      description: z.string().optional(),
      /** Kind of guarded agent; picks the default fact extractors ("ehragent", "seeact", "tools", "web"). */
      agent: z.string().optional(),
      /** I_s: the guarded agent's specification. */
      specification: z.string(),
      /** I_r: the guard requests, in natural language. */
      requests: z.string(),
      /** The compiled rules; absent for a policy only the model-based engines can apply. */
      rules: RulesSchema.optional(),
      /** Decisions carry a risk level from the count of violated rules (GuardAgent App. N; core/risk.ts). */
      risk: RiskModeSchema.optional(),
    })
    .strict();

  /** The on-disk form: long texts may live in files beside the policy. */
  const PolicyFileSchema = PolicySchema.extend({
    specification: TextOrFileSchema,
    requests: TextOrFileSchema,
  });
  return {
    TextOrFileSchema,
    VocabularySchema,
    AccessRuleSchema,
    AccessPolicySchema,
    RequirementSchema,
    AttributeRuleSchema,
    ToolRuleSchema,
    BindingSchema,
    PredicateSchema,
    TemporalRuleSchema,
    ClauseSchema,
    CircuitSchema,
    RulesSchema,
    PolicySchema,
    PolicyFileSchema,
  };
}
type Schemas = ReturnType<typeof buildSchemas>;
const built = onFirstUse(buildSchemas);

export const TextOrFileSchema = z.lazy(() => built().TextOrFileSchema);
export const VocabularySchema = z.lazy(() => built().VocabularySchema);
export type Vocabulary = z.output<Schemas["VocabularySchema"]>;
export const AccessRuleSchema = z.lazy(() => built().AccessRuleSchema);
export type AccessRule = z.output<Schemas["AccessRuleSchema"]>;
export const AccessPolicySchema = z.lazy(() => built().AccessPolicySchema);
export type AccessPolicy = z.output<Schemas["AccessPolicySchema"]>;
export const RequirementSchema = z.lazy(() => built().RequirementSchema);
export type Requirement = z.output<Schemas["RequirementSchema"]>;
export const AttributeRuleSchema = z.lazy(() => built().AttributeRuleSchema);
export type AttributeRule = z.output<Schemas["AttributeRuleSchema"]>;
export const ToolRuleSchema = z.lazy(() => built().ToolRuleSchema);
export type ToolRule = z.output<Schemas["ToolRuleSchema"]>;
export const BindingSchema = z.lazy(() => built().BindingSchema);
export type Binding = z.output<Schemas["BindingSchema"]>;
export const PredicateSchema = z.lazy(() => built().PredicateSchema);
export type Predicate = z.output<Schemas["PredicateSchema"]>;
export const TemporalRuleSchema = z.lazy(() => built().TemporalRuleSchema);
export type TemporalRule = z.output<Schemas["TemporalRuleSchema"]>;
export const ClauseSchema = z.lazy(() => built().ClauseSchema);
export type Clause = z.output<Schemas["ClauseSchema"]>;
export const CircuitSchema = z.lazy(() => built().CircuitSchema);
export type Circuit = z.output<Schemas["CircuitSchema"]>;
export const RulesSchema = z.lazy(() => built().RulesSchema);
export type Rules = z.output<Schemas["RulesSchema"]>;
export const PolicySchema = z.lazy(() => built().PolicySchema);
export type Policy = z.output<Schemas["PolicySchema"]>;
export type PolicyInput = z.input<Schemas["PolicySchema"]>;
export const PolicyFileSchema = z.lazy(() => built().PolicyFileSchema);
export type PolicyFile = z.input<Schemas["PolicyFileSchema"]>;

/** The `when` conditions of a raw policy document, with the rule they belong to (for error messages). */
function conditionsOf(options: { document: unknown }): { path: string; rule: string; when: unknown }[] {
  const rules = (options.document as { rules?: Record<string, unknown> } | null)?.rules;
  if (!rules || typeof rules !== "object") return [];
  const out: { path: string; rule: string; when: unknown }[] = [];
  const list = (key: string) => (Array.isArray(rules[key]) ? (rules[key] as unknown[]) : []);
  for (const [index, rule] of list("toolRules").entries()) {
    const r = (rule ?? {}) as { id?: unknown; when?: unknown };
    out.push({ path: `rules.toolRules.${index}.when`, rule: String(r.id ?? index), when: r.when });
  }
  for (const [index, predicate] of list("predicates").entries()) {
    const p = (predicate ?? {}) as { name?: unknown; binding?: { when?: unknown } };
    const when = p.binding && typeof p.binding === "object" ? p.binding.when : undefined;
    out.push({ path: `rules.predicates.${index}.binding.when`, rule: String(p.name ?? index), when });
  }
  return out;
}

/**
 * Limits a raw policy document must meet before the schema parses it: the condition schema is
 * recursive, so a `when` nested thousands deep would overflow the stack inside the parser. Depths are
 * measured iteratively; a condition too deep is named by its rule, then the document as a whole.
 */
export function checkPolicyDocumentLimits(options: { document: unknown; what: string }): void {
  const fail = (message: string, field: string) => {
    throw new WardenError({
      code: "INVALID_POLICY",
      message: `Invalid ${options.what}: ${message}`,
      details: { fields: [field] },
    });
  };
  for (const { path, rule, when } of conditionsOf(options)) {
    const deep = depthProblem({ value: when, maxDepth: MAX_CONDITION_DEPTH, path });
    if (deep) fail(`${path} of rule "${rule}" is nested more than ${MAX_CONDITION_DEPTH} levels deep`, path);
  }
  const deep = depthProblem({ value: options.document, maxDepth: MAX_DOCUMENT_DEPTH });
  if (deep) fail(`nested more than ${MAX_DOCUMENT_DEPTH} levels deep at ${deep.path}`, deep.path);
}

export function isCompiled(policy: Policy): boolean {
  const r = policy.rules;
  if (!r) return false;
  // An access section with no rule still decides (its `unknownRole` answers every role).
  return Boolean(
    r.access || r.attributeRules?.length || r.toolRules?.length || r.toolDefault || r.temporalRules?.length,
  );
}

export function policyRef(policy: Policy): { name: string; version: string } {
  return { name: policy.name, version: policy.version };
}
