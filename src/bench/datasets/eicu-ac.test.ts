import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isWardenError } from "../../core/errors.js";
import { loadEicuAc } from "./eicu-ac.js";

// Hand-written records and logs in the official shape (not copied from the dataset).
const SEPARATOR = `\n${"-".repeat(58)}\n`;
const CODE =
  "db = LoadDB('medication')\nanswer = GetValue(FilterDB(db, 'drugname=aspirin 81 mg'), 'routeadmin')";
const LOG = [
  "what is the intake method of aspirin 81 mg?",
  "['oral']",
  "Question: an example\nKnowledge:\n- k\nSolution:\n answer = 1\n\n(END OF EXAMPLES)\nKnowledge:\n- aspirin is a drug.\nQuestion: what is the intake method of aspirin 81 mg?\nSolution: ",
  `{\n"cell": ${JSON.stringify(CODE)}\n}`,
  "oral",
  "TERMINATE",
  "Ground-Truth Answer ---> oral",
].join(SEPARATOR);

const record = (overrides: Record<string, unknown> = {}) => ({
  id: "aaaa0001",
  identity: "nursing",
  label: 0,
  inaccessible_db: {},
  access_gt: { medication: ["drugname", "routeadmin"] },
  template: "what is the intake method of aspirin 81 mg?",
  question: "how is aspirin 81 mg taken?",
  query: "select distinct medication.routeadmin from medication where medication.drugname = 'aspirin 81 mg'",
  answer: ["oral"],
  split: "valid",
  db_id: "eicu",
  ...overrides,
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "warden-eicu-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeDataset(options: {
  base: string;
  logsDir: string;
  records: unknown;
  logs: Record<string, string>;
}) {
  await mkdir(join(options.base, options.logsDir), { recursive: true });
  await writeFile(join(options.base, "eicu_ac.json"), JSON.stringify(options.records));
  for (const [id, text] of Object.entries(options.logs))
    await writeFile(join(options.base, options.logsDir, `${id}.txt`), text);
}

describe("loadEicuAc", () => {
  it("loads the flat layout and frames subjects as GuardAgent does", async () => {
    await writeDataset({
      base: dir,
      logsDir: "ehragent_logs",
      records: [
        record(),
        record({
          identity: "general administration",
          label: 1,
          inaccessible_db: { medication: ["routeadmin"] },
        }),
      ],
      logs: { aaaa0001: LOG },
    });
    await writeFile(
      join(dir, "access_policy.json"),
      JSON.stringify({ _note: "x", roles: { nursing: { medication: ["drugname"] } } }),
    );
    const dataset = await loadEicuAc({ dir });
    expect(dataset.layout).toBe("flat");
    expect(dataset.problems).toEqual([]);
    expect(dataset.accessPolicy).toEqual({ nursing: { medication: ["drugname"] } });
    expect(dataset.records.map((r) => r.id)).toEqual(["aaaa0001:nursing", "aaaa0001:general administration"]);
    const [first, second] = dataset.records;
    expect(first!.subject).toEqual({
      id: "aaaa0001:nursing",
      input: "Identity: nursing\nQuestion: what is the intake method of aspirin 81 mg?",
      output: `Knowledge:\n- aspirin is a drug.\n\nGenerated code:\n${CODE}\nAnswer:\noral`,
      context: { identity: "nursing" },
    });
    expect(first!.log.lastRunCode).toBe(CODE);
    expect(first!.answer).toEqual(["oral"]);
    expect(second).toMatchObject({
      label: 1,
      inaccessible: { medication: ["routeadmin"] },
      questionId: "aaaa0001",
    });
  });

  it("loads the official ehragent/eicu_ac.json + ehragent/logs layout", async () => {
    await writeDataset({
      base: join(dir, "ehragent"),
      logsDir: "logs",
      records: [record()],
      logs: { aaaa0001: LOG },
    });
    const dataset = await loadEicuAc({ dir });
    expect(dataset.layout).toBe("official");
    expect(dataset.records).toHaveLength(1);
    expect(dataset.accessPolicy).toBeNull();
  });

  it("reports malformed records by id instead of throwing", async () => {
    await writeDataset({
      base: dir,
      logsDir: "ehragent_logs",
      records: [
        record({ label: 2 }),
        record({ id: "bbbb0002", template: undefined }),
        "not an object",
        record({ id: "cccc0003" }),
        record(),
        record(),
        record({ id: "../escape" }),
      ],
      logs: { aaaa0001: LOG },
    });
    await writeFile(join(dir, "access_policy.json"), "{ not json");
    const dataset = await loadEicuAc({ dir });
    expect(dataset.records.map((r) => r.id)).toEqual(["aaaa0001:nursing"]);
    const messages = dataset.problems.map((p) => `${p.id ?? "-"}@${p.index ?? "-"}: ${p.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/^aaaa0001@0: invalid record: label/),
      expect.stringMatching(/^bbbb0002@1: invalid record: template/),
      expect.stringMatching(/^-@2: invalid record/),
      expect.stringMatching(/^cccc0003@3: log cccc0003\.txt is not readable/),
      expect.stringMatching(/^cccc0003:nursing@3: record left out/),
      expect.stringMatching(/^aaaa0001:nursing@5: duplicate record/),
      expect.stringMatching(/^\.\.\/escape:nursing@6: id is not usable as a log file name/),
      expect.stringMatching(/^-@-: access_policy\.json is not readable JSON/),
    ]);
  });

  it("throws DATASET_INVALID when the dataset itself is unusable", async () => {
    const code = async (options: { dir: string }) => {
      try {
        await loadEicuAc(options);
        return "loaded";
      } catch (error) {
        return isWardenError(error) ? error.code : "other";
      }
    };
    expect(await code({ dir: join(dir, "missing") })).toBe("DATASET_INVALID");
    await writeFile(join(dir, "eicu_ac.json"), "[]");
    expect(await code({ dir })).toBe("DATASET_INVALID");
    await mkdir(join(dir, "ehragent_logs"));
    await writeFile(join(dir, "eicu_ac.json"), JSON.stringify({ records: [] }));
    expect(await code({ dir })).toBe("DATASET_INVALID");
    await writeFile(join(dir, "eicu_ac.json"), "[");
    expect(await code({ dir })).toBe("DATASET_INVALID");
    expect(await code({ dir: "" })).toBe("INVALID_INPUT");
  });
});

const realDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../..", "../shared/datasets/eicu-ac");
describe.skipIf(!existsSync(join(realDir, "eicu_ac.json")))("loadEicuAc on the shared dataset", () => {
  it("loads every record with no problems", async () => {
    const dataset = await loadEicuAc({ dir: realDir });
    expect(dataset.problems).toEqual([]);
    expect(dataset.records.length).toBeGreaterThan(0);
    expect(dataset.accessPolicy).not.toBeNull();
  });
});
