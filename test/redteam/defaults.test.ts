/**
 * Red team, defaults: a policy whose rules say nothing about a call answers with its default, whether
 * its rule list is empty or not — a lockdown policy never allows — and `compile --check` warns about a
 * policy that allows by default.
 */
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  expectAllowed,
  expectRefused,
  type InlinePolicy,
  toolCall,
  useGuardPool,
  warden,
} from "./redteam.fixture.js";

const pool = useGuardPool();

const calls = [
  { name: "github.delete_repository", args: { repo: "acme/api" } },
  { name: "filesystem.read_file", args: { path: "/tmp/a" } },
  { name: "shell.run", args: { command: "ls" } },
  { name: "anything", args: {} },
];

describe("defaults always apply", () => {
  const lockdowns: InlinePolicy[] = [
    { name: "redteam-lockdown-deny", rules: { toolRules: [], toolDefault: "deny" } },
    { name: "redteam-lockdown-ask", rules: { toolRules: [], toolDefault: "ask" } },
    { name: "redteam-lockdown-implicit", rules: { toolRules: [] } },
    {
      name: "redteam-lockdown-unrelated",
      rules: {
        toolRules: [
          { id: "other", tool: "calendar.read", effect: "allow", message: "Calendar reads are allowed" },
        ],
        toolDefault: "deny",
      },
    },
    {
      name: "redteam-lockdown-conditional",
      rules: {
        toolRules: [
          {
            id: "only-tmp",
            tool: "*",
            effect: "allow",
            message: "Calls about /tmp/x only",
            when: { field: "args.path", op: "eq", value: "/nowhere" },
          },
        ],
        toolDefault: "ask",
      },
    },
  ];
  for (const policy of lockdowns) {
    it.each(calls)(`${policy.name} refuses %j`, async (call) => {
      expectRefused(await (await pool.get(policy)).check(toolCall(call)), `${policy.name}: ${call.name}`);
    });
  }

  it("answers ask, not allow, under toolDefault ask", async () => {
    const decision = await (await pool.get(lockdowns[1]!)).check(toolCall(calls[0]!));
    expect(decision.verdict).toBe("ask");
  });

  it("still allows what an allow rule names", async () => {
    expectAllowed(
      await (await pool.get(lockdowns[3]!)).check(toolCall({ name: "calendar.read", args: {} })),
      "calendar.read",
    );
  });

  it("refuses every call of a lockdown policy from the CLI too (exit 1)", async () => {
    const file = pool.file({ name: "redteam-cli-lockdown", rules: { toolRules: [], toolDefault: "deny" } });
    const subject = `${file}.subject.json`;
    writeFileSync(subject, JSON.stringify(toolCall({ name: "shell.run", args: { command: "ls" } })));
    const r = await warden(["check", "--policy", file, "--subject", subject, "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ allowed: false });
  });

  it("compile --check warns about a policy that allows by default", async () => {
    const file = pool.file({
      name: "redteam-allow-default",
      rules: {
        toolRules: [{ id: "no-rm", tool: "shell.run", effect: "deny", message: "No shell" }],
        toolDefault: "allow",
      },
    });
    const r = await warden(["compile", "--check", file]);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(/warn/i);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(/default/i);
  });
});
