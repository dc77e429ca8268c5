// Whether the built CLI (dist/) may stand for the sources (src/) beside it. In a checkout the sources
// are the truth: tests and developers run bin/warden.js after editing them, and must never get an
// older build. The build is used only when it is newer than every file and folder under src/ (a
// folder's time changes when a file is added, removed or renamed in it); one stat per entry, a few
// milliseconds for the whole tree, paid only in a checkout. An installed package has no src/.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The newest modification time (ms) of `dir`, its folders and every file under it but tests
 * (`*.test.ts`); 0 when it does not exist.
 */
export function newestMtimeMs(options) {
  let newest = 0;
  const pending = [options.dir];
  while (pending.length > 0) {
    const dir = pending.pop();
    let entries;
    try {
      newest = Math.max(newest, statSync(dir).mtimeMs);
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      // Tests are not part of the build: their edits need no rebuild (their folder's time still
      // shows one added or removed).
      else if (!entry.name.endsWith(".test.ts")) {
        newest = Math.max(newest, statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      }
    }
  }
  return newest;
}

/**
 * Which entry bin/warden.js runs: "dist" when there are no sources (an installed package) or the
 * build is newer than all of them, "source" when the sources exist and the build is missing or stale,
 * "none" when neither exists.
 */
export function chooseEntry(options) {
  const built = statSync(options.built, { throwIfNoEntry: false });
  const hasSources = statSync(options.sourceEntry, { throwIfNoEntry: false }) !== undefined;
  if (!hasSources) return built ? "dist" : "none";
  if (!built) return "source";
  return newestMtimeMs({ dir: options.sourceDir }) < built.mtimeMs ? "dist" : "source";
}
