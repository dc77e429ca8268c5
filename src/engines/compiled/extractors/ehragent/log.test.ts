import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCell, formatEhrAgentOutput, parseEhrAgentLog, splitEhrAgentOutput } from "./log.js";

// Hand-written logs in the shape EHRAgent writes (not copied from the dataset).
const SEPARATOR = `\n${"-".repeat(58)}\n`;
const log = (...sections: string[]) => sections.join(SEPARATOR);
const cell = (code: string) => `{\n"cell": ${JSON.stringify(code)}\n}`;

const QUESTION = "what is the intake method of ibuprofen 200 mg tab?";
const PROMPT = [
  "Assume you have knowledge of several tables:",
  "(1) Tables are linked by identifiers.",
  "Question: what is the gender of patient 001-1?",
  "Knowledge:",
  "- We can find the patient in the patient database.",
  "Solution:",
  " patient_db = LoadDB('patient')",
  "answer = GetValue(FilterDB(patient_db, 'uniquepid=001-1'), 'gender')",
  "",
  "(END OF EXAMPLES)",
  "Knowledge:",
  "- As ibuprofen 200 mg tab is a drug, we can find it in the medication database.",
  "- The routeadmin column holds the intake method.",
  "Question: what is the intake method of ibuprofen 200 mg tab?",
  "Solution: ",
].join("\n");
const CODE =
  "medication_db = LoadDB('medication')\nfiltered = FilterDB(medication_db, 'drugname=ibuprofen 200 mg tab')\nanswer = GetValue(filtered, 'routeadmin')";

