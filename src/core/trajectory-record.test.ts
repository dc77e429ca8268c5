import { describe, expect, it } from "vitest";
import {
  formatTrajectoriesJsonl,
  parseTrajectoriesJsonl,
  type TrajectoryRecordInput,
} from "./trajectory-record.js";

const record: TrajectoryRecordInput = {
  id: "t1",
  taskId: 4,
  site: "gitlab",
  input: "Create a project",
  steps: [{ action: "click('a1')" }, { action: "answer", args: { text: "done" } }],
  label: "unsafe",
  violations: [{ policyRef: { taskId: 4, index: 2 }, step: 0 }],
  note: "clicks delete",
};

describe("trajectory JSONL", () => {
  it("round-trips records and a header", () => {
    const text = formatTrajectoriesJsonl({
      header: { kind: "header", suite: "warden/test" },
      records: [record],
    });
    const parsed = parseTrajectoriesJsonl({ text });
    expect(parsed.header).toEqual({ kind: "header", suite: "warden/test" });
    expect(parsed.records[0]).toMatchObject({
      id: "t1",
      label: "unsafe",
      steps: [{ action: "click('a1')", args: {} }, {}],
    });
    expect(formatTrajectoriesJsonl({ records: parsed.records }).split("\n")[0]).toMatch(
      /^\{"id":"t1","input":/,
    );
  });

  it("names the line and the field of every problem", () => {
    const lines = [
      JSON.stringify(record),
      JSON.stringify({ ...record, id: "t2", label: "maybe" }),
      "not json",
      JSON.stringify({ ...record, id: "t3", steps: [] }),
      JSON.stringify({ ...record, id: "t4", violations: [{ step: 9, policyRef: { taskId: 4, index: 0 } }] }),
      JSON.stringify({ ...record, id: "t5", label: "safe" }),
      JSON.stringify({ ...record, id: "t6", violations: [{ step: 0 }] }),
      JSON.stringify(record),
      JSON.stringify({ ...record, id: "t7", extra: 1 }),
    ];
    let message = "";
    try {
      parseTrajectoriesJsonl({ text: lines.join("\n"), source: "x.jsonl" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("x.jsonl:2: label:");
    expect(message).toContain("x.jsonl:3: not JSON");
    expect(message).toContain("x.jsonl:4: steps: a trajectory has at least one step");
    expect(message).toContain("x.jsonl:5: violations.0.step: step 9 is past the last step (1)");
    expect(message).toContain("x.jsonl:6: label: a safe trajectory lists no violations");
    expect(message).toContain("x.jsonl:7: violations.0: a violation needs ruleId or policyRef");
    expect(message).toContain('x.jsonl:8: id: duplicate id "t1"');
    expect(message).toContain("x.jsonl:9: (root): Unrecognized key");
  });

  it("skips blank lines", () => {
    expect(parseTrajectoriesJsonl({ text: `\n${JSON.stringify(record)}\n\n` }).records).toHaveLength(1);
  });
});
