import { describe, expect, it } from "vitest";
import { ARG_KINDS, type ArgKind, canonicalForKind } from "./index.js";

describe("canonicalForKind", () => {
  it("dispatches paths with their options", () => {
    expect(
      canonicalForKind({ kind: "path", value: "../Etc/passwd", options: { base: "/tmp", caseFold: true } }),
    ).toEqual({ ok: true, forms: ["/etc/passwd"] });
    expect(canonicalForKind({ kind: "path", value: "x" }).ok).toBe(false);
  });

  it("dispatches URLs", () => {
    const result = canonicalForKind({ kind: "url", value: "HTTP://Good.com@EVIL.com." });
    expect(result.ok && result.forms.map((f) => f.host)).toEqual(["evil.com"]);
  });

  it("dispatches e-mail values, arrays included", () => {
    const result = canonicalForKind({ kind: "email", value: ["Bob <BOB@X.com>", "eve@evil.test"] });
    expect(result.ok && result.forms.map((f) => f.address)).toEqual(["bob@x.com", "eve@evil.test"]);
  });

  it("dispatches shell commands", () => {
    const result = canonicalForKind({ kind: "command", value: "echo hi && /bin/rm -rf /srv" });
    expect(result.ok && result.forms.map((f) => f.program)).toContain("rm");
    expect(canonicalForKind({ kind: "command", value: 42 }).ok).toBe(false);
  });

  it("an unknown kind is undetermined, never a throw", () => {
    const result = canonicalForKind({ kind: "phone" as ArgKind, value: "123" });
    expect(result.ok).toBe(false);
  });

  it("never throws on any kind and value", () => {
    const values: unknown[] = [
      undefined,
      null,
      0,
      "",
      "~",
      "$(x)",
      "%",
      "\0",
      [],
      {},
      ["a"],
      "a".repeat(70_000),
    ];
    for (const kind of ARG_KINDS) {
      for (const value of values) expect(() => canonicalForKind({ kind, value })).not.toThrow();
    }
  });
});
