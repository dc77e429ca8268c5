import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PolicySchema } from "../../core/policy.js";
import { formatTrajectoriesJsonl, type TrajectoryRecordInput } from "../../core/trajectory-record.js";
import { registerPolicyTrainCommand, splitHoldout } from "./policy-train.js";

const policy = {
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
    ],
    temporalRules: [
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
    ],
  },
};

function records(): TrajectoryRecordInput[] {
  const out: TrajectoryRecordInput[] = [];
  for (let i = 0; i < 10; i += 1) {
    out.push({
      id: `safe-${i}`,
      input: "clean up",
      label: "safe",
      steps: [
        { action: "click", element: "Branches" },
        { action: "click", element: "Delete", url: `http://g.test/b/feature-${i}` },
      ],
    });
    out.push({
      id: `unsafe-${i}`,
      input: "clean up",
      label: "unsafe",
      steps: [
        { action: "click", element: "Branches" },
        { action: "click", element: "Delete", url: `http://g.test/b/protected/release-${i}` },
      ],
      violations: [{ ruleId: "protected", step: 1 }],
    });
  }
  return out;
}

function program(): Command {
  const root = new Command("warden").exitOverride();
  root.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const group = root.command("policy").exitOverride();
  registerPolicyTrainCommand({ policy: group }).exitOverride();
  return root;
}

describe("warden policy train", () => {
  let dir = "";
  let out: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "policy-train-"));
    await writeFile(join(dir, "aspm.json"), JSON.stringify(policy));
    await writeFile(join(dir, "data.jsonl"), formatTrajectoriesJsonl({ records: records() }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });
  const capture = () => {
    out = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
  };

  it("reports ACC and FPR on the holdout before and after, and writes the trained policy", async () => {
    capture();
    const file = join(dir, "trained.json");
    await program().parseAsync(
      [
        "policy",
        "train",
        "--aspm",
        join(dir, "aspm.json"),
        "--data",
        join(dir, "data.jsonl"),
        "-o",
        file,
        "--holdout",
        "0.3",
        "--seed",
        "3",
        "--json",
      ],
      { from: "user" },
    );
    expect(process.exitCode).toBe(0);
    const report = JSON.parse(out.join(""));
    expect(report.trajectories).toEqual({ train: 14, holdout: 6 });
    expect(report.evaluatedOn).toBe("holdout");
    expect(report.before.FPR).toBeGreaterThan(0);
    expect(report.after).toMatchObject({ ACC: 100, FPR: 0 });
    expect(report.after.ACC).toBeGreaterThan(report.before.ACC);
    expect(report.changed["ask-first"]).toEqual([1, 0]);
    const trained = PolicySchema.parse(JSON.parse(await readFile(file, "utf8")));
    expect(trained.rules!.temporalRules!.find((r) => r.id === "ask-first")!.weight).toBe(0);
  });

  it("prints a readable report and rejects bad flags", async () => {
    capture();
    await program().parseAsync(
      [
        "policy",
        "train",
        "--aspm",
        join(dir, "aspm.json"),
        "--data",
        join(dir, "data.jsonl"),
        "-o",
        join(dir, "t2.json"),
      ],
      { from: "user" },
    );
    expect(out.join("")).toMatch(/before: ACC [\d.]+ {2}FPR [\d.]+/);
    await expect(
      program().parseAsync(
        [
          "policy",
          "train",
          "--aspm",
          join(dir, "aspm.json"),
          "--data",
          join(dir, "data.jsonl"),
          "-o",
          "x.json",
          "--holdout",
          "2",
        ],
        { from: "user" },
      ),
    ).rejects.toThrow(/--holdout/);
    await expect(
      program().parseAsync(
        [
          "policy",
          "train",
          "--aspm",
          join(dir, "aspm.json"),
          "--data",
          join(dir, "missing.jsonl"),
          "-o",
          "x.json",
        ],
        { from: "user" },
      ),
    ).rejects.toThrow(/--data: no such file/);
  });

  it("splits deterministically", () => {
    const r = records().map((x) => ({ ...x, steps: [], label: x.label })) as never[];
    const a = splitHoldout({ records: r, share: 0.25, seed: 9 });
    expect(a).toEqual(splitHoldout({ records: r, share: 0.25, seed: 9 }));
    expect(a.holdout).toHaveLength(5);
  });
});
