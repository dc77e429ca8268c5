/**
 * The ASPM under construction: clauses, predicates by name, rules in order, and the change log. Every
 * mutation the builder makes goes through here and leaves a log entry saying what changed, why, and
 * the value before and after — the record a reviewer reads next to the artifact.
 */
import type { Clause, Predicate, TemporalRule } from "../../../core/policy.js";
import { formatLtl, type LtlAst, parseLtl } from "../ltl/index.js";
import type { ModelPredicate, ModelRule } from "./aspm-schemas.js";

export type AspmLogStep =
  | "chunking"
  | "policy-extraction"
  | "rule-extraction"
  | "re-ask"
  | "give-up"
  | "verifiability-refinement"
  | "redundancy-pruning"
  | "similarity"
  | "circuits"
  | "weights"
  | "budget";

export interface AspmLogEntry {
  step: AspmLogStep;
  /** What the entry is about: a chunk reference, clause id, rule id or predicate name. */
  target: string;
  /** What happened, in a few words. */
  change: string;
  why: string;
  before?: unknown;
  after?: unknown;
}

export interface AspmDraft {
  clauses: Clause[];
  predicates: Map<string, Predicate>;
  rules: TemporalRule[];
  log: AspmLogEntry[];
}

export function createDraft(options: { onLog?: (entry: AspmLogEntry) => void }): AspmDraft & {
  record(entry: AspmLogEntry): void;
} {
  const draft = { clauses: [], predicates: new Map(), rules: [], log: [] } as AspmDraft;
  return Object.assign(draft, {
    record(entry: AspmLogEntry) {
      draft.log.push(entry);
      options.onLog?.(entry);
    },
  });
}

/** "end" for obligations (something must eventually happen), "step" for safety rules. */
export function inferCheck(options: { formula: string }): "step" | "end" {
  const ast = parseLtl({ formula: options.formula });
  const stack: LtlAst[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.op === "F" || node.op === "U" || node.op === "X") return "end";
    if ("arg" in node) stack.push(node.arg);
    else if ("left" in node) stack.push(node.left, node.right);
  }
  return "step";
}

export function predicateFromModel(options: { predicate: ModelPredicate; source: string }): Predicate {
  const p = options.predicate;
  return {
    name: p.name,
    kind: p.kind,
    description: p.description,
    binding: p.binding,
    source: options.source,
  };
}

export function ruleFromModel(options: {
  rule: ModelRule;
  id: string;
  clause: Clause | undefined;
  source?: string;
}): TemporalRule {
  const r = options.rule;
  const c = options.clause;
  const source = options.source ?? (c ? `${c.reference ?? c.id}: ${c.text}` : undefined);
  const formula = formatLtl({ ast: parseLtl({ formula: r.formula }) });
  return {
    id: options.id,
    formula,
    description: r.description,
    type: r.type,
    weight: 1,
    effect: r.effect,
    message: r.description,
    countermeasure: r.countermeasure,
    ...(source !== undefined ? { source } : {}),
    check: inferCheck({ formula }),
    meta: c ? { clause: c.id } : {},
  };
}

function renameAst(ast: LtlAst, names: ReadonlyMap<string, string>): LtlAst {
  if (ast.op === "atom") return names.has(ast.name) ? { op: "atom", name: names.get(ast.name)! } : ast;
  if ("arg" in ast) return { op: ast.op, arg: renameAst(ast.arg, names) };
  if ("left" in ast)
    return { op: ast.op, left: renameAst(ast.left, names), right: renameAst(ast.right, names) };
  return ast;
}

/** The formula with atoms renamed (printed canonically). */
export function renameInFormula(options: { formula: string; names: ReadonlyMap<string, string> }): string {
  return formatLtl({ ast: renameAst(parseLtl({ formula: options.formula }), options.names) });
}

/** The clause a rule came from (rule.meta.clause). */
export function clauseOf(options: { draft: AspmDraft; rule: TemporalRule }): Clause | undefined {
  const id = options.rule.meta?.clause;
  return typeof id === "string" ? options.draft.clauses.find((c) => c.id === id) : undefined;
}

/** Safe id fragment from a document name. */
export function slugId(options: { text: string }): string {
  return (
    options.text
      .replace(/\.[A-Za-z0-9]+$/, "")
      .replace(/[^A-Za-z0-9_.:-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "doc"
  );
}
