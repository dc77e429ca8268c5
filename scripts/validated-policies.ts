/**
 * Prints, as a JSON array, the SHA-256 digests of the bundled policy documents that parse to themselves
 * (load-policy.ts, validatedPolicyDigest): the build writes them into its copy of
 * src/policies/validated-policy-digests.ts (tsdown.config.ts). Run by the build through tsx, so the
 * digests come from the same schema code the build bundles; an invalid bundled policy fails the build.
 */
import { join } from "node:path";
import {
  bundledPoliciesDir,
  listBundledPolicies,
  readPolicyFile,
  validatedPolicyDigest,
} from "../src/policies/load-policy.js";

const digests: string[] = [];
for (const name of listBundledPolicies()) {
  const path = join(bundledPoliciesDir(), name, "policy.json");
  const digest = validatedPolicyDigest({
    text: readPolicyFile({ path, what: "policy file" }),
    what: `policy ${path}`,
  });
  if (digest !== undefined) digests.push(digest);
}
process.stdout.write(`${JSON.stringify(digests)}\n`);