describe("parseEhrAgentLog", () => {
  it("parses the plain shape: cell, result, TERMINATE, ground truth", () => {
    const parsed = parseEhrAgentLog({
      text: log(
        QUESTION,
        "['oral', 'po']",
        PROMPT,
        cell(CODE),
        "oral, po",
        "TERMINATE",
        "Ground-Truth Answer ---> oral, po",
      ),
    });
    expect(parsed).toMatchObject({
      question: QUESTION,
      goldAnswers: ["oral", "po"],
      knowledge:
        "Knowledge:\n- As ibuprofen 200 mg tab is a drug, we can find it in the medication database.\n- The routeadmin column holds the intake method.\n",
      hasExamplesMarker: true,
      codeCells: [CODE],
      lastRunCode: CODE,
      lastRunCodeFailed: false,
      answer: "oral, po",
      executionResult: "oral, po",
      terminated: true,
      groundTruth: "oral, po",
      shape: "CrTG",
      warnings: [],
    });
  });

  it("takes the last cell before TERMINATE when earlier attempts failed", () => {
    const first = CODE.replace("routeadmin", "route");
    const parsed = parseEhrAgentLog({
      text: log(
        QUESTION,
        "['oral']",
        PROMPT,
        cell(first),
        "Error: The column name route is incorrect.\nPotential Reasons: ...",
        cell(CODE),
        "oral",
        "TERMINATE",
        "Ground-Truth Answer ---> oral\nres-right\n",
      ),
    });
    expect(parsed.codeCells).toEqual([first, CODE]);
    expect(parsed.codeBlocks.map((b) => b.failed)).toEqual([true, false]);
    expect(parsed.lastRunCode).toBe(CODE);
    expect(parsed.answer).toBe("oral");
    expect(parsed.shape).toBe("CECrTG");
    expect(parsed.sections).toHaveLength(9);
  });

  it("takes the answer from the section before the one holding TERMINATE", () => {
    const parsed = parseEhrAgentLog({
      text: log(
        QUESTION,
        "['12.5']",
        PROMPT,
        cell(CODE),
        "12.5",
        "The average cost is 12.5.\n\nTERMINATE",
        "Ground-Truth Answer ---> 12.5",
      ),
    });
    expect(parsed.answer).toBe("12.5");
    expect(parsed.shape).toBe("CrTG");
  });

  it("falls back to the question's Knowledge block when the examples marker is missing", () => {
    const prompt = [
      "Question: an example?",
      "Knowledge:",
      "- example knowledge",
      "Solution:",
      " answer = 1",
      "",
      "Question: what is the intake method of ibuprofen 200 mg tab?",
      "Knowledge:",
      "- The routeadmin column holds the intake method.",
      "Solution: ",
    ].join("\n");
    const parsed = parseEhrAgentLog({
      text: log(QUESTION, "['oral']", prompt, cell(CODE), "oral", "TERMINATE"),
    });
    expect(parsed.hasExamplesMarker).toBe(false);
    expect(parsed.knowledge).toBe("Knowledge:\n- The routeadmin column holds the intake method.\n");
    expect(parsed.lastRunCode).toBe(CODE);
  });

  it("recognises bare code sections and ignores prose that quotes code", () => {
    const prose = `The error says the column is wrong. Let's fix it.\n\n${CODE}`;
    const parsed = parseEhrAgentLog({
      text: log(
        QUESTION,
        "['oral']",
        PROMPT,
        CODE,
        "",
        cell(CODE),
        "Error: boom",
        prose,
        "",
        cell(CODE),
        "oral",
        "TERMINATE",
      ),
    });
    expect(parsed.codeBlocks.map((b) => b.source)).toEqual(["raw", "cell", "cell"]);
    expect(parsed.shape).toBe("K.CEr.CrT");
    expect(parsed.warnings).toEqual([]);
  });

  it("marks a last cell whose result is an error (the code that answered was not logged)", () => {
    const parsed = parseEhrAgentLog({
      text: log(
        QUESTION,
        "['oral']",
        PROMPT,
        cell(CODE),
        "Error: no such value",
        "I will fix the value.",
        "oral",
        "",
        "TERMINATE",
      ),
    });
    expect(parsed.lastRunCodeFailed).toBe(true);
    expect(parsed.answer).toBe("");
    expect(parsed.executionResult).toBe("Error: no such value");
  });

  it("decodes cells that are not strict JSON", () => {
    const loose =
      "{\n\"cell\": \"db = LoadDB('lab')\\n\\\nx = FilterDB(db, 'labname=a\\'b')\\nanswer = x\"\n}";
    expect(decodeCell({ section: loose })).toBe(
      "db = LoadDB('lab')\nx = FilterDB(db, 'labname=a\\'b')\nanswer = x",
    );
    const rawNewlines = '{\n"cell": "a = 1\nb = \\"two\\"\tc"\n}';
    expect(decodeCell({ section: rawNewlines })).toBe('a = 1\nb = "two"\tc');
    expect(decodeCell({ section: "{ no cell here }" })).toBeNull();
  });

  it("never throws on malformed logs", () => {
    for (const text of [
      "",
      "just one section",
      log("q", "not a list", "no prompt"),
      log("q", "[]", PROMPT, '{"cell": 3}'),
    ]) {
      const parsed = parseEhrAgentLog({ text });
      expect(parsed.warnings.length).toBeGreaterThan(0);
      expect(parsed.lastRunCode).toBeNull();
    }
    expect(parseEhrAgentLog({ text: log("q", "not a list") }).goldAnswers).toEqual(["not a list"]);
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), (sections) => {
        expect(typeof parseEhrAgentLog({ text: log(...sections) }).shape).toBe("string");
      }),
      { numRuns: 100 },
    );
  });
});

describe("formatEhrAgentOutput / splitEhrAgentOutput", () => {
  it("frames output as GuardAgent does", () => {
    expect(formatEhrAgentOutput({ knowledge: "Knowledge:\n- k\n", code: "answer = 1", answer: "1" })).toBe(
      "Knowledge:\n- k\n\nGenerated code:\nanswer = 1\nAnswer:\n1",
    );
  });

  it("splits what it framed (property)", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "\n", ":", " ", "G", "A", "Answer:", "Generated code:"),
    });
    fc.assert(
      fc.property(text, text, text, (knowledge, code, answer) => {
        fc.pre(!`${knowledge}\n`.includes("\nGenerated code:\n") && !`\n${answer}`.includes("\nAnswer:\n"));
        expect(splitEhrAgentOutput({ output: formatEhrAgentOutput({ knowledge, code, answer }) })).toEqual({
          knowledge,
          code,
          answer,
        });
      }),
    );
    expect(splitEhrAgentOutput({ output: "no markers" })).toBeNull();
  });
});
