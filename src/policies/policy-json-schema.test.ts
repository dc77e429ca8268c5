import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "./package-root.js";
import { policyJsonSchema } from "./policy-json-schema.js";

describe("policy JSON Schema", () => {
  it("is committed up to date (run `npm run schema` after changing the policy schema)", () => {
    const committed = JSON.parse(readFileSync(join(packageRoot(), "schema", "policy.schema.json"), "utf8"));
    expect(committed).toEqual(policyJsonSchema());
  });

  it("describes the policy sections", () => {
    const schema = policyJsonSchema() as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(["name", "version", "specification", "requests", "rules"]),
    );
  });
});
