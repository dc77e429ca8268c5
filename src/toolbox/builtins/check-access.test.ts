import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WardenError } from "../../core/errors.js";
import { createQuickJsSandbox, type QuickJsSandbox } from "../../sandbox/quickjs-sandbox.js";
import { CHECK_ACCESS_FUNCTION, checkAccess } from "./check-access.js";

describe("checkAccess (host)", () => {
  it("denies tables the identity may not read, with all their needed columns", () => {
    const result = checkAccess({
      allowed: { patient: ["uniquepid", "patientunitstayid"], lab: ["labname"] },
      needed: { patient: ["uniquepid"], diagnosis: ["diagnosisname", "icd9code"] },
    });
    expect(result).toEqual({ denied: true, inaccessible: { diagnosis: ["diagnosisname", "icd9code"] } });
  });

  it("lists the needed columns that are not allowed, in the order needed gives them", () => {
    const result = checkAccess({
      allowed: { patient: ["uniquepid"], lab: ["labname"] },
      needed: { lab: ["labresult", "labname", "labresulttime"], patient: ["age", "uniquepid"] },
    });
    expect(JSON.stringify(result.inaccessible)).toBe(
      '{"lab":["labresult","labresulttime"],"patient":["age"]}',
    );
  });

  it("grants everything when all needed columns are allowed", () => {
    expect(
      checkAccess({ allowed: { lab: ["labname", "labresult"] }, needed: { lab: ["labresult"] } }),
    ).toEqual({ denied: false, inaccessible: {} });
  });

  it('reads "*" as every column', () => {
    expect(checkAccess({ allowed: { lab: "*" }, needed: { lab: ["anything"] } }).denied).toBe(false);
    expect(checkAccess({ allowed: { lab: ["*"] }, needed: { lab: ["anything"] } }).denied).toBe(false);
    expect(checkAccess({ allowed: { lab: ["labname"] }, needed: { lab: ["*"] } }).inaccessible).toEqual({
      lab: ["*"],
    });
  });

  it("compares names trimmed and without case, merging duplicates", () => {
    const result = checkAccess({
      allowed: { " Patient ": ["UniquePID"] },
      needed: { patient: ["uniquepid ", "AGE"], PATIENT: ["age", "gender"] },
    });
    expect(result).toEqual({ denied: true, inaccessible: { patient: ["AGE", "gender"] } });
  });

  it("reports a table that is not allowed even with no columns", () => {
    expect(checkAccess({ allowed: {}, needed: { cost: [] } })).toEqual({
      denied: true,
      inaccessible: { cost: [] },
    });
  });

  it("accepts comma-separated column lists", () => {
    expect(
      checkAccess({ allowed: { lab: "labname, labresult" }, needed: { lab: "labresult,labresulttime" } }),
    ).toEqual({
      denied: true,
      inaccessible: { lab: ["labresulttime"] },
    });
  });

  it("keeps a table named __proto__ an ordinary key", () => {
    const needed = Object.defineProperty({}, "__proto__", { value: ["x"], enumerable: true }) as Record<
      string,
      string[]
    >;
    const result = checkAccess({ allowed: {}, needed });
    expect(Object.getPrototypeOf(result.inaccessible)).toBe(Object.prototype);
    expect(Object.keys(result.inaccessible)).toEqual(["__proto__"]);
  });

  it("rejects inputs that are not table maps, naming the field", () => {
    const bad = (allowed: unknown, needed: unknown) =>
      checkAccess({
        allowed: allowed as Record<string, string[]>,
        needed: needed as Record<string, string[]>,
      });
    expect(() => bad([], {})).toThrow(WardenError);
    expect(() => bad({}, null)).toThrow(/needed/);
    expect(() => bad({}, { lab: 5 })).toThrow(/needed\.lab/);
  });
});

describe("CheckAccess in the sandbox agrees with the host", () => {
  let sandbox: QuickJsSandbox;
  const prelude = Object.freeze([CHECK_ACCESS_FUNCTION.source]);
  beforeAll(async () => {
    sandbox = createQuickJsSandbox({ workers: 1 });
    await sandbox.ready();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  async function inSandbox(allowed: unknown, needed: unknown): Promise<unknown> {
    const run = await sandbox.run({
      code: "let r;\ntry { r = CheckAccess(data.allowed, data.needed); } catch (e) { r = { error: e.name }; }\nfinish({ label: 0, output: r });",
      data: { allowed, needed },
      prelude,
    });
    if (!run.ok) throw new Error(`${run.error.code}: ${run.error.message}`);
    return run.result.output;
  }

  function onHost(allowed: unknown, needed: unknown): unknown {
    try {
      return checkAccess({
        allowed: allowed as Record<string, string[]>,
        needed: needed as Record<string, string[]>,
      });
    } catch {
      return { error: "TypeError" };
    }
  }

  const spelling = (names: readonly string[]) =>
    fc
      .tuple(
        fc.constantFrom(...names),
        fc.constantFrom("lower", "upper", "title"),
        fc.constantFrom("", " ", "  "),
        fc.constantFrom("", " "),
      )
      .map(([name, style, before, after]) => {
        const cased =
          style === "upper"
            ? name.toUpperCase()
            : style === "title"
              ? name.charAt(0).toUpperCase() + name.slice(1)
              : name;
        return `${before}${cased}${after}`;
      });
  const table = spelling(["patient", "lab", "diagnosis", "medication", "cost"]);
  const column = spelling(["uniquepid", "age", "labname", "labresult", "drugname", "cost", "*"]);
  const columnList = fc.oneof(
    { weight: 6, arbitrary: fc.array(column, { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.array(column, { maxLength: 3 }).map((cs) => cs.join(",")) },
    { weight: 1, arbitrary: fc.constant("*") },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const tables = fc
    .array(fc.tuple(table, columnList), { maxLength: 6 })
    .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);
  const maybeBroken = fc.oneof(
    { weight: 12, arbitrary: tables },
    { weight: 1, arbitrary: fc.constantFrom([], 7, null) },
  );

  it("on random tables and columns (same answer, same order)", async () => {
    await fc.assert(
      fc.asyncProperty(maybeBroken, maybeBroken, async (allowed, needed) => {
        const host = onHost(allowed, needed);
        const box = await inSandbox(allowed, needed);
        expect(JSON.stringify(box)).toBe(JSON.stringify(host));
      }),
      { numRuns: 150 },
    );
  });
});
