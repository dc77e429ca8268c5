/**
 * bin/warden.js runs the build only while it is fresh: a checkout whose sources changed after the
 * build (an edited, added or removed file) runs the sources, an installed package (no src/) the build.
 * Times are set explicitly (utimes), so nothing here depends on the clock or on how fast it runs.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript beside the bin script, without declarations.
import { chooseEntry, newestMtimeMs } from "../bin/fresh-build.js";

const T0 = new Date("2026-01-01T00:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe("bin/fresh-build", () => {
  let root: string;
  let paths: { built: string; sourceEntry: string; sourceDir: string };
  const touch = (path: string, seconds: number) => utimesSync(path, at(seconds), at(seconds));
  const write = (path: string, seconds: number) => {
    writeFileSync(path, "x");
    touch(path, seconds);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "warden-fresh-"));
    const sourceDir = join(root, "src");
    mkdirSync(join(sourceDir, "cli", "commands"), { recursive: true });
    mkdirSync(join(root, "dist", "cli"), { recursive: true });
    paths = {
      built: join(root, "dist", "cli", "main.js"),
      sourceEntry: join(sourceDir, "cli", "main.ts"),
      sourceDir,
    };
    write(paths.sourceEntry, 10);
    write(join(sourceDir, "cli", "commands", "check.ts"), 20);
    for (const dir of [join(sourceDir, "cli", "commands"), join(sourceDir, "cli"), sourceDir]) touch(dir, 5);
    write(paths.built, 100);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds the newest time among the files and folders of a tree", () => {
    expect(newestMtimeMs({ dir: paths.sourceDir })).toBe(at(20).getTime());
    expect(newestMtimeMs({ dir: join(root, "missing") })).toBe(0);
  });

  it("runs the build when it is newer than every source", () => {
    expect(chooseEntry(paths)).toBe("dist");
  });

  it("ignores an edited test file (tests are not built)", () => {
    write(join(paths.sourceDir, "cli", "commands", "check.test.ts"), 20);
    touch(join(paths.sourceDir, "cli", "commands"), 20);
    touch(join(paths.sourceDir, "cli", "commands", "check.test.ts"), 500);
    expect(chooseEntry(paths)).toBe("dist");
  });

  it("runs the sources when a file deep in src/ changed after the build", () => {
    touch(join(paths.sourceDir, "cli", "commands", "check.ts"), 200);
    expect(chooseEntry(paths)).toBe("source");
  });

  it("runs the sources when a file was removed after the build (its folder changed)", () => {
    rmSync(join(paths.sourceDir, "cli", "commands", "check.ts"));
    touch(join(paths.sourceDir, "cli", "commands"), 300);
    expect(chooseEntry(paths)).toBe("source");
  });

  it("runs the sources when there is no build, and the build when there are no sources", () => {
    rmSync(paths.built);
    expect(chooseEntry(paths)).toBe("source");
    write(paths.built, 100);
    rmSync(paths.sourceDir, { recursive: true });
    expect(chooseEntry(paths)).toBe("dist");
    rmSync(paths.built);
    expect(chooseEntry(paths)).toBe("none");
  });
});
