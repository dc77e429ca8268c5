import { describe, expect, it } from "vitest";
import { type Policy, PolicySchema } from "../../../core/policy.js";
import { buildCircuits, clusterStatePredicates } from "./build-circuits.js";
import { spectralClustering } from "./spectral-clustering.js";
import { trigramCosine, trigramVector } from "./trigram-similarity.js";

function policyOf(options: {
  predicates: Array<[string, "action" | "state", string]>;
  rules: Array<[string, string, ("action" | "physical")?]>;
}): Policy {
  return PolicySchema.parse({
    name: "t",
    specification: "",
    requests: "",
    rules: {
      predicates: options.predicates.map(([name, kind, description]) => ({ name, kind, description })),
      temporalRules: options.rules.map(([id, formula, type]) => ({ id, formula, description: id, type })),
    },
  });
}

const policy = policyOf({
  predicates: [
    ["delete_record", "action", "deletes a record"],
    ["send_email", "action", "sends an e-mail"],
    ["export_file", "action", "exports a file"],
    ["is_patient_record", "state", "the record belongs to a patient"],
    ["has_consent", "state", "the patient gave consent"],
    ["is_external_address", "state", "the address is outside the organisation"],
    ["contains_pii", "state", "the content holds personal data"],
    ["is_encrypted", "state", "the file is encrypted"],
  ],
  rules: [
    ["r.delete", "G(delete_record & is_patient_record -> has_consent)"],
    ["r.email", "G(send_email & is_external_address -> !contains_pii)"],
    ["r.export", "G(export_file & contains_pii -> is_encrypted)"],
    ["r.phys.pii", "G(is_patient_record -> contains_pii)", "physical"],
    ["r.phys.ext", "G(is_external_address -> !is_encrypted | contains_pii)", "physical"],
    ["r.phys.lonely", "G(!has_consent | is_patient_record)", "physical"],
  ],
});

describe("spectralClustering", () => {
  it("finds the blocks of a block-diagonal affinity and picks k by the eigengap", () => {
    const blocks = [3, 4, 2];
    const n = blocks.reduce((a, b) => a + b, 0);
    const group = blocks.flatMap((size, g) => new Array<number>(size).fill(g));
    const affinity = Array.from({ length: n }, (_, i) =>
      Array.from({ length: n }, (_, j) => (group[i] === group[j] ? 1 : 0.01)),
    );
    const r = spectralClustering({ affinity, seed: 3 });
    expect(r.k).toBe(3);
    expect(r.labels).toEqual([0, 0, 0, 1, 1, 1, 1, 2, 2]);
    expect(spectralClustering({ affinity, k: 2, seed: 3 }).k).toBe(2);
    expect(spectralClustering({ affinity, seed: 3 })).toEqual(r);
  });

  it("rejects a non-square or negative affinity naming the field", () => {
    expect(() => spectralClustering({ affinity: [[0, 1], [1]] })).toThrow(/affinity: row 1/);
    expect(() =>
      spectralClustering({
        affinity: [
          [0, -1],
          [-1, 0],
        ],
      }),
    ).toThrow(/affinity/);
  });
});

describe("trigram similarity", () => {
  it("is 1 for the same words and low for unrelated ones", () => {
    const a = trigramVector({ text: "contains_pii" });
    expect(trigramCosine({ a, b: trigramVector({ text: "Contains PII" }) })).toBeCloseTo(1, 9);
    expect(trigramCosine({ a, b: trigramVector({ text: "is_encrypted" }) })).toBeLessThan(0.2);
  });
});

