import { describe, expect, it } from "vitest";
import { wardenErrorFromSystem } from "./system-errors.js";

function systemError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.code)), fields);
}

describe("wardenErrorFromSystem", () => {
  it("names --port for a port in use and --host for an address that is not ours", () => {
    const inUse = wardenErrorFromSystem({
      error: systemError({ code: "EADDRINUSE", syscall: "listen", address: "127.0.0.1", port: 8787 }),
    });
    expect(inUse?.code).toBe("INVALID_INPUT");
    expect(inUse?.message).toContain("--port 8787: 127.0.0.1:8787 is already in use");
    const notOurs = wardenErrorFromSystem({
      error: systemError({ code: "EADDRNOTAVAIL", syscall: "listen", address: "10.9.9.9", port: 1 }),
    });
    expect(notOurs?.message).toContain("--host 10.9.9.9: is not an address of this machine");
  });

  it("names --host when it does not resolve", () => {
    for (const code of ["ENOTFOUND", "EAI_AGAIN"]) {
      const error = wardenErrorFromSystem({
        error: systemError({ code, syscall: "getaddrinfo", hostname: "nope.invalid" }),
      });
      expect(error?.message).toContain("--host: cannot resolve nope.invalid");
    }
  });

  it("names the program that cannot be started", () => {
    const missing = wardenErrorFromSystem({
      error: systemError({ code: "ENOENT", syscall: "spawn /no/server", path: "/no/server" }),
    });
    expect(missing?.message).toContain("command /no/server: not found");
    const denied = wardenErrorFromSystem({
      error: systemError({ code: "EACCES", syscall: "spawn ./x", path: "./x" }),
    });
    expect(denied?.message).toContain("is not executable");
  });

  it("leaves errors that are not system errors alone (they are bugs)", () => {
    expect(wardenErrorFromSystem({ error: new TypeError("x is undefined") })).toBeUndefined();
    expect(wardenErrorFromSystem({ error: "text" })).toBeUndefined();
  });
});
