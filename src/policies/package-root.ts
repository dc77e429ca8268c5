/**
 * Finds the installed package's root (where policies/ and examples/ live), whether running from the
 * TypeScript sources or from the bundled dist/ files, whose depths differ.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { WardenError } from "../core/errors.js";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "warden") {
          cached = dir;
          return dir;
        }
      } catch {
        // not ours; keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new WardenError({
        code: "INTERNAL",
        message: "cannot find the package root (package.json named warden)",
      });
    }
    dir = parent;
  }
}
