/**
 * Tool names between a policy and the providers that call the tools. Policies name tools as the agent's
 * world does (`email.send`, `github.create_issue`, `mcp__github__create_issue`), while OpenAI's and
 * Anthropic's function names must match `^[a-zA-Z0-9_-]+$`, so an application registers `email.send` as
 * `email_send`. Every integration resolves the name it is given here, so a bundled policy governs the same
 * tool behind every framework.
 *
 * Resolution, first that applies (names compare without case, as tool rules do):
 * 1. exact: the name is one the policy knows (vocabulary actions, tool rules and circuits naming one tool,
 *    argument kinds naming one tool);
 * 2. alias: `rules.vocabulary.toolAliases` maps it (`{ "send_mail": "email.send" }`);
 * 3. mapped: exactly one known name becomes it under the default mapping (`providerToolName`);
 * 4. unknown: no known name does; the name is checked as given (glob rules and `toolDefault` apply).
 *    Unless it reads as a known name once trimmed, in compatibility form or without accents (as texts
 *    are read: canonical/text.ts), as a dispatcher that strips or normalises names reads it
 *    (`"repo_delete "`): then it is ambiguous between the name as written and that tool.
 * Two known names that both map to it make it ambiguous, and the check fails closed: which rules govern
 * the call cannot be known.
 */
import { textReadings } from "./canonical/text.js";
import type { Policy } from "./policy.js";

/** The default mapping to a provider's function name: every character outside [A-Za-z0-9_-] becomes "_". */
export function providerToolName(options: { name: string }): string {
  return options.name.replace(/[^A-Za-z0-9_-]/g, "_");
}

export type ResolvedToolName =
  | { name: string; via: "exact" | "alias" | "mapped" | "unknown" }
  | { ambiguous: string[] };

/** Tool names the policy names one by one (a glob names none): lower-cased → as written. */
function knownToolNames(options: { policy: Policy }): Map<string, string> {
  const rules = options.policy.rules;
  const names = new Map<string, string>();
  const add = (name: string) => {
    if (!/[*?]/.test(name) && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  };
  for (const action of rules?.vocabulary?.actions ?? []) add(action);
  for (const rule of rules?.toolRules ?? []) add(rule.tool);
  for (const circuit of rules?.circuits ?? []) add(circuit.action);
  for (const tool of Object.keys(rules?.argumentKinds ?? {})) add(tool);
  for (const target of Object.values(rules?.vocabulary?.toolAliases ?? {})) add(target);
  return names;
}

/** Known names per policy object: a policy is immutable once loaded, and every call resolves against it. */
const knownByPolicy = new WeakMap<Policy, Map<string, string>>();

function knownOf(options: { policy: Policy }): Map<string, string> {
  let known = knownByPolicy.get(options.policy);
  if (!known) {
    known = knownToolNames(options);
    knownByPolicy.set(options.policy, known);
  }
  return known;
}

export function resolveToolName(options: { policy: Policy; name: string }): ResolvedToolName {
  const { policy, name } = options;
  const resolved = resolveAsGiven({ policy, name });
  if (!("name" in resolved) || resolved.via !== "unknown") return resolved;
  // A name known to none of the rules may still be one when read as a dispatcher reads names (trimmed,
  // compatibility form, no accents: text.ts): `"repo_delete "` is `repo_delete`, which maps to
  // `repo.delete`. Such a name is the unknown tool as written or a known one: ambiguous, so the check
  // fails closed (a deny on the known tool holds, and its allow is not given to another spelling).
  const found = new Set<string>();
  for (const reading of textReadings({ text: name }).slice(1)) {
    const read = resolveAsGiven({ policy, name: reading });
    if ("ambiguous" in read) {
      for (const candidate of read.ambiguous) found.add(candidate);
    } else if (read.via !== "unknown") found.add(read.name);
  }
  return found.size > 0 ? { ambiguous: [name, ...[...found].sort()] } : resolved;
}

/** resolveToolName for the name exactly as given. */
function resolveAsGiven(options: { policy: Policy; name: string }): ResolvedToolName {
  const { policy, name } = options;
  const known = knownOf({ policy });
  const lower = name.toLowerCase();
  const exact = known.get(lower);
  if (exact !== undefined) return { name: exact, via: "exact" };
  const aliases = policy.rules?.vocabulary?.toolAliases ?? {};
  for (const [alias, target] of Object.entries(aliases)) {
    if (alias.toLowerCase() === lower) return { name: target, via: "alias" };
  }
  const mapped = [...known.values()].filter((k) => providerToolName({ name: k }).toLowerCase() === lower);
  if (mapped.length === 1) return { name: mapped[0]!, via: "mapped" };
  if (mapped.length > 1) return { ambiguous: mapped.sort() };
  return { name, via: "unknown" };
}
