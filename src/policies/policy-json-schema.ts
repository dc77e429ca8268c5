/**
 * The JSON Schema of policy files, generated from the zod schema so editors can validate and complete
 * policies (`"$schema": ".../policy.schema.json"`). The committed schema/policy.schema.json must equal
 * this output (a test checks it; `npm run schema` rewrites it).
 */
import { z } from "zod";
import { PolicyFileSchema } from "../core/policy.js";

export function policyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PolicyFileSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    $id: "https://warden.dev/schema/policy.schema.json",
    title: "Warden policy",
    description:
      "A Warden policy: the guarded agent's specification, the guard requests, and optional compiled rules (access control, attribute rules, tool rules, predicates and LTLf rules).",
  };
}
