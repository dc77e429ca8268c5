import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAccess } from "../../toolbox/builtins/check-access.js";
import { checkCompiledAccess, compileAccessGrants } from "./access-grants.js";

/** Names that stress the shared semantics: case, spaces, "*", a prototype key, empty text. */
const name = fc.constantFrom(
  "lab",
  "Lab",
  " lab ",
  "patient",
  "PATIENT",
  "cost",
  "age",
  "Age",
  "labname",
  " labresult",
  "*",
  "",
  " ",
  "__proto__",
  "constructor",
);
const columnList = fc.oneof(
  fc.array(name, { maxLength: 6 }),
  fc.array(name, { maxLength: 4 }).map((names) => names.join(",")),
  fc.constant("*" as const),
);
const tableMap = fc.array(fc.tuple(name, columnList), { maxLength: 6 }).map((entries) => {
  const out: Record<string, string[] | string> = {};
  // defineProperty so that "__proto__" is an ordinary key, as JSON.parse would make it.
  for (const [table, columns] of entries) {
    Object.defineProperty(out, table, {
      value: columns,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
});

function outcome(run: () => unknown): unknown {
  try {
    const result = run() as { denied: boolean; inaccessible: Record<string, string[]> };
    // Key order is part of the answer (the message lists tables in that order).
    return { ok: JSON.stringify([result.denied, Object.entries(result.inaccessible)]) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("checkCompiledAccess", () => {
  it("answers exactly as the toolbox's checkAccess on any allowed/needed maps", () => {
    fc.assert(
      fc.property(tableMap, tableMap, (allowed, needed) => {
        const fast = outcome(() => checkCompiledAccess({ grants: compileAccessGrants({ allowed }), needed }));
        expect(fast).toEqual(outcome(() => checkAccess({ allowed, needed })));
      }),
      { numRuns: 3000 },
    );
  });

  it("answers as checkAccess on names that are already keys, the extractors' usual output (property)", () => {
    // Mostly trimmed lower-case names (checkCompiledAccess's quick path), a few that are not.
    const key = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.constantFrom("lab", "patient", "cost", "labname", "age", "uniquepid", "*", "__proto__"),
      },
      { weight: 1, arbitrary: fc.constantFrom("Lab", " age", "x y", "", "constructor", "é") },
    );
    const columns = fc.oneof(fc.array(key, { maxLength: 5 }), fc.constant("*" as const));
    const map = fc.array(fc.tuple(key, columns), { maxLength: 5 }).map((entries) => {
      const out: Record<string, string[] | string> = {};
      for (const [table, list] of entries) {
        Object.defineProperty(out, table, {
          value: list,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    });
    fc.assert(
      fc.property(map, map, (allowed, needed) => {
        const fast = outcome(() => checkCompiledAccess({ grants: compileAccessGrants({ allowed }), needed }));
        expect(fast).toEqual(outcome(() => checkAccess({ allowed, needed })));
      }),
      { numRuns: 3000 },
    );
  });

  it("reports a bad column list by its field, as checkAccess does", () => {
    const grants = compileAccessGrants({ allowed: { lab: ["labname"] } });
    const needed = { lab: ["labname"], cost: 3 } as unknown as Record<string, string[]>;
    expect(() => checkCompiledAccess({ grants, needed })).toThrow(
      "checkAccess: needed.cost must be a list of column names",
    );
  });

  it("merges two spellings of one table and keeps the first spelling of each name", () => {
    const grants = compileAccessGrants({ allowed: { lab: ["labname"], patient: "*" } });
    const result = checkCompiledAccess({
      grants,
      needed: { " Lab": ["LabResult", "labname"], lab: ["labresult", "labid"], PATIENT: ["age"] },
    });
    expect(result).toEqual({ denied: true, inaccessible: { Lab: ["LabResult", "labid"] } });
  });
});
