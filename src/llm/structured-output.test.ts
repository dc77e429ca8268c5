import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  checkStructuredReply,
  repairMessage,
  schemaToJson,
  structuredInstruction,
} from "./structured-output.js";

describe("structured output", () => {
  it("renders the input side of a schema, without $schema, even with transforms and dates", () => {
    const schema = z.object({
      label: z.number().int().min(0).max(1),
      when: z.date().optional(),
      name: z.string().transform((s) => s.toUpperCase()),
    });
    const json = schemaToJson({ schema });
    expect(json.$schema).toBeUndefined();
    expect(json).toMatchObject({ type: "object", required: ["label", "name"] });
    const text = structuredInstruction({
      jsonSchema: json,
      schemaName: "verdict",
      schemaDescription: "A guard verdict.",
    });
    expect(text).toContain('"verdict"');
    expect(text).toContain("A guard verdict.");
    expect(text).toContain(JSON.stringify(json));
  });

  it("validates replies and lists every problem by path", () => {
    const schema = z.object({ label: z.literal(1), reasons: z.array(z.string()) });
    expect(checkStructuredReply({ text: '{"label": 1, "reasons": ["r"]}', schema })).toEqual({
      ok: true,
      value: { label: 1, reasons: ["r"] },
    });
    const bad = checkStructuredReply({ text: '{"label": 0, "reasons": [3]}', schema });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.errors).toContain("label:");
      expect(bad.errors).toContain("reasons.0:");
      expect(repairMessage({ errors: bad.errors })).toContain(bad.errors);
    }
  });
});
