/**
 * The instructions of each ASPM building step (our own wording). Each says what to produce, what the
 * pieces mean in Warden (predicates bound to step facts or to a yes/no question; LTLf syntax; rule
 * types and effects), and what makes an answer usable.
 */
import type { Clause, Predicate, TemporalRule } from "../../../core/policy.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { STEP_FACT_FIELDS } from "./aspm-schemas.js";

export const POLICY_EXTRACTION_SYSTEM = [
  "You read one excerpt of an organisation's policy document and list the individual policies it states",
  "for an autonomous software agent. A policy is one requirement or prohibition a reviewer could check.",
  "For each, give: definitions of the terms it uses (so it reads on its own), its application scope (who,",
  "when, where it applies; empty if everywhere), its description (the exact constraint, in one or two",
  "sentences, faithful to the text), and the reference: the numbered item or sentence of the excerpt it",
  "comes from. Skip headings, background and purpose statements that require nothing.",
].join(" ");

export function policyExtractionPrompt(options: { reference: string; text: string }): string {
  return [`Excerpt (${options.reference}):`, '"""', options.text, '"""'].join("\n");
}

const LTL_HELP = [
  "LTLf syntax: atoms are predicate names; ! & | -> <-> ; future: G (always), F (eventually), X (next),",
  "WX (weak next), U (until), R (release); past: Y (previous step), O (at some earlier or this step),",
  "H (at every step so far), S (since). Put a space or parenthesis between an operator and an atom: G(p -> q),",
  "not Gp. Typical shapes: G(!deletes_file) — never; G(deletes_file -> Y(O(user_confirmed))) — only after",
  "an earlier confirmation; G(sends_email & external_recipient -> !contains_pii) — a condition on an action.",
].join(" ");

function bindingHelp(detectors: DetectorRegistry): string {
  const fields = Object.entries(STEP_FACT_FIELDS)
    .map(([k, v]) => `${k} (${v})`)
    .join("; ");
  const list = detectors
    .names()
    .map((n) => `${n}: ${detectors.get({ name: n })?.description ?? ""}`)
    .join("\n  ");
  return [
    "Each predicate needs a binding that says how its truth value is found at a step:",
    '- {"kind":"condition","when":C}: C holds for the current step. C is {"field":F,"op":OP,"value":V} with OP one of',
    "  eq ne in notIn contains containsAny containsAll matches startsWith endsWith lt le gt ge exists empty",
    '  (text comparisons ignore case), or {"all":[C,...]}, {"any":[C,...]}, {"not":C}.',
    `  Fields F (dot paths): ${fields}.`,
    '- {"kind":"history","when":C,"within":N?}: C held at this or some earlier step (optionally within the last N).',
    '- {"kind":"detector","detector":D,"field":F?,"params":{...}?}: a detector over the step. Detectors:',
    `  ${list}`,
    '- {"kind":"ask","question":Q}: only when nothing above can observe it — a yes/no question about the current step.',
  ].join("\n");
}

export function ruleExtractionSystem(options: { detectors: DetectorRegistry }): string {
  return [
    "You translate one policy of an autonomous agent into verifiable rules over predicates.",
    "Predicates are lower-case identifiers. Action predicates describe what the agent does at a step",
    "(deletes_file, sends_email); state predicates describe the situation (file_is_shared, recipient_is_external).",
    "Prefer predicates that can be observed from the step itself, and reuse the existing predicates listed when",
    "they mean the same thing (same name, same kind). Declare every predicate a formula uses, new ones in",
    '"predicates". Each rule has: a description in plain words; an LTLf formula; type "action" when it constrains',
    'an action predicate, "physical" when it only relates state predicates; effect "deny" (forbidden) or "ask"',
    "(allowed only with a human's confirmation); a countermeasure (what the agent should do instead). Make",
    'rules atomic: one requirement each. If the policy states nothing verifiable, return no rules and a "note".',
    "",
    LTL_HELP,
    "",
    bindingHelp(options.detectors),
  ].join("\n");
}

function describePredicates(predicates: readonly Predicate[]): string {
  if (predicates.length === 0) return "(none yet)";
  return predicates
    .map(
      (p) =>
        `- ${p.name} (${p.kind}): ${p.description}${p.binding ? ` — binding ${JSON.stringify(p.binding)}` : ""}`,
    )
    .join("\n");
}

export function ruleExtractionPrompt(options: { clause: Clause; known: readonly Predicate[] }): string {
  const c = options.clause;
  const defs = Object.entries(c.definitions).map(([t, d]) => `- ${t}: ${d}`);
  return [
    `Policy (${c.reference ?? c.id}):`,
    c.text,
    c.scope ? `Applies: ${c.scope}` : "",
    defs.length > 0 ? `Definitions:\n${defs.join("\n")}` : "",
    `Existing predicates:\n${describePredicates(options.known)}`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

export function semanticRepairMessage(options: { problems: readonly string[] }): string {
  return [
    "The answer cannot be used yet:",
    ...options.problems.map((p) => `- ${p}`),
    "Answer again with the whole corrected JSON value.",
  ].join("\n");
}

export function refinementSystem(options: { detectors: DetectorRegistry }): string {
  return [
    "You review one rule of an agent's safety policy model and make it verifiable. A good rule is",
    "accurate (its formula says exactly what the policy text says), observable (each predicate can be given a",
    "true/false value from a single step of the agent, preferably by a condition or detector binding rather than",
    "a question) and atomic (one requirement; split a conjunction of requirements into several rules).",
    'If the rule is already good, answer {"changed": false, "reason": ...}. Otherwise answer "changed": true,',
    "the replacement rules (one or more) and any new or redefined predicates (same name = redefinition;",
    "a predicate may not change kind).",
    "",
    LTL_HELP,
    "",
    bindingHelp(options.detectors),
  ].join("\n");
}

export function refinementPrompt(options: {
  rule: TemporalRule;
  clause: Clause | undefined;
  predicates: readonly Predicate[];
  vagueness: number;
}): string {
  const r = options.rule;
  return [
    `Rule ${r.id} (vagueness ${options.vagueness.toFixed(3)}: how much its predicates resemble others of their kind):`,
    `description: ${r.description}`,
    `formula: ${r.formula}`,
    `type: ${r.type}; effect: ${r.effect}; countermeasure: ${r.countermeasure ?? ""}`,
    options.clause
      ? `It comes from (${options.clause.reference ?? options.clause.id}): ${options.clause.text}`
      : "",
    `Its predicates:\n${describePredicates(options.predicates)}`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

export const MERGE_SYSTEM = [
  "You review a group of predicates of an agent's safety policy model that look alike. Decide whether they",
  "mean the same thing at a step of the agent. If they do, answer merge: true and the one predicate to keep",
  "(its name must be one of the group's names; give its best description and binding). If they differ in",
  "meaning, answer merge: false. Give the reason either way.",
].join(" ");

export function mergePrompt(options: {
  predicates: readonly Predicate[];
  uses: Readonly<Record<string, string[]>>;
}): string {
  return [
    `Predicates (all of kind ${options.predicates[0]?.kind ?? "?"}):`,
    ...options.predicates.map(
      (p) =>
        `- ${p.name}: ${p.description}\n  binding: ${JSON.stringify(p.binding ?? null)}\n  used by: ${(options.uses[p.name] ?? []).join("; ") || "no rule"}`,
    ),
  ].join("\n");
}
