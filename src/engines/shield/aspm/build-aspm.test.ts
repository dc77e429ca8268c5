import { describe, expect, it } from "vitest";
import type { Predicate } from "../../../core/policy.js";
import { createScriptedModel, type ScriptedRequest } from "../../../testing/scripted-model.js";
import { buildAspm } from "./build-aspm.js";
import { predicateSimilarity, predicateVagueness, ruleVagueness } from "./predicate-similarity.js";
import { similarGroups } from "./prune-redundancy.js";

const DOC = {
  name: "mini.md",
  text: "# Mini policy\n\n## 1 Deletion\n\nNever delete records.\n\n## 2 Sharing\n\nNever share secrets.",
};
const click = (word: string) => ({
  kind: "condition",
  when: {
    all: [
      { field: "actionType", op: "eq", value: "click" },
      { field: "elementText", op: "contains", value: word },
    ],
  },
});

function reply(request: ScriptedRequest): string {
  const system = request.system ?? "";
  const user = request.messages[0]?.content ?? "";
  if (system.includes("list the individual policies")) {
    if (user.includes("§1"))
      return JSON.stringify({ policies: [{ description: "Never delete records.", reference: "1" }] });
    if (user.includes("§2"))
      return JSON.stringify({ policies: [{ description: "Never share secrets.", reference: "2" }] });
    return JSON.stringify({ policies: [] });
  }
  if (system.includes("translate one policy")) {
    if (user.includes("Never delete records.")) {
      return JSON.stringify({
        predicates: [
          {
            name: "deletes_record",
            kind: "action",
            description: "deletes a record",
            binding: click("delete"),
          },
        ],
        rules: [
          {
            description: "Never delete records",
            formula: "G !deletes_record",
            type: "action",
            countermeasure: "Archive it",
          },
        ],
      });
    }
    // Always an undeclared predicate: given up after the bounded re-asks.
    return JSON.stringify({
      predicates: [],
      rules: [
        {
          description: "Never share secrets",
          formula: "G !shares_secret",
          type: "action",
          countermeasure: "Do not",
        },
      ],
    });
  }
  if (system.includes("review one rule")) return JSON.stringify({ changed: false, reason: "fine" });
  return JSON.stringify({ merge: false, reason: "different" });
}

describe("buildAspm", () => {
  it("gives up on a clause after bounded re-asks and keeps the rest", async () => {
    const model = createScriptedModel({ replies: Array.from({ length: 30 }, () => reply) });
    const logged: string[] = [];
    const r = await buildAspm({
      model,
      documents: [DOC],
      name: "mini",
      embeddings: "off",
      onLog: (e) => logged.push(e.step),
    });
    expect(r.policy.rules!.temporalRules!.map((x) => x.formula)).toEqual(["G !deletes_record"]);
    expect(r.report.gaveUp).toEqual([
      { target: "mini.c2", reason: expect.stringContaining('"shares_secret", which is not declared') },
    ]);
    expect(r.log.filter((e) => e.step === "re-ask" && e.target === "mini.c2")).toHaveLength(2);
    expect(logged).toEqual(r.log.map((e) => e.step));
    expect(r.report.verification.ok).toBe(true);
    expect(r.report).toMatchObject({
      clauses: 2,
      rules: 1,
      predicates: 1,
      stopped: "converged",
      similarity: "lexical",
    });
    expect(r.report.budget.used).toBe(model.stats().requests);
  });

  it("stops at the budget of model calls and says so", async () => {
    const model = createScriptedModel({ replies: Array.from({ length: 30 }, () => reply) });
    const r = await buildAspm({ model, documents: [DOC], name: "mini", budget: 3, embeddings: "off" });
    expect(r.report.budget).toEqual({ limit: 3, used: 3 });
    expect(model.requests).toHaveLength(3);
    expect(r.log.some((e) => e.step === "budget")).toBe(true);
  });

  it("uses the model's embeddings for similarity when it has them", async () => {
    const model = createScriptedModel({
      replies: Array.from({ length: 30 }, () => reply),
      embed: (text) => [text.length % 7, 1, text.includes("delete") ? 1 : 0],
    });
    const r = await buildAspm({ model, documents: [DOC], name: "mini" });
    expect(r.report.similarity).toBe("embeddings");
  });

  it("rejects bad options naming the field", async () => {
    const model = createScriptedModel({ replies: [] });
    await expect(buildAspm({ model, documents: [], name: "x" })).rejects.toThrow(/documents/);
    await expect(buildAspm({ model, documents: [DOC], name: "x", budget: 0 })).rejects.toThrow(/budget/);
  });
});

describe("vagueness and redundancy groups", () => {
  const preds: Predicate[] = [
    { name: "deletes_record", kind: "action", description: "deletes a record" },
    { name: "deletes_records", kind: "action", description: "deletes records" },
    { name: "sends_mail", kind: "action", description: "sends an e-mail" },
    { name: "is_private", kind: "state", description: "the record is private" },
  ];

  it("scores a predicate by its top-k similarity to others of its kind", async () => {
    const s = await predicateSimilarity({
      predicates: preds,
      embeddings: "off",
      cache: { vectors: new Map() },
      budget: { limit: 0, used: 0 },
    });
    expect(s.method).toBe("lexical");
    const v = predicateVagueness({ predicates: preds, similarity: s, k: 1 });
    expect(v.get("deletes_record")!).toBeGreaterThan(v.get("sends_mail")!);
    // Alone of its kind: nothing to resemble.
    expect(v.get("is_private")).toBe(0);
    expect(ruleVagueness({ atoms: ["deletes_record", "is_private"], vagueness: v })).toBeCloseTo(
      v.get("deletes_record")! / 2,
      12,
    );
    expect(
      similarGroups({ predicates: preds, similarity: s, threshold: 0.7 }).map((g) => g.map((p) => p.name)),
    ).toEqual([["deletes_record", "deletes_records"]]);
  });
});
