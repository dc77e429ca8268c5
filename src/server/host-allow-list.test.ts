import { describe, expect, it } from "vitest";
import { allowedHostsFor, assertHostAllowed, hostNameOf } from "./host-allow-list.js";

const allowed = (hosts: ReturnType<typeof allowedHostsFor>, host: string | undefined) => {
  try {
    assertHostAllowed({ allowed: hosts, hosts: [host] });
    return true;
  } catch {
    return false;
  }
};

describe("host allow-list", () => {
  it("reads the name of a Host header, without port, case or trailing dot, and refuses malformed ones", () => {
    expect(hostNameOf({ host: "LocalHost:8787" })).toBe("localhost");
    expect(hostNameOf({ host: "[::1]:80" })).toBe("[::1]");
    expect(hostNameOf({ host: "warden.internal." })).toBe("warden.internal");
    for (const bad of ["", "a b", "user@host", "host:port", "::1", "a/b", "host:123456"]) {
      expect(hostNameOf({ host: bad }), bad).toBeUndefined();
    }
  });

  it("answers loopback names by default, and the bound address when it is a specific one", () => {
    const loopback = allowedHostsFor({});
    for (const host of ["localhost", "127.0.0.1:1", "[::1]:8787"]) expect(allowed(loopback, host)).toBe(true);
    for (const host of ["evil.example", "127.0.0.2", "localhost.evil.example", "0.0.0.0", undefined]) {
      expect(allowed(loopback, host), String(host)).toBe(false);
    }
    expect(allowed(allowedHostsFor({ boundHost: "10.0.0.5" }), "10.0.0.5:8787")).toBe(true);
    expect(allowed(allowedHostsFor({ boundHost: "fd00::1" }), "[fd00::1]:8787")).toBe(true);
    expect(allowed(allowedHostsFor({ boundHost: "0.0.0.0" }), "0.0.0.0")).toBe(false);
    expect(allowed(allowedHostsFor({ boundHost: "::" }), "[::]")).toBe(false);
  });

  it("adds the operator's names, turns off only for *, and refuses entries that are not names", () => {
    expect(allowed(allowedHostsFor({ extra: ["Warden.Internal"] }), "warden.internal:443")).toBe(true);
    expect(allowed(allowedHostsFor({ extra: ["*"] }), "anything.example")).toBe(true);
    expect(() => allowedHostsFor({ extra: ["bad host"] })).toThrow(/not a host name/);
  });
});
