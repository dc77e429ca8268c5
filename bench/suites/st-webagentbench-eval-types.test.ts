import { describe, expect, it } from "vitest";
import { ST_EVAL_TYPES } from "../../src/engines/shield/import/st-webagentbench-compile.js";
import { ST_EVAL_TYPE_SEMANTICS, semanticsOf } from "./st-webagentbench-eval-types.js";

describe("ST-WebAgentBench eval type registry", () => {
  it("holds compile, judge and mutate for exactly the eval types the importer compiles", () => {
    expect(Object.keys(ST_EVAL_TYPE_SEMANTICS).sort()).toEqual([...ST_EVAL_TYPES].sort());
    for (const s of Object.values(ST_EVAL_TYPE_SEMANTICS)) {
      expect([typeof s.compile, typeof s.judge, typeof s.mutate]).toEqual([
        "function",
        "function",
        "function",
      ]);
    }
  });

  it("knows nothing of an unknown eval type, inherited names included", () => {
    const policy = (type: string) => ({ eval: { eval_types: [type] } }) as never;
    expect(semanticsOf({ policy: policy("is_url_match") })).toBe(ST_EVAL_TYPE_SEMANTICS.is_url_match);
    expect(semanticsOf({ policy: policy("no_such_type") })).toBeUndefined();
    expect(semanticsOf({ policy: policy("toString") })).toBeUndefined();
  });
});