describe("buildCircuits", () => {
  it("gives every action a circuit with its rules, their clusters and the physical rules touching them", () => {
    const circuits = buildCircuits({ policy });
    expect(circuits.map((c) => c.action)).toEqual(["delete_record", "send_email", "export_file"]);
    const byAction = Object.fromEntries(circuits.map((c) => [c.action, c]));
    expect(byAction.delete_record!.rules).toContain("r.delete");
    expect(byAction.send_email!.rules).toContain("r.email");
    for (const c of circuits) {
      // Every state predicate the circuit's action rules read is in one of its clusters.
      const inClusters = new Set(c.clusters.flat());
      const own = policy.rules!.temporalRules!.filter((r) => r.formula.includes(c.action));
      for (const r of own)
        for (const s of (r.formula.match(/[a-z_]+/g) ?? []).filter(
          (x) => x.startsWith("is_") || x.startsWith("has_") || x.startsWith("contains_"),
        ))
          expect(inClusters.has(s)).toBe(true);
      // A physical rule is included exactly when it touches one of the circuit's clusters.
      for (const r of policy.rules!.temporalRules!.filter((x) => x.type === "physical")) {
        const touches = (r.formula.match(/[a-z_]+/g) ?? []).some((s) => inClusters.has(s));
        expect(c.rules.includes(r.id)).toBe(touches);
      }
    }
  });

  it("clusters co-occurring predicates together and is deterministic for a seed", () => {
    const { clusters, predicates } = clusterStatePredicates({ policy });
    expect(clusters.flat().sort()).toEqual([...predicates].sort());
    const together = (a: string, b: string) => clusters.some((c) => c.includes(a) && c.includes(b));
    expect(together("is_patient_record", "has_consent")).toBe(true);
    expect(buildCircuits({ policy, seed: 5 })).toEqual(buildCircuits({ policy, seed: 5 }));
  });

  it("takes clusters as given or as a number", () => {
    const given = buildCircuits({ policy, clusters: [["is_encrypted"], ["contains_pii"]] });
    const exp = given.find((c) => c.action === "export_file")!;
    expect(exp.clusters).toEqual([["is_encrypted"], ["contains_pii"]]);
    // r.phys.pii touches contains_pii; r.phys.ext touches both; r.phys.lonely neither.
    expect(exp.rules).toEqual(["r.export", "r.phys.pii", "r.phys.ext"]);
    const one = buildCircuits({ policy, clusters: 1 });
    for (const c of one) expect(c.clusters).toHaveLength(1);
    expect(() => buildCircuits({ policy, clusters: [["nope"]] })).toThrow(/clusters\.0: "nope"/);
    expect(() => buildCircuits({ policy, clusters: 0 })).toThrow(/clusters/);
  });

  it("reports a formula that does not parse with the rule id", () => {
    const bad = policyOf({ predicates: [["a", "action", "a"]], rules: [["r.bad", "G(a ->"]] });
    expect(() => buildCircuits({ policy: bad })).toThrow(/rule r\.bad/);
  });

  it("handles 500 predicates and 3,000 rules", () => {
    const predicates: Array<[string, "action" | "state", string]> = [];
    for (let i = 0; i < 100; i += 1)
      predicates.push([`act_${i}`, "action", `performs operation number ${i}`]);
    for (let i = 0; i < 400; i += 1)
      predicates.push([`state_${i}`, "state", `condition ${i % 40} of group ${Math.floor(i / 40)}`]);
    const rules: Array<[string, string, ("action" | "physical")?]> = [];
    for (let i = 0; i < 3000; i += 1) {
      const a = `act_${i % 100}`;
      const g = (i * 7) % 10;
      const s1 = `state_${g * 40 + (i % 40)}`;
      const s2 = `state_${g * 40 + ((i * 13) % 40)}`;
      rules.push(
        i % 10 === 9 ? [`r${i}`, `G(${s1} -> ${s2})`, "physical"] : [`r${i}`, `G(${a} & ${s1} -> !${s2})`],
      );
    }
    const big = policyOf({ predicates, rules });
    const circuits = buildCircuits({ policy: big, seed: 2 });
    // Rules i ≡ 9 (mod 10) are physical, so act_9, act_19, ... constrain nothing and get no circuit.
    expect(circuits).toHaveLength(90);
    const covered = new Set(circuits.flatMap((c) => c.rules));
    expect(covered.size).toBe(3000);
  });
});
