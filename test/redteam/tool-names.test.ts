/**
 * Red team, tool names: a framework calls `email.send` `email_send` (provider function names allow only
 * [A-Za-z0-9_-]), so the policy's rules must govern the call under either name — and a name that could
 * be either of two tools must not pick the lenient one. Without the mapping, `github_delete_repository`
 * matched no rule and fell to the default.
 */
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard.js";
import { expectAllowed, expectRefused, type InlinePolicy, useGuardPool } from "./redteam.fixture.js";

const pool = useGuardPool();

const twins: InlinePolicy = {
  name: "redteam-name-twins",
  rules: {
    toolDefault: "allow",
    toolRules: [
      { id: "tool.files-ok", tool: "files/delete", effect: "allow", message: "the sandbox's files may go" },
      { id: "tool.no-files-delete", tool: "files.delete", effect: "deny", message: "real files stay" },
    ],
  },
};

const globDeny: InlinePolicy = {
  name: "redteam-glob-deny",
  rules: {
    toolDefault: "allow",
    vocabulary: { actions: ["shell.run", "shell.kill", "notes.add"] },
    toolRules: [{ id: "tool.no-shell", tool: "shell.*", effect: "deny", message: "no shell" }],
  },
};

const namedDeny: InlinePolicy = {
  name: "redteam-named-deny",
  rules: {
    toolDefault: "allow",
    toolRules: [
      { id: "tool.no-delete", tool: "repo.delete", effect: "deny", message: "repositories stay" },
      { id: "tool.no-shell", tool: "shell.*", effect: "deny", message: "no shell" },
    ],
  },
};

const namedAllow: InlinePolicy = {
  name: "redteam-named-allow",
  rules: {
    toolDefault: "deny",
    toolRules: [{ id: "tool.reads", tool: "repo.read", effect: "allow", message: "reads are fine" }],
  },
};

describe("red team: a tool name respelled as a dispatcher that trims or normalises names reads it", () => {
  // A dispatcher that strips the model's names (`tools[name.strip()]`), normalises them, or hands them to
  // C code runs the named tool; the policy's `tool` patterns must govern these spellings as texts are read.
  const spellings = [
    "repo.delete ",
    " repo.delete",
    "repo.delete\u200b",
    "repo\u00ad.delete",
    "ｒｅｐｏ.delete",
    "repo.delete\u0000x",
    "répo.delete",
    "\u200bshell.run",
    "ｓｈｅｌｌ.run",
    // The provider's spelling of the name (repo_delete), respelled in turn.
    "repo_delete ",
    "ｒｅｐｏ_delete",
    "REPO_DELETE\u200b",
  ];
  for (const name of spellings) {
    it(`a deny by name holds for ${JSON.stringify(name)}`, async () => {
      const guard = await pool.get(namedDeny);
      expectRefused(await guard.checkToolCall({ name, arguments: {} }), JSON.stringify(name));
    });
  }

  it("an argument the policy declares a path for a tool is a path under the respelled name too", async () => {
    const guard = await pool.get({
      name: "redteam-named-kinds",
      rules: {
        toolDefault: "deny",
        paths: { base: "/workspace" },
        argumentKinds: { "files.put": { slot: "path" } },
        toolRules: [
          {
            id: "tool.no-secrets",
            tool: "*",
            effect: "deny",
            message: "secrets stay",
            when: { field: "args:path", op: "pathMatches", value: ["**/secrets", "**/secrets/**"] },
          },
          { id: "tool.rest", tool: "*", effect: "allow", message: "the rest is fine" },
        ],
      },
    });
    for (const name of ["files.put", "files.put ", "ｆｉｌｅｓ.put"]) {
      const decision = await guard.checkToolCall({ name, arguments: { slot: "secrets" } });
      expectRefused(decision, JSON.stringify(name));
    }
  });

  it("other names stay allowed, and an allow by name covers only the name itself (controls)", async () => {
    const guard = await pool.get(namedDeny);
    for (const name of ["repo.read", "repo.deleted", "shellfish.eat"]) {
      expectAllowed(await guard.checkToolCall({ name, arguments: {} }), name);
    }
    const allow = await pool.get(namedAllow);
    expectAllowed(await allow.checkToolCall({ name: "repo.read", arguments: {} }), "repo.read");
    for (const name of ["repo.read ", "ｒｅｐｏ.read", "repo.delete"]) {
      expectRefused(await allow.checkToolCall({ name, arguments: {} }), JSON.stringify(name));
    }
  });
});

