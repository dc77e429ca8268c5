import { afterEach, describe, expect, it } from "vitest";
import { configureEhrAgentCache, extractEhrAgentAccess } from "./extract.js";
import { normalizeSchema } from "./schema.js";

const CODE = "db = LoadDB('lab')\nanswer = GetValue(FilterDB(db, 'labname=bun'), 'labresult')";

afterEach(() => configureEhrAgentCache({ maxEntries: 512 }));

describe("the EHRAgent extraction cache", () => {
  it("answers the same code and schema with an equal answer the caller may change freely", () => {
    const first = extractEhrAgentAccess({ code: CODE });
    first.tables.lab!.push("changed");
    first.unresolved.push("changed");
    const second = extractEhrAgentAccess({ code: CODE });
    expect(second.tables).toEqual({ lab: ["labname", "labresult"] });
    expect(second.unresolved).toEqual([]);
  });

  it("never reuses an answer for another schema, even one with the same tables", () => {
    const withLab = extractEhrAgentAccess({ code: CODE });
    expect(withLab.confidence).toBe("high");
    const other = normalizeSchema({ schema: { lab: ["labid", "labname"] } });
    const without = extractEhrAgentAccess({ code: CODE, schema: other });
    expect(without.confidence).toBe("low");
    expect(without.tables.lab).toEqual(["labname"]);
  });

  it("never reuses an answer for code that differs by one character", () => {
    expect(extractEhrAgentAccess({ code: CODE }).tables.lab).toContain("labresult");
    const changed = CODE.replace("labresult", "labresulttime");
    expect(extractEhrAgentAccess({ code: changed }).tables.lab).toEqual(["labname", "labresulttime"]);
  });

  it("stays bounded and can be turned off", () => {
    configureEhrAgentCache({ maxEntries: 2 });
    for (let i = 0; i < 10; i++) {
      const result = extractEhrAgentAccess({ code: `${CODE}\nx = ${i}` });
      expect(result.tables.lab).toEqual(["labname", "labresult"]);
    }
    configureEhrAgentCache({ maxEntries: 0 });
    expect(extractEhrAgentAccess({ code: CODE }).tables.lab).toEqual(["labname", "labresult"]);
  });
});
