import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listStWebAgentBenchReleases, loadStWebAgentBench } from "./st-webagentbench.js";

const goodPolicy = {
  policy_template_id: "navigation_limitation",
  description: "Do not visit the profile",
  eval: { eval_types: ["is_url_match"], url_note: "contains_any", reference_url: "/profile" },
};

const tasks = [
  {
    task_id: 1,
    intent: "first",
    sites: ["gitlab"],
    policies: [goodPolicy, [goodPolicy, { ...goodPolicy, eval: { eval_types: [] } }]],
  },
  { task_id: "two", intent: "bad id", policies: [] },
  {
    task_id: 3,
    intent: "third",
    policies: [{ description: "no template", eval: { eval_types: ["popup_error"] } }],
  },
];

describe("loadStWebAgentBench", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "stwab-"));
    await mkdir(join(dir, "latest-2026-03"));
    await mkdir(join(dir, "v1-2024-10"));
    await writeFile(join(dir, "latest-2026-03", "test.raw.json"), JSON.stringify([tasks[0]]));
    await writeFile(join(dir, "v1-2024-10", "test.raw.json"), JSON.stringify(tasks));
    await writeFile(join(dir, "broken.json"), "{ not json");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("finds releases and picks one by version", async () => {
    expect((await listStWebAgentBenchReleases({ path: dir })).map((r) => r.version)).toEqual([
      "latest",
      "v1",
    ]);
    const latest = await loadStWebAgentBench({ path: dir });
    expect(latest).toMatchObject({ version: "latest", policies: 2, nestedPolicies: 2 });
    expect(latest.malformed).toEqual([
      { id: "task 1 policy 2", taskId: 1, index: 2, reason: expect.stringContaining("eval.eval_types") },
    ]);
    const v1 = await loadStWebAgentBench({ path: dir, version: "v1" });
    expect(v1.version).toBe("v1");
    expect(v1.tasks.map((t) => t.task_id)).toEqual([1, 3]);
    expect(v1.tasks[0]!.policies.map((p) => p.index)).toEqual([0, 1]);
  });

  it("reports malformed records by id and keeps the rest", async () => {
    const v1 = await loadStWebAgentBench({ path: join(dir, "v1-2024-10", "test.raw.json") });
    expect(v1.version).toBe("v1");
    expect(v1.malformed.map((m) => m.id)).toEqual(["task 1 policy 2", "record #1", "task 3 policy 0"]);
    expect(v1.malformed[1]!.reason).toMatch(/task_id/);
    expect(v1.malformed[2]!.reason).toMatch(/policy_template_id/);
  });

  it("throws only for a missing or unreadable dataset, naming the problem", async () => {
    await expect(loadStWebAgentBench({ path: join(dir, "nope") })).rejects.toThrow(/not found/);
    await expect(loadStWebAgentBench({ path: join(dir, "broken.json") })).rejects.toThrow(
      /cannot read .* as JSON/,
    );
    await expect(
      loadStWebAgentBench({ path: join(dir, "latest-2026-03"), version: "v2" as never }),
    ).rejects.toThrow(/version/);
    await expect(loadStWebAgentBench({ path: tmpdir(), version: "v1" })).rejects.toThrow(
      /no test\.raw\.json for version v1/,
    );
  });
});
