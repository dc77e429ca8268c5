// Whether the built CLI (dist/) may stand for the sources (src/) beside it. In a checkout the sources
// are the truth: tests and developers run bin/warden.js after editing them, and must never get an
// older build. The build is used only when it is newer than every file and folder under src/ (a
// folder's time changes when a file is added, removed or renamed in it); one stat per entry, a few
// milliseconds for the whole tree, paid only in a checkout. An installed package has no src/.
import { readdirSync, statSync } from "node:fs";
import { sep } from "node:path";

/**
 * The newest modification time (ms) of `dir`, its folders and every file under it but tests
 * (`*.test.ts`); 0 when it does not exist.
 */
export function newestMtimeMs(options) {
  // Runs on every start in a checkout, before the JIT has warmed up, so it does as little per entry as
  // it can: paths by concatenation rather than path.join, one stat per file without an options object.
  let newest = 0;
  const pending = [options.dir];
  while (pending.length > 0) {
    const dir = pending.pop();
    let entries;
    try {
      const time = statSync(dir).mtimeMs;
      if (time > newest) newest = time;
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    for (const entry of entries) {
      const name = entry.name;
      if (entry.isDirectory()) pending.push(prefix + name);
      // Tests are not part of the build: their edits need no rebuild (their folder's time still
      // shows one added or removed).
      else if (!name.endsWith(".test.ts")) {
        let time = 0;
        try {
          time = statSync(prefix + name).mtimeMs;
        } catch {
          // removed since the listing: its folder's time shows the change
        }
        if (time > newest) newest = time;
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
