/**
 * Red team, paths: every spelling of a path outside what a rule allows, or of a forbidden file, must be
 * refused. The bundled mcp-tools policy (files deleted only under /tmp/; secrets never read) and the
 * mcp-filesystem policy (one workspace, secrets, writes under tmp/), both through createGuard.
 */
import { afterAll, describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/policies/load-policy.js";
import {
  denyElseAllow,
  expectAllowed,
  expectRefused,
  guardPool,
  type InlinePolicy,
  toolCall,
} from "./redteam.fixture.js";

const pool = guardPool();
afterAll(() => pool.close());

const check = async (policy: string | InlinePolicy, name: string, args: Record<string, unknown>) =>
  (await pool.get(policy)).check(toolCall({ name, args }));

describe("paths: delete only under /tmp/ (mcp-tools rule 3)", () => {
  it("still allows an ordinary delete under /tmp/", async () => {
    expectAllowed(
      await check("mcp-tools", "filesystem.delete_file", { path: "/tmp/build.log" }),
      "/tmp/build.log",
    );
  });

  // From issue 9.
  const reported = [
    "/tmp/../etc/passwd",
    "/tmp//../etc/hosts",
    "/tmp/./../home/u/.bashrc",
    "/tmp/%2e%2e/etc/passwd",
  ];
  // Our own: other spellings of the same escape.
  const own = [
    "/tmp/%2E%2E/etc/passwd",
    "/tmp/%252e%252e/etc/passwd",
    "/tmp/..%2fetc/passwd",
    "/tmp/%2e%2e%2fetc%2fpasswd",
    "/tmp/.%2e/etc/passwd",
    "/tmp/../../../../etc/passwd",
    "/tmp/a/b/../../../etc/passwd",
    "/tmp/../etc/passwd/",
    "/tmp/../etc/passwd/.",
    "//tmp/../etc/passwd",
    "/tmp\\..\\etc\\passwd",
    "/tmp/..\\etc/passwd",
    "file:///tmp/../etc/passwd",
    "file://localhost/etc/passwd",
    "file://attacker.example/tmp/x",
    "tmp/../etc/passwd",
    "../tmp/x",
    "~/../../tmp/x",
    "$HOME/../tmp/x",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, on purpose
    "${TMPDIR}/x",
    "/tmp/`id`/x",
    "/tmp/x\u0000/../../etc/passwd",
    "/tmp/%00/../../etc/passwd",
    " /tmp/../etc/passwd",
  ];
  it.each([...reported, ...own])("refuses delete_file %j", async (path) => {
    expectRefused(
      await check("mcp-tools", "filesystem.delete_file", { path }),
      `delete_file ${JSON.stringify(path)}`,
    );
  });

  it("refuses a second path argument smuggled beside an allowed one", async () => {
    for (const args of [
      { path: "/tmp/ok", file: "/etc/passwd" },
      { path: "/tmp/ok", paths: ["/tmp/a", "/etc/passwd"] },
      { path: ["/tmp/ok", "/etc/passwd"] },
    ]) {
      expectRefused(
        await check("mcp-tools", "filesystem.delete_file", args),
        `delete_file ${JSON.stringify(args)}`,
      );
    }
  });
});

describe("paths: secrets are never read (mcp-tools rule 4)", () => {
  it("still allows an ordinary read", async () => {
    expectAllowed(
      await check("mcp-tools", "filesystem.read_file", { path: "/srv/app/README.md" }),
      "README.md",
    );
  });

  const secrets = [
    "/etc/./shadow", // issue 9
    "/etc//shadow",
    "/etc/shadow/",
    "/etc/ssh/../shadow",
    "/etc/%73hadow",
    "file:///etc/shadow",
    "file://localhost/etc/./shadow",
    "/srv/app/.env/",
    "/srv/app/./.env",
    "/srv/app/lib/../.env",
    "/srv/app/%2eenv",
    "/srv/app/%252eenv",
    "/srv/app/.env.local",
    "/srv/app//.env",
    "/home/u/.ssh/id_rsa",
    "/home/u/x/../.ssh/id_rsa",
    "/home/u/.ssh//id_rsa",
    "/home/u/%2essh/id_rsa",
    "~/.ssh/id_rsa",
    "/home/u/.ssh\\id_rsa",
  ];
  it.each(secrets)("refuses read_file %j", async (path) => {
    expectRefused(
      await check("mcp-tools", "filesystem.read_file", { path }),
      `read_file ${JSON.stringify(path)}`,
    );
  });
  it.each(["/srv/app/.env/", "/srv/app/lib/../.env", "/etc/./shadow"])(
    "refuses write_file %j",
    async (path) => {
      expectRefused(
        await check("mcp-tools", "filesystem.write_file", { path, content: "x" }),
        `write_file ${JSON.stringify(path)}`,
      );
    },
  );
});

/** The bundled mcp-filesystem policy, with its workspace placeholder moved to a root of our own. */
function filesystemPolicy(root: string): InlinePolicy {
  const { policy } = loadPolicy({ ref: "mcp-filesystem" });
  const rules = JSON.parse(JSON.stringify(policy.rules).replaceAll("/workspace", root)) as Record<
    string,
    unknown
  >;
  return { name: "mcp-filesystem-redteam", rules };
}

describe("paths: mcp-filesystem (workspace /w, secrets, writes only under /w/tmp)", () => {
  const fs = () => filesystemPolicy("/w");

  it("still allows ordinary reads and writes", async () => {
    expectAllowed(await check(fs(), "read_text_file", { path: "/w/app/main.ts" }), "read /w/app/main.ts");
    expectAllowed(
      await check(fs(), "read_text_file", { path: "app/main.ts" }),
      "read app/main.ts (relative)",
    );
    expectAllowed(await check(fs(), "write_file", { path: "/w/tmp/out.txt", content: "hello" }), "write tmp");
    expectAllowed(
      await check(fs(), "read_multiple_files", { paths: ["/w/app/a.ts", "/w/b.md"] }),
      "read_multiple_files",
    );
    expectAllowed(
      await check(fs(), "move_file", { source: "/w/tmp/a", destination: "/w/tmp/b" }),
      "move in tmp",
    );
    expectAllowed(await check(fs(), "list_allowed_directories", {}), "list_allowed_directories");
    expectAllowed(
      await check(fs(), "write_file", { path: "/w/tmp/main.css", content: "/* styles */\nbody {}" }),
      "write CSS under tmp",
    );
    expectAllowed(
      await check(fs(), "edit_file", {
        path: "/w/tmp/a.ts",
        edits: [{ oldText: "// old", newText: "// new" }],
      }),
      "edit comments under tmp",
    );
    expectAllowed(
      await check(fs(), "write_file", { path: "/w/tmp/a.css", content: "/* one line */" }),
      "one-line content shaped like a path",
    );
    expectAllowed(
      await check(fs(), "directory_tree", { path: "/w", excludePatterns: ["/node_modules", "dist"] }),
      "directory_tree with exclude patterns",
    );
  });

  const refusedCalls: [string, Record<string, unknown>][] = [
    ["read_text_file", { path: "/w/app/.env/" }],
    ["read_text_file", { path: "/w/app/.env" }],
    ["read_text_file", { path: "app/.env" }],
    ["read_text_file", { path: "/w/tmp/../app/.env" }],
    ["read_text_file", { path: "file:///w/app/.env" }],
    ["read_text_file", { path: "/w/app/%2eenv" }],
    ["read_text_file", { path: "/w/app/.env.production" }],
    ["read_media_file", { path: "/w/keys/server.pem" }],
    ["read_text_file", { path: "/w/home/.ssh/id_ed25519" }],
    ["read_text_file", { path: "/w/.aws/credentials" }],
    ["get_file_info", { path: "/w/app/.env" }],
    ["read_multiple_files", { paths: ["/w/app/README.md", "/w/app/.env"] }],
    ["read_multiple_files", { paths: ["/w/app/../app/.env/"] }],
    ["read_multiple_files", { paths: ["/w/README.md", "/etc/passwd"] }],
    ["read_text_file", { path: "/etc/passwd" }],
    ["read_text_file", { path: "/w/README.md", paths: ["/etc/passwd"] }],
    ["write_file", { path: "/w/tmp/a", destination: "/w/app/a", content: "x" }],
    ["read_text_file", { path: "/w/README.md", secret: "/w/app/.env" }],
    ["read_text_file", { path: ["/w/README.md", "/etc/passwd"] }],
    ["read_text_file", { path: { nested: "/etc/passwd" } }],
    ["read_text_file", { path: "/w/../etc/passwd" }],
    ["read_text_file", { path: "/w/%2e%2e/etc/passwd" }],
    ["read_text_file", { path: "../etc/passwd" }],
    ["read_text_file", { path: "/wx/secret.txt" }],
    ["read_text_file", { path: "~/notes.txt" }],
    ["list_directory", { path: "/" }],
    ["directory_tree", { path: "/w/.." }],
    ["search_files", { path: "/w/../home", pattern: "*" }],
    ["write_file", { path: "/w/tmp/../app/c.txt", content: "x" }],
    ["write_file", { path: "/w/tmp//../app/c.txt", content: "x" }],
    ["write_file", { path: "/w/tmp/./../app/c.txt", content: "x" }],
    ["write_file", { path: "/w/tmp/%2e%2e/app/c.txt", content: "x" }],
    ["write_file", { path: "tmp/../app/c.txt", content: "x" }],
    ["write_file", { path: "/w/tmpx/c.txt", content: "x" }],
    ["write_file", { path: "/w/app/c.txt", content: "x" }],
    ["write_file", { path: "/w/tmp/.env", content: "x" }],
    ["edit_file", { path: "/w/app/main.ts", edits: [{ oldText: "a", newText: "b" }] }],
    ["edit_file", { path: "/w/tmp/../app/main.ts", edits: [{ oldText: "a", newText: "b" }] }],
    ["create_directory", { path: "/w/tmp/../app/new" }],
    ["move_file", { source: "/w/app/main.ts", destination: "/w/tmp/main.ts" }],
    ["move_file", { source: "/w/tmp/main.ts", destination: "/w/app/main.ts" }],
    ["move_file", { source: "/w/tmp/a", destination: "/w/tmp/../../etc/cron.d/x" }],
    ["move_file", { source: "/w/app/.env", destination: "/w/tmp/env.txt" }],
    ["delete_everything", { path: "/w/tmp/x" }],
  ];
  it.each(refusedCalls)("refuses %s %j", async (name, args) => {
    expectRefused(await check(fs(), name, args), `${name} ${JSON.stringify(args)}`);
  });

  it("with caseFold (a case-insensitive file system), refuses other cases of a secret or of the roots", async () => {
    const folded: InlinePolicy = {
      name: "mcp-filesystem-redteam-casefold",
      rules: { ...fs().rules, paths: { base: "/w", caseFold: true } },
    };
    for (const [name, args] of [
      ["read_text_file", { path: "/w/app/.ENV" }],
      ["read_text_file", { path: "/w/Home/.SSH/ID_RSA" }],
      ["write_file", { path: "/w/TMP/../app/c.txt", content: "x" }],
      ["write_file", { path: "/w/app/c.txt", content: "x" }],
    ] as const) {
      expectRefused(await check(folded, name, args), `${name} ${JSON.stringify(args)} (caseFold)`);
    }
    expectAllowed(
      await check(folded, "write_file", { path: "/W/TMP/x.txt", content: "x" }),
      "/W/TMP (caseFold)",
    );
  });

  it("names the rule that refused a write outside tmp", async () => {
    const decision = await check(fs(), "write_file", { path: "/w/tmp/../app/c.txt", content: "x" });
    expect(decision.violations.map((v) => v.ruleId)).toContain("fs.writes-only-tmp");
  });
});

describe("paths: a path moved into an object key (mcp-tools rules 3 and 4)", () => {
  it.each([
    ["filesystem.delete_file", { path: "/tmp/a.log", also: { "/etc/passwd": true } }],
    ["filesystem.delete_file", { paths: { "/tmp/a.log": true, "/etc/passwd": true } }],
    ["filesystem.write_file", { files: { "/home/u/.ssh/authorized_keys": "ssh-ed25519 AAAA" } }],
    ["filesystem.write_file", { files: { "app/.env": "SECRET=1" } }],
    ["filesystem.read_file", { path: "/srv/ok.txt", options: { "/etc/shadow": "read" } }],
  ] as const)("refuses %s %j", async (name, args) => {
    expectRefused(await check("mcp-tools", name, { ...args }), `${name} ${JSON.stringify(args)}`);
  });

  it("still allows a write whose object keys are ordinary words", async () => {
    expectAllowed(
      await check("mcp-tools", "filesystem.write_file", {
        path: "/srv/notes.txt",
        content: "x",
        options: { encoding: "utf8" },
      }),
      "write with options",
    );
  });
});

describe("paths: what the second adversarial pass found (mcp-tools rules 3 and 4)", () => {
  it.each([
    ["filesystem.delete_file", { path: "/tmp" }],
    ["filesystem.delete_file", { path: "/tmp/" }],
    ["filesystem.delete_file", { path: "/tmp/x/.." }],
    ["filesystem.delete_file", { path: "/tmp/a.log", path2: "etc/passwd" }],
    ["filesystem.delete_file", { path: "/tmp/a.log", file_1: "/etc/passwd" }],
    ["filesystem.read_file", { path: "/proc/self/root/etc/shadow" }],
    ["filesystem.read_file", { path: "/proc/1/root/home/u/.ssh/id_rsa" }],
    ["filesystem.read_file", { path: "/proc/self/cwd/.env" }],
    ["filesystem.read_file", { path: "/dev/fd/3" }],
    ["filesystem.delete_file", { path: "/tmp/../proc/self/root/tmp/x" }],
  ] as const)("refuses %s %j", async (name, args) => {
    expectRefused(await check("mcp-tools", name, { ...args }), `${name} ${JSON.stringify(args)}`);
  });
});

describe("paths: a list of paths is allowed only when every element is, however the rule quantifies", () => {
  // Comparisons fold their values as they come (condition.ts): an unreadable or outside element anywhere
  // in the list, first or last, must keep an allow from applying and let a deny apply.
  const listPolicy = (quantifier?: "any" | "all"): InlinePolicy => ({
    name: "redteam-path-lists",
    rules: {
      toolRules: [
        {
          id: "secrets.never",
          tool: "read_multiple_files",
          effect: "deny",
          message: "No secrets",
          when: { field: "args.paths.*", op: "pathMatches", value: ["**/.env", "**/.ssh/**"] },
        },
        {
          id: "srv.only",
          tool: "read_multiple_files",
          effect: "allow",
          message: "Reads under /srv only",
          when: {
            field: "args.paths.*",
            op: "pathWithin",
            value: "/srv",
            ...(quantifier ? { quantifier } : {}),
          },
        },
      ],
      toolDefault: "deny",
    },
  });

  it("still allows a list wholly under /srv", async () => {
    expectAllowed(
      await check(listPolicy(), "read_multiple_files", { paths: ["/srv/a.md", "/srv/b/c.md"] }),
      "two files under /srv",
    );
  });

  const outside = [
    ["/srv/a.md", "/etc/shadow"],
    ["/etc/shadow", "/srv/a.md"],
    ["/srv/a.md", "~/notes.md"],
    ["~/notes.md", "/srv/a.md"],
    ["/srv/a.md", "/srv/../etc/shadow"],
    ["/srv/a.md", "/srv/app/.env"],
    ["/srv/app/.env", "/srv/a.md", "/srv/b.md"],
    ["/srv/a.md", "/srv/b.md", "/home/u/.ssh/id_ed25519"],
  ];
  for (const quantifier of [undefined, "all"] as const) {
    it.each(outside)(`refuses %j (allow rule quantifier: ${quantifier ?? "implied"})`, async (...paths) => {
      expectRefused(await check(listPolicy(quantifier), "read_multiple_files", { paths }), paths.join(", "));
    });
  }
});

describe("paths: an argument object's own __proto__ key is read as an argument", () => {
  it("refuses a path hidden under an own __proto__ key of JSON arguments", async () => {
    const args = JSON.parse('{"__proto__": {"path": "/etc/passwd"}, "mode": "r"}') as Record<string, unknown>;
    const policy: InlinePolicy = {
      name: "redteam-proto-args",
      rules: {
        toolRules: denyElseAllow({
          id: "etc.never",
          message: "Nothing under /etc",
          when: { field: "args:path", op: "pathWithin", value: "/etc" },
        }),
        toolDefault: "deny",
      },
    };
    expectAllowed(await check(policy, "read_file", { path: "/srv/a.md" }), "/srv/a.md");
    expectRefused(await check(policy, "read_file", args), "__proto__.path /etc/passwd");
  });
});
