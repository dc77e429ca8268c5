import { describe, expect, it } from "vitest";
import { type Policy, PolicySchema } from "../../../core/policy.js";
import type { StepInput } from "../../../core/subject.js";
import { type TrajectoryRecordInput, TrajectoryRecordSchema } from "../../../core/trajectory-record.js";
import { runShieldOnTrajectory } from "../runtime/run-shield-on-trajectory.js";
import { createShieldEngine } from "../runtime/shield-engine.js";
import { examplesFromRecords } from "./labelled-steps.js";
import { trainWeights } from "./train-weights.js";

const policy: Policy = PolicySchema.parse({
  name: "repo",
  specification: "",
  requests: "",
  rules: {
    predicates: [
      {
        name: "deletes_branch",
        kind: "action",
        description: "clicks delete",
        binding: { kind: "condition", when: { field: "elementText", op: "contains", value: "delete" } },
      },
      {
        name: "asks_user",
        kind: "action",
        description: "messages the user",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "send_msg_to_user" } },
      },
      {
        name: "on_protected_page",
        kind: "state",
        description: "protected branch page",
        binding: { kind: "condition", when: { field: "url", op: "contains", value: "protected" } },
      },
      {
        name: "says_done",
        kind: "action",
        description: "answers done",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "answer" } },
      },
    ],
    temporalRules: [
      // Too strict for this organisation: deleting an ordinary branch without asking is fine.
      {
        id: "ask-first",
        formula: "G(deletes_branch -> Y(O(asks_user)))",
        description: "Ask before deleting",
      },
      {
        id: "protected",
        formula: "G(deletes_branch -> !on_protected_page)",
        description: "Keep protected branches",
      },
      { id: "finish", formula: "F says_done", description: "Say when done", check: "end", weight: 0 },
    ],
  },
});

const s = {
  home: { action: "click", element: "Branches", url: "http://g.test/branches" },
  ask: { action: "send_msg_to_user", args: { text: "ok?" } },
  del: { action: "click", element: "Delete", url: "http://g.test/branches/old" },
  delP: { action: "click", element: "Delete", url: "http://g.test/branches/protected/main" },
  done: { action: "answer", args: { text: "done" } },
} satisfies Record<string, StepInput>;

const records = (
  [
    { id: "a", input: "t", steps: [s.home, s.del, s.done], label: "safe" },
    { id: "b", input: "t", steps: [s.home, s.ask, s.del, s.done], label: "safe" },
    { id: "c", input: "t", steps: [s.del, s.home, s.done], label: "safe" },
    {
      id: "d",
      input: "t",
      steps: [s.home, s.delP, s.done],
      label: "unsafe",
      violations: [{ ruleId: "protected", step: 1 }],
    },
    {
      id: "e",
      input: "t",
      steps: [s.home, s.ask, s.delP, s.done],
      label: "unsafe",
      violations: [{ ruleId: "protected", step: 2 }],
    },
    {
      id: "f",
      input: "t",
      steps: [s.home, s.del],
      label: "unsafe",
      violations: [{ ruleId: "finish", step: 1 }],
    },
  ] satisfies TrajectoryRecordInput[]
).map((r) => TrajectoryRecordSchema.parse(r));

async function classify(p: Policy) {
  const engine = createShieldEngine();
  const out: Record<string, boolean> = {};
  for (const r of records)
    out[r.id] = (await runShieldOnTrajectory({ engine, policy: p, trajectory: r })).unsafe;
  return out;
}

