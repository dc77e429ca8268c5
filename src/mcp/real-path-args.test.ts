import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { realPathArgs } from "./real-path-args.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "warden-real-paths-")));
mkdirSync(join(root, "app"));
mkdirSync(join(root, "tmp"));
writeFileSync(join(root, "app", ".env"), "x");
symlinkSync("../app", join(root, "tmp", "link"));
symlinkSync(".env", join(root, "app", "config.txt"));
symlinkSync("../app/new.txt", join(root, "tmp", "dangling"));
symlinkSync("loop-b", join(root, "tmp", "loop-a"));
symlinkSync("loop-a", join(root, "tmp", "loop-b"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("realPathArgs", () => {
  it("replaces each named path argument by its real path, keeping a missing tail", () => {
    const given = {
      path: `${root}/tmp/link/c.txt`,
      paths: [`${root}/app/config.txt`, `${root}/app/.env`],
      source: `${root}/tmp/dangling`,
      content: `${root}/tmp/link/c.txt`,
      options: { encoding: "utf8" },
    };
    const before = structuredClone(given);
    const { args, rewrites } = realPathArgs({ args: given });
    // A copy where something was rewritten; the caller's arguments are left as they were.
    expect(given).toEqual(before);
    expect(args.paths).not.toBe(given.paths);
    expect(args).toEqual({
      path: `${root}/app/c.txt`,
      paths: [`${root}/app/.env`, `${root}/app/.env`],
      source: `${root}/app/new.txt`,
      // Not named as a path: a file's content is never rewritten.
      content: `${root}/tmp/link/c.txt`,
      options: { encoding: "utf8" },
    });
    expect(rewrites.map((r) => r.at)).toEqual(["path", "paths.0", "source"]);
  });

  it("reads relative paths against the base, and takes path arguments from the tool's schema", () => {
    const inputSchema = {
      type: "object",
      properties: { items: { type: "array", items: { type: "string", description: "File path" } } },
    };
    const { args } = realPathArgs({
      args: { items: ["tmp/link/x", "notes.md"] },
      inputSchema,
      base: root,
    });
    expect(args).toEqual({ items: [`${root}/app/x`, "notes.md"] });
  });

  it("returns the very arguments when nothing changes, and leaves what it cannot resolve", () => {
    const original = {
      path: `${root}/app/plain.txt`,
      file: "~/x",
      dir: "relative/no-base",
      cwd: `${root}/tmp/loop-a`,
    };
    const { args, rewrites } = realPathArgs({ args: original });
    expect(args).toBe(original);
    expect(rewrites).toEqual([]);
  });

  it("keeps a __proto__ key an own property", () => {
    const args = JSON.parse(`{"__proto__": {"path": "${root}/tmp/link/y"}}`) as Record<string, unknown>;
    const out = realPathArgs({ args });
    expect(Object.getPrototypeOf(out.args)).toBe(Object.prototype);
    expect(Object.hasOwn(out.args, "__proto__")).toBe(true);
    const own = Object.getOwnPropertyDescriptor(out.args, "__proto__")?.value as { path: string };
    expect(own.path).toBe(`${root}/app/y`);
  });
});
