/**
 * workerEntryUrl: the dev shim from the sources; in a build, the entry beside the caller, under its
 * folder of the bundle root, or in the library's folder from the CLI's build.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { workerEntryUrl } from "./worker-entry.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("workerEntryUrl", () => {
  it("finds the entry from the sources, beside the caller, under the bundle root and from the CLI build", () => {
    const name = "some-worker";
    expect(workerEntryUrl({ here: "file:///x/src/a/b.ts", name, folder: "a" }).href).toBe(
      "file:///x/src/a/some-worker-dev.mjs",
    );
    dir = mkdtempSync(join(tmpdir(), "warden-worker-entry-"));
    const at = (path: string) => pathToFileURL(join(dir!, path)).href;
    mkdirSync(join(dir, "dist", "runtime", "pool"), { recursive: true });
    mkdirSync(join(dir, "dist", "cli"), { recursive: true });
    writeFileSync(join(dir, "dist", "runtime", "pool", `${name}.js`), "");
    const folder = "runtime/pool";
    expect(workerEntryUrl({ here: at("dist/chunk-1.js"), name, folder }).href).toBe(
      at(`dist/runtime/pool/${name}.js`),
    );
    expect(workerEntryUrl({ here: at("dist/cli/chunk-2.js"), name, folder }).href).toBe(
      at(`dist/runtime/pool/${name}.js`),
    );
    expect(workerEntryUrl({ here: at("dist/runtime/pool/own.js"), name, folder }).href).toBe(
      at(`dist/runtime/pool/${name}.js`),
    );
  });
});
