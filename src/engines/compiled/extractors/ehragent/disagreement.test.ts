import { describe, expect, it } from "vitest";
import { classifyDisagreement } from "./disagreement.js";

const CODE = [
  "# labresult is mentioned only in this comment",
  "lab_db = LoadDB('lab')",
  "labresult = 3  # a variable, not a column read",
  "f = FilterDB(lab_db, 'patientunitstayid=1||max(labresulttime)')",
  "answer = GetValue(f, 'labresulttime')",
].join("\n");

describe("classifyDisagreement", () => {
  it("is empty when extraction and annotation agree", () => {
    const tables = { lab: ["labresulttime", "patientunitstayid"] };
    expect(
      classifyDisagreement({
        extracted: tables,
        accessGt: { lab: ["patientunitstayid", "labresulttime"] },
        code: CODE,
      }),
    ).toEqual([]);
  });

  it("(b): the annotation lists a column the code never names where it could be read", () => {
    const [d] = classifyDisagreement({
      extracted: { lab: ["labresulttime", "patientunitstayid"] },
      accessGt: { lab: ["labresult", "labresulttime", "patientunitstayid"] },
      code: CODE,
      goldSql: "select lab.labresulttime from lab where lab.patientunitstayid = 1",
    });
    expect(d).toMatchObject({ table: "lab", column: "labresult", kind: "missing", cause: "b" });
    expect(d!.explanation).toMatch(/reads lab\.labresulttime.*gold SQL does not read it either/);
  });

  it("(b): a column named like a table the code only loads", () => {
    const code = "c = LoadDB('cost')\nanswer = GetValue(FilterDB(c, 'uniquepid=1'), 'chargetime, max')";
    const [d] = classifyDisagreement({
      extracted: { cost: ["chargetime", "uniquepid"] },
      accessGt: { cost: ["chargetime", "cost", "uniquepid"] },
      code,
    });
    expect(d).toMatchObject({ column: "cost", cause: "b" });
  });

  it("(b): a table the code never uses", () => {
    const [d] = classifyDisagreement({
      extracted: { lab: ["labresulttime", "patientunitstayid"] },
      accessGt: { lab: ["labresulttime", "patientunitstayid"], patient: ["patientunitstayid"] },
      code: CODE,
    });
    expect(d).toMatchObject({ table: "patient", column: "patientunitstayid", cause: "b" });
  });

  it("(a): a column the code names but the extractor missed, or one it invented", () => {
    const missed = classifyDisagreement({
      extracted: { lab: ["labresulttime"] },
      accessGt: { lab: ["labresulttime", "patientunitstayid"] },
      code: CODE,
    });
    expect(missed).toMatchObject([{ column: "patientunitstayid", kind: "missing", cause: "a" }]);
    const invented = classifyDisagreement({
      extracted: { lab: ["labid", "labresulttime", "patientunitstayid"] },
      accessGt: { lab: ["labresulttime", "patientunitstayid"] },
      code: CODE,
    });
    expect(invented).toMatchObject([{ column: "labid", kind: "extra", cause: "a" }]);
  });

  it("(c): the code reads a column the annotation omits", () => {
    const result = classifyDisagreement({
      extracted: { lab: ["labresulttime", "patientunitstayid"] },
      accessGt: { lab: ["labresulttime"] },
      code: CODE,
    });
    expect(result).toMatchObject([{ column: "patientunitstayid", kind: "extra", cause: "c" }]);
  });

  it("(c): the code exposes a whole table", () => {
    const result = classifyDisagreement({
      extracted: { allergy: ["allergyid", "allergyname"] },
      accessGt: { allergy: ["allergyid"] },
      code: "answer = FilterDB(LoadDB('allergy'), 'allergyid=1')",
      wholeTables: ["allergy"],
    });
    expect(result).toMatchObject([{ column: "allergyname", kind: "extra", cause: "c" }]);
  });

  it("(d): the last logged code failed, so the code that answered is unknown", () => {
    const result = classifyDisagreement({
      extracted: { lab: ["labresulttime"] },
      accessGt: { lab: ["labresulttime", "patientunitstayid"] },
      code: CODE,
      lastRunCodeFailed: true,
    });
    expect(result).toMatchObject([{ column: "patientunitstayid", cause: "d" }]);
  });

  it("blames the extractor when it failed to read the code", () => {
    const result = classifyDisagreement({
      extracted: {},
      accessGt: { lab: ["labname"] },
      code: "x = (",
      extractionErrors: ["Python syntax error"],
    });
    expect(result).toMatchObject([{ column: "labname", cause: "a" }]);
  });
});