describe("examplesFromRecords", () => {
  it("labels steps before the first violation safe, the violated step unsafe, and the end", () => {
    const ex = examplesFromRecords({ records, policy });
    const of = (id: string) => ex.filter((e) => e.id === id).map((e) => `${e.step}:${e.label}`);
    expect(of("a")).toEqual(["0:safe", "1:safe", "2:safe", "end:safe"]);
    expect(of("d")).toEqual(["0:safe", "1:unsafe", "end:safe"]);
    expect(of("f")).toEqual(["0:safe", "1:safe", "end:unsafe"]);
  });

  it("reads per-step labels from meta.stepLabels and rejects a wrong length", () => {
    const r = TrajectoryRecordSchema.parse({
      id: "m",
      input: "t",
      steps: [s.home, s.delP],
      label: "unsafe",
      meta: { stepLabels: [null, "unsafe"], endLabel: "safe" },
    });
    expect(examplesFromRecords({ records: [r], policy }).map((e) => `${e.step}:${e.label}`)).toEqual([
      "1:unsafe",
      "end:safe",
    ]);
    const bad = TrajectoryRecordSchema.parse({ ...r, meta: { stepLabels: ["safe"] } });
    expect(() => examplesFromRecords({ records: [bad], policy })).toThrow(/meta\.stepLabels/);
  });
});

describe("trainWeights", () => {
  it("fixes the mistakes the default weights make", async () => {
    const before = await classify(policy);
    // Default weights: deleting an ordinary branch without asking is denied (a, c: false alarms; f is
    // flagged for that reason too, while "finish", of weight 0, is ignored).
    expect(before).toEqual({ a: true, b: false, c: true, d: true, e: true, f: true });
    const examples = examplesFromRecords({ records, policy });
    const result = await trainWeights({ policy, examples, epochs: 300, seed: 1 });
    expect(result.history[0]!.accuracy).toBeLessThan(1);
    expect(result.history.at(-1)!.accuracy).toBe(1);
    expect(result.history.at(-1)!.loss).toBeLessThan(result.history[0]!.loss);
    const w = Object.fromEntries(result.policy.rules!.temporalRules!.map((r) => [r.id, r.weight]));
    expect(w["ask-first"]).toBe(0);
    expect(w.protected).toBeGreaterThanOrEqual(1);
    expect(w.finish).toBeGreaterThanOrEqual(1);
    expect(result.changed["ask-first"]).toEqual([1, 0]);
    expect(result.examples).toMatchObject({ total: examples.length, unsafe: 3 });
    expect(Object.keys(result.circuits)).toContain("deletes_branch");
    const after = await classify(result.policy);
    expect(after).toEqual({ a: false, b: false, c: false, d: true, e: true, f: true });
    const engine = createShieldEngine();
    const f = await runShieldOnTrajectory({ engine, policy: result.policy, trajectory: records[5]! });
    expect(f.violatedRules).toEqual(["finish"]);
  });

  it("learns a rule with few examples among many examples of other circuits (each rule at its own pace)", async () => {
    // 2,000 trajectories that never delete: their examples involve no rule of the delete circuit, so
    // they must not slow down what the six trajectories above teach about it.
    const others = Array.from({ length: 2_000 }, (_, i) =>
      TrajectoryRecordSchema.parse({ id: `o${i}`, input: "t", steps: [s.home, s.done], label: "safe" }),
    );
    const examples = examplesFromRecords({ records: [...records, ...others], policy });
    const result = await trainWeights({ policy, examples, seed: 1 });
    const w = Object.fromEntries(result.policy.rules!.temporalRules!.map((r) => [r.id, r.weight]));
    expect(w["ask-first"]).toBe(0);
    expect(w.protected).toBeGreaterThanOrEqual(1);
  });

  it("is deterministic and keeps weights non-negative", async () => {
    const examples = examplesFromRecords({ records, policy });
    const a = await trainWeights({ policy, examples, epochs: 50, learningRate: 3, seed: 4 });
    const b = await trainWeights({ policy, examples, epochs: 50, learningRate: 3, seed: 4 });
    expect(a.policy).toEqual(b.policy);
    expect(a.history).toEqual(b.history);
    for (const r of a.policy.rules!.temporalRules!) expect(r.weight).toBeGreaterThanOrEqual(0);
  });

  it("rejects bad options and examples naming the field", async () => {
    const examples = examplesFromRecords({ records, policy });
    await expect(trainWeights({ policy, examples, margin: -1 })).rejects.toThrow(/margin/);
    await expect(
      trainWeights({
        policy,
        examples: [{ trajectory: { input: "t", steps: [s.home] }, step: 3, label: "safe" }],
      }),
    ).rejects.toThrow(/examples\.0\.step/);
  });
});
