/** Writes schema/policy.schema.json from the zod policy schema. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../src/policies/package-root.js";
import { policyJsonSchema } from "../src/policies/policy-json-schema.js";

const path = join(packageRoot(), "schema", "policy.schema.json");
writeFileSync(path, `${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${path}\n`);
