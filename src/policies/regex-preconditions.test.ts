/**
 * A bundled rule may put a cheap `containsAny` before a `matches` on the same field (`all: [containsAny,
 * matches]`) so that a check whose text has none of the words never compiles the regex: a one-shot hook
 * pays ~3–8 ms per cold RE2 compile. That is only sound when the words are necessary — every text the
 * regex matches contains one of them — or the rule stops firing on texts it fired on before (an allow it
 * should not give). This suite finds every such pair in every bundled policy and checks it on texts
 * generated to match the regex, with the case changes RE2's case folding admits when the regex ignores
 * case (including `ſ` for s and the Kelvin sign for k: a plain text is also read in NFKC, which folds
 * them, but a `raw.` field is read as written, so its precondition must name them).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Comparison, type Condition, evaluateComparison } from "../core/condition.js";
import { listBundledPolicies, loadPolicy } from "./load-policy.js";

interface Pair {
  policy: string;
  precondition: Comparison;
  regex: Comparison;
}

function isComparison(c: Condition): c is Comparison {
  return "op" in c;
}

/** Every `containsAny` followed, in the same `all`, by a positive `matches` on the same field. */
function pairsIn(policy: string, node: unknown, out: Pair[]): Pair[] {
  if (Array.isArray(node)) {
    for (const item of node) pairsIn(policy, item, out);
    return out;
  }
  if (node === null || typeof node !== "object") return out;
  const all = (node as { all?: unknown }).all;
  if (Array.isArray(all)) {
    const children = all as Condition[];
    children.forEach((pre, i) => {
      if (!isComparison(pre) || pre.op !== "containsAny") return;
      for (const later of children.slice(i + 1)) {
        if (isComparison(later) && later.op === "matches" && later.field === pre.field) {
          expect(later.part, "a precondition reads the same value as its regex").toEqual(pre.part);
          out.push({ policy, precondition: pre, regex: later });
        }
      }
    });
  }
  for (const value of Object.values(node)) pairsIn(policy, value, out);
  return out;
}

function bundledPairs(): Pair[] {
  const pairs: Pair[] = [];
  for (const name of listBundledPolicies()) pairsIn(name, loadPolicy({ ref: name }).policy.rules, pairs);
  return pairs;
}

/**
 * The regex as JavaScript reads it, for fast-check's generator (which takes no flags): RE2's inline
 * `(?i:…)` as a plain group; `refold` then varies the case of what it generates.
 */
function generatorRegex(pattern: string): RegExp {
  return new RegExp(pattern.replaceAll("(?i:", "(?:"));
}

/** Characters RE2's simple case folding puts with an ASCII letter, besides its other case. */
const FOLD_PARTNERS: Record<string, string> = { s: "\u017f", k: "\u212a" };

/** A text the same regex matches when case is ignored: letters flipped, s/k swapped for their partners. */
function refold(text: string, choices: readonly number[]): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const choice = choices[i % choices.length] ?? 0;
    const partner = FOLD_PARTNERS[ch.toLowerCase()];
    if (choice === 2 && partner) out += partner;
    else if (choice === 1) out += ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
    else out += ch;
  }
  return out;
}

/**
 * The comparison on `text` as a plain value: both read the same value of the same field (a command's
 * simple commands, a URL's host), so a word the precondition needs is needed there. A `raw.` field keeps
 * its prefix: it is read as written, without the respellings (NFKC…) a plain text also gets.
 */
function holds(c: Comparison, text: string): boolean {
  const { part: _part, ...plain } = c;
  const raw = c.field.startsWith("raw.");
  return evaluateComparison(
    { ...plain, field: raw ? "raw.args.text" : "text" },
    raw ? { args: { text } } : { text },
  );
}

describe("regex preconditions in the bundled policies", () => {
  const pairs = bundledPairs();

  it("finds the coding-agent's preconditions", () => {
    expect(pairs.filter((p) => p.policy === "coding-agent").length).toBeGreaterThanOrEqual(25);
  });

  for (const [index, { policy, precondition, regex }] of pairs.entries()) {
    const pattern = String(regex.value);
    it(`${policy} #${index}: every text /${pattern.slice(0, 40)}…/ matches contains one of the words`, () => {
      const caseSensitive = regex.caseSensitive === true;
      const texts = fc
        .tuple(
          fc.stringMatching(generatorRegex(pattern)),
          fc.array(fc.integer({ min: 0, max: caseSensitive && !pattern.includes("(?i:") ? 0 : 2 }), {
            minLength: 1,
            maxLength: 8,
          }),
        )
        .map(([text, choices]) => refold(text, choices));
      fc.assert(
        fc.property(texts, (text) => {
          fc.pre(holds(regex, text));
          return holds(precondition, text);
        }),
        { numRuns: 1_000 },
      );
    });
  }

  it("needs the long s where a secret's name is read as written", () => {
    const secrets = pairs.filter((p) => String(p.regex.value).includes("|ssh$|env"));
    expect(secrets.map((p) => p.regex.field).sort()).toEqual([
      "args.command",
      "args.glob",
      "raw.args.command",
    ]);
    for (const { regex, precondition } of secrets) {
      for (const text of ["cat .\u017f\u017fh/id_rsa", "cat .hi\u017ftory", "cat .ENV", "cat .\u017fSH/x"]) {
        expect(holds(regex, text), `${regex.field}: ${text}`).toBe(true);
        expect(holds(precondition, text), `${precondition.field}: ${text}`).toBe(true);
      }
    }
  });
});
