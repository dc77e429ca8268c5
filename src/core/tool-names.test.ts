import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Policy } from "./policy.js";
import { providerToolName, resolveToolName } from "./tool-names.js";

function policyWith(rules: Policy["rules"]): Policy {
  return {
    kind: "warden.policy",
    schemaVersion: 1,
    name: "names",
    version: "1.0.0",
    specification: "s",
    requests: "r",
    rules,
  } as Policy;
}

const policy = policyWith({
  vocabulary: {
    actions: ["email.send", "github.create_issue", "mcp__github__merge"],
    toolAliases: { send_mail: "email.send" },
  },
  toolRules: [
    { id: "t.rm", tool: "filesystem.delete_file", effect: "deny", message: "no" },
    { id: "t.fs", tool: "filesystem.*", effect: "ask", message: "ask" },
  ],
});

describe("providerToolName", () => {
  it("turns every character a provider refuses into _", () => {
    expect(providerToolName({ name: "email.send" })).toBe("email_send");
    expect(providerToolName({ name: "a/b c:d" })).toBe("a_b_c_d");
    expect(providerToolName({ name: "mcp__github__merge" })).toBe("mcp__github__merge");
  });

  it("always gives a name OpenAI and Anthropic accept, and leaves such names alone", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), (name) => {
        const mapped = providerToolName({ name });
        expect(mapped).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(providerToolName({ name: mapped })).toBe(mapped);
      }),
    );
  });
});

describe("resolveToolName", () => {
  it("keeps a name the policy knows", () => {
    expect(resolveToolName({ policy, name: "email.send" })).toEqual({ name: "email.send", via: "exact" });
    expect(resolveToolName({ policy, name: "Email.Send" })).toEqual({ name: "email.send", via: "exact" });
    expect(resolveToolName({ policy, name: "filesystem.delete_file" })).toEqual({
      name: "filesystem.delete_file",
      via: "exact",
    });
  });

  it("follows the policy's aliases", () => {
    expect(resolveToolName({ policy, name: "send_mail" })).toEqual({ name: "email.send", via: "alias" });
  });

  it("maps a provider's name back to the one known name it stands for", () => {
    expect(resolveToolName({ policy, name: "email_send" })).toEqual({ name: "email.send", via: "mapped" });
    expect(resolveToolName({ policy, name: "FILESYSTEM_DELETE_FILE" })).toEqual({
      name: "filesystem.delete_file",
      via: "mapped",
    });
  });

  it("leaves a name it cannot map as it is (globs and the default decide)", () => {
    expect(resolveToolName({ policy, name: "filesystem_read_file" })).toEqual({
      name: "filesystem_read_file",
      via: "unknown",
    });
  });

  it("calls a name two known tools map to ambiguous", () => {
    const twins = policyWith({ vocabulary: { actions: ["a.b", "a/b", "c"] } });
    expect(resolveToolName({ policy: twins, name: "a_b" })).toEqual({ ambiguous: ["a.b", "a/b"] });
    // the exact name still wins when the policy has one
    const exact = policyWith({ vocabulary: { actions: ["a.b", "a_b"] } });
    expect(resolveToolName({ policy: exact, name: "a_b" })).toEqual({ name: "a_b", via: "exact" });
  });

  it("calls an unknown name that reads as a known one (trimmed, compatibility form) ambiguous", () => {
    const tools = policyWith({ vocabulary: { actions: ["repo.delete", "repo.read"] } });
    for (const name of ["repo_delete ", "ｒｅｐｏ_delete", "REPO.DELETE\u200b"]) {
      expect(resolveToolName({ policy: tools, name })).toEqual({ ambiguous: [name, "repo.delete"] });
    }
    expect(resolveToolName({ policy: tools, name: "repo_list " })).toEqual({
      name: "repo_list ",
      via: "unknown",
    });
  });
});