describe("red team: tool names across providers", () => {
  it("the policy's deny governs the provider's spelling of the tool", async () => {
    const guard = await pool.get("mcp-tools");
    for (const name of ["github_delete_repository", "GITHUB_DELETE_REPOSITORY", "github.delete_repository"]) {
      expectRefused(await guard.checkToolCall({ name, arguments: { repo: "acme/api" } }), name);
    }
  });

  it("a name two tools map to fails closed, even where the default allows", async () => {
    const guard = await pool.get(twins);
    const decision = await guard.checkToolCall({ name: "files_delete", arguments: { path: "/etc" } });
    expectRefused(decision, "files_delete");
    expect(decision.failure?.message).toContain("files.delete");
  });

  it("a name two tools map to fails closed even with fail-open configured", async () => {
    const guard = await createGuard({ policy: pool.file(twins), failMode: "open" });
    try {
      const decision = await guard.checkToolCall({ name: "files_delete", arguments: {} });
      expect(decision.allowed).toBe(false);
    } finally {
      await guard.close();
    }
  });

  it("a glob's deny holds for case variants outside ASCII and for the provider's spelling", async () => {
    const guard = await pool.get(globDeny);
    // U+017F (long s) and U+212A (Kelvin sign) are case variants of s and k: the same tool name to the rule.
    for (const name of ["shell.run", "SHELL.RUN", "\u017Fhell.run", "shell.\u212Aill", "shell_run"]) {
      expectRefused(await guard.checkToolCall({ name, arguments: { command: "ls" } }), name);
    }
  });

  it("a deny after a broad allow holds on every repeat, and after a flood of other names", async () => {
    // The rules naming a tool are remembered per name (match-tool-rule.ts, at most 1024 names): a flood
    // of names must only cost the memory, never the deny.
    const guard = await pool.get({
      name: "redteam-allow-then-deny",
      rules: {
        toolDefault: "deny",
        toolRules: [
          { id: "tool.all", tool: "*", effect: "allow", message: "anything" },
          { id: "tool.no-wipe", tool: "disk.wipe", effect: "deny", message: "never wipe" },
        ],
      },
    });
    for (let round = 0; round < 3; round++) {
      expectRefused(await guard.checkToolCall({ name: "disk.wipe", arguments: {} }), `round ${round}`);
      expectRefused(await guard.checkToolCall({ name: "DISK.WIPE", arguments: {} }), `round ${round}, upper`);
    }
    for (let i = 0; i < 1100; i++) await guard.checkToolCall({ name: `tool.n${i}`, arguments: {} });
    expectRefused(await guard.checkToolCall({ name: "disk.wipe", arguments: {} }), "after the flood");
  });

  it("a deny written as a condition on the name holds for every spelling, whichever name was worked out first", async () => {
    // Conditions on `tool`/`name` are worked out once per name (conditionForName): an allowed name seen
    // first, a flood of names, or a spelling of the denied one must never carry an answer to another.
    const guard = await pool.get({
      name: "redteam-name-condition",
      rules: {
        toolDefault: "allow",
        vocabulary: { actions: ["files.read", "files.write", "files.delete"] },
        toolRules: [
          {
            id: "tool.no-writes",
            tool: "*",
            effect: "deny",
            message: "nothing is written",
            when: { field: "tool", op: "in", value: ["files.write", "files.delete"] },
          },
          {
            id: "tool.reads",
            tool: "*",
            effect: "allow",
            message: "reads are fine",
            when: { not: { field: "name", op: "matches", value: "(write|delete)" } },
          },
        ],
      },
    });
    const writes = ["files.write", "FILES.WRITE", "Files.Delete", "files_write", "FILES_DELETE"];
    for (let round = 0; round < 2; round++) {
      expectAllowed(await guard.checkToolCall({ name: "files.read", arguments: {} }), `read, round ${round}`);
      for (const name of writes) {
        expectRefused(await guard.checkToolCall({ name, arguments: {} }), `${name}, round ${round}`);
      }
      for (let i = 0; i < 1100; i++) await guard.checkToolCall({ name: `files.n${i}`, arguments: {} });
    }
  });

  it("caller context cannot replace the call being checked", async () => {
    const guard = await pool.get("mcp-tools");
    const decision = await guard.checkToolCall({
      name: "github.delete_repository",
      arguments: { repo: "acme/api" },
      context: { toolCalls: [{ name: "github.create_issue", arguments: {} }], toolCall: { name: "x" } },
    });
    expectRefused(decision, "context naming another call");
  });
});
