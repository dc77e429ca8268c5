/**
 * The identity of a demonstration's content: SHA-256 over input, output, plan and code (not id, label,
 * origin or meta). The stores keep it in a column so that "add unless the same content is stored" is one
 * locked lookup-and-insert across every Warden instance on a database (Store.addDemonstrationOnce); the
 * memory also keeps a local set of it to skip known content without a round trip.
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
