import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError, type WardenError } from "../core/errors.js";
import { loadDemonstrations, parseDemonstrations } from "./demonstration-file.js";

const dir = mkdtempSync(join(tmpdir(), "warden-demos-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const one = {
  id: "eicu-nursing-1",
  input: "Identity: nursing\nQuestion: what is the intake method of aspirin 81 mg po chew?",
  output: "Knowledge:\n- aspirin is a drug\nGenerated code:\nanswer = GetValue(...)\nAnswer:\npo",
  plan: "1. access control\n2. nursing may read medication\n3. reads medication.routeadmin\n4. CheckAccess",
  code: 'return checkAccess({ identity: "nursing", needed: { medication: ["drugname", "routeadmin"] } });',
  label: 0,
};

async function failure(promise: Promise<unknown>): Promise<WardenError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isWardenError(error)).toBe(true);
  return error as WardenError;
}

describe("demonstration files", () => {
  it("reads a JSON array, JSONL and a YAML list into the same demonstrations", async () => {
    const jsonFile = join(dir, "a.json");
    writeFileSync(
      jsonFile,
      JSON.stringify([one, { ...one, id: undefined, label: undefined, meta: { note: "ü" } }]),
    );
    const jsonlFile = join(dir, "b.jsonl");
    writeFileSync(
      jsonlFile,
      `${JSON.stringify({ ...one, id: "x1" })}\n\n${JSON.stringify({ ...one, id: "x2" })}\r\n`,
    );
    const yamlFile = join(dir, "c.yaml");
    writeFileSync(
      yamlFile,
      [
        "- id: y1",
        "  input: |-",
        "    Identity: nursing",
        "    Question: what is the intake method of aspirin 81 mg po chew?",
        `  output: ${JSON.stringify(one.output)}`,
        `  plan: ${JSON.stringify(one.plan)}`,
        `  code: ${JSON.stringify(one.code)}`,
        "  label: 0",
      ].join("\n"),
    );
    const fromJson = await loadDemonstrations({ path: jsonFile });
    expect(fromJson).toEqual(
      [one, { ...one, id: undefined, label: undefined, meta: { note: "ü" } }].map(strip),
    );
    expect((await loadDemonstrations({ path: jsonlFile })).map((d) => d.id)).toEqual(["x1", "x2"]);
    expect(await loadDemonstrations({ path: yamlFile })).toEqual([{ ...one, id: "y1" }]);
  });

  it("reads a directory in name order, skipping other files", async () => {
    const sub = join(dir, "dir");
    mkdirSync(sub);
    writeFileSync(join(sub, "2-second.yml"), `- ${JSON.stringify({ ...one, id: "second" })}\n`);
    writeFileSync(join(sub, "1-first.json"), JSON.stringify([{ ...one, id: "first" }]));
    writeFileSync(join(sub, "README.md"), "# not demonstrations");
    writeFileSync(join(sub, "3-empty.yaml"), "");
    expect((await loadDemonstrations({ path: sub })).map((d) => d.id)).toEqual(["first", "second"]);
  });

  it("names the file, the item and the field of an invalid demonstration", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify([one, { ...one, id: "ok2" }, { ...one, id: "b", plan: 3 }]));
    const e = await failure(loadDemonstrations({ path: file }));
    expect(e.code).toBe("INVALID_INPUT");
    expect(e.message).toContain(file);
    expect(e.message).toContain("item 2");
    expect(e.message).toContain("[2].plan");

    const typo = join(dir, "typo.yaml");
    writeFileSync(typo, `- ${JSON.stringify({ ...one, ouput: "x" })}\n`);
    const t = await failure(loadDemonstrations({ path: typo }));
    expect(t.message).toContain("typo.yaml");
    expect(t.message).toMatch(/ouput/);

    const missing = join(dir, "missing.jsonl");
    writeFileSync(missing, `${JSON.stringify(one)}\n{"input": "i", "plan": "p", "code": "c"}\n`);
    const m = await failure(loadDemonstrations({ path: missing }));
    expect(m.message).toContain("line 2");
    expect(m.message).toContain("[1].output");
  });

  it("reports syntax errors, wrong shapes, duplicate ids and bad paths", async () => {
    const broken = join(dir, "broken.jsonl");
    writeFileSync(broken, `${JSON.stringify(one)}\n{not json\n`);
    expect((await failure(loadDemonstrations({ path: broken }))).message).toMatch(/line 2.*not JSON/);
    expect(() => parseDemonstrations({ text: '{"input": "x"}', format: "json", file: "obj.json" })).toThrow(
      /obj\.json: expected a list/,
    );
    expect(() => parseDemonstrations({ text: "- a: [", format: "yaml", file: "y.yaml" })).toThrow(
      /y\.yaml: not valid YAML/,
    );
    const dup = join(dir, "dup");
    mkdirSync(dup);
    writeFileSync(join(dup, "a.json"), JSON.stringify([one]));
    writeFileSync(join(dup, "b.json"), JSON.stringify([one]));
    expect((await failure(loadDemonstrations({ path: dup }))).message).toMatch(
      /eicu-nursing-1.*also used by/,
    );
    expect((await failure(loadDemonstrations({ path: join(dir, "nope") }))).message).toContain("not found");
    const txt = join(dir, "demos.txt");
    writeFileSync(txt, "x");
    expect((await failure(loadDemonstrations({ path: txt }))).message).toContain("Unsupported");
  });
});

function strip<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
