import { describe, expect, it } from "vitest";
import type { Caller } from "../core/caller.js";
import { bearerToken, type KeyDirectory, keyAuthenticator, openAuthenticator } from "./authenticator.js";

function directory(keys: Record<string, Caller>): KeyDirectory {
  return {
    authenticate: async ({ token }) => (Object.hasOwn(keys, token) ? keys[token] : undefined),
    hasKeys: async () => Object.keys(keys).length > 0,
  };
}

describe("authenticators", () => {
  it("without keys, everyone is anonymous and may only ask for checks, unless policies are exposed", async () => {
    expect(await openAuthenticator().authenticate({ authorization: "Bearer whatever" })).toEqual({
      name: "anonymous",
      scopes: ["check"],
    });
    expect(await openAuthenticator({ exposePolicies: true }).authenticate({})).toEqual({
      name: "anonymous",
      scopes: ["check", "policies:read"],
    });
  });

  it("with keys, needs a valid Bearer key; while the directory is empty, anonymous without a header", async () => {
    const agent: Caller = { name: "agent", scopes: ["check", "facts"] };
    const keyed = keyAuthenticator({ directory: directory({ secret: agent }) });
    expect(await keyed.authenticate({ authorization: "Bearer secret" })).toEqual(agent);
    expect(await keyed.authenticate({ authorization: "bearer  secret " })).toEqual(agent);
    for (const authorization of [
      undefined,
      "Bearer other",
      "secret",
      "Basic secret",
      "Bearer",
      "Bearer a b",
    ]) {
      expect(await keyed.authenticate(authorization === undefined ? {} : { authorization })).toBe(
        "unauthorized",
      );
    }
    const empty = keyAuthenticator({ directory: directory({}) });
    expect(await empty.authenticate({})).toMatchObject({ name: "anonymous", scopes: ["check"] });
    expect(await empty.authenticate({ authorization: "Bearer guess" })).toBe("unauthorized");
  });

  it("reads the token of a Bearer header only", () => {
    expect(bearerToken({ authorization: "Bearer abc.def" })).toBe("abc.def");
    expect(bearerToken({ authorization: "Token abc" })).toBeUndefined();
  });
});
