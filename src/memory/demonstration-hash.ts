/**
 * The identity of a demonstration's content: SHA-256 over input, output, plan and code (not id, label,
 * origin or meta). Seeding compares it with what the memory holds, so seeding the same files on every
 * start adds nothing twice, and learning skips a case that is already remembered.
 */
import { createHash } from "node:crypto";

export function demonstrationContentHash(options: {
  demonstration: { input: string; output: string; plan: string; code: string };
}): string {
  const { input, output, plan, code } = options.demonstration;
  // A JSON array keeps field boundaries unambiguous ("ab" + "c" differs from "a" + "bc").
  return createHash("sha256")
    .update(JSON.stringify([input, output, plan, code]), "utf8")
    .digest("hex");
}
