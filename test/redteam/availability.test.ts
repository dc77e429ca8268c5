/**
 * Red team, availability: an attacker who writes the agent's output or a tool's arguments controls their
 * size and shape. Each adversarial shape at about 1 MB must get a decision — a refusal, since none of
 * them is a call a policy allows — from the bundled policies, and finish: no quadratic scan, no
 * backtracking regex, no RangeError from deep nesting. (Times are not asserted; the generous timeout only
 * says the check ends.) A policy regex the linear-time engine cannot run is rejected when the policy loads.
 */
import { describe, expect, it } from "vitest";
import type { SubjectInput } from "../../src/core/subject.js";
import { ehrAgentLog, expectRefused, type InlinePolicy, toolCall, useGuardPool } from "./redteam.fixture.js";

const pool = useGuardPool();
const MB = 1_000_000;
const TIMEOUT = 30_000;
const fill = (unit: string, length = MB) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
const shell = (command: string): SubjectInput => toolCall({ name: "shell.run", args: { command } });

const shellShapes: [string, string][] = [
  ['"curl " repeated (the (curl|wget)…\\| shape)', fill("curl ")],
  ["curl piped into sh after 1 MB of arguments", `curl ${fill("a ")} | sh`],
  ["$( repeated", fill("$(")],
  ["backticks", fill("`")],
  ["unclosed quotes", fill("\"'")],
  ["pipes", fill("a|")],
  ["open parentheses", fill("(")],
  ["white space", `echo${fill(" ")}x`],
  ["sudo wrappers", fill("sudo ")],
  ["dd with many operands", `dd ${fill(" a")}`],
];

const outputShapes: [string, string][] = [
  ["{ repeated", fill("{")],
  ["[ repeated", fill("[")],
  ['{"a": repeated', fill('{"a":')],
  ["nested arrays, balanced", `${fill("[", MB / 2)}${fill("]", MB / 2)}`],
  ["strings read differently from each opener", `{"${fill('{\\"')}`],
  ["a tool call after 1 MB of openers", `${fill("{")}{"name":"shell.run","arguments":{"command":"ls"}}`],
  ["<think> without an end", fill("<think>")],
];

describe("availability: 1 MB adversarial tool arguments (mcp-tools)", () => {
  for (const [what, command] of shellShapes) {
    it(
      `refuses shell.run with ${what}`,
      async () => {
        expectRefused(await (await pool.get("mcp-tools")).check(shell(command)), what);
      },
      TIMEOUT,
    );
  }
});

describe("availability: 1 MB adversarial agent output (mcp-tools)", () => {
  for (const [what, output] of outputShapes) {
    it(
      `refuses an output of ${what}`,
      async () => {
        expectRefused(await (await pool.get("mcp-tools")).check({ input: "", output }), what);
      },
      TIMEOUT,
    );
  }
});

describe("availability: adversarial EHRAgent code (eicu-ac)", () => {
  const codeShapes: [string, string][] = [
    ["1 MB of code", `x = 1\n${fill("y = 2\n")}`],
    ["parentheses nested 100 000 deep", `x = ${fill("(", 100_000)}1${fill(")", 100_000)}`],
    ["a subscript chain 30 000 long", `x = LoadDB('patient')${fill("[0]", 90_000)}`],
    ["a sum of 30 000 terms", `x = 1${fill(" + 1", 120_000)}`],
    ["unary minus 100 000 deep", `x = ${fill("-", 100_000)}1`],
    ["not 20 000 deep", `x = ${fill("not ", 80_000)}1`],
  ];
  for (const [what, code] of codeShapes) {
    it(
      `refuses ${what} (undetermined, not a crash)`,
      async () => {
        const decision = await (await pool.get("eicu-ac")).check(ehrAgentLog({ role: "Nursing", code }));
        expectRefused(decision, what);
        expect(JSON.stringify(decision)).not.toMatch(/call stack|RangeError|internal analysis error/);
      },
      TIMEOUT,
    );
  }
});

describe("availability: a 1 MB task (mind2web-sc)", () => {
  it(
    "refuses to judge a task too long to classify",
    async () => {
      const guard = await pool.get("mind2web-sc");
      expectRefused(await guard.check({ input: fill("book a flight "), output: "click(1)" }), "1 MB task");
    },
    TIMEOUT,
  );
});

describe("availability: policy regexes run in linear time and are checked at load", () => {
  const withRegex = (name: string, value: string): InlinePolicy => ({
    name,
    rules: {
      toolRules: [
        {
          id: "shell.no-pipe-to-shell",
          tool: "shell.run",
          effect: "deny",
          message: "No download piped into a shell",
          when: { field: "args:command", op: "matches", value },
        },
        { id: "shell.allow", tool: "shell.run", effect: "allow", message: "Other commands are allowed" },
      ],
      toolDefault: "deny",
    },
  });

  it(
    "decides a 1 MB command against (curl|wget)[^|]*\\| and still fires the rule",
    async () => {
      const guard = await pool.get(
        withRegex("redteam-availability-regex", "(curl|wget)[^|]*\\|\\s*(sh|bash)"),
      );
      // 64 KB and more is past what the shell reader reads: undetermined, refused.
      expectRefused(await guard.check(shell(fill("curl "))), "1 MB of curl");
      expectRefused(await guard.check(shell(`${fill("curl ", 60_000)}| sh`)), "curl … | sh");
    },
    TIMEOUT,
  );

  for (const [what, value, why] of [
    ["a syntax error", "(curl", /missing closing \)/],
    ["lookahead", "^(?!ls)", /lookahead and lookbehind/],
    ["lookbehind", "(?<!safe )rm", /lookahead and lookbehind/],
    ["a backreference", "(a)\\1", /backreferences/],
  ] as const) {
    it(`rejects a policy whose matches regex has ${what}, naming the rule`, async () => {
      const policy = withRegex(`redteam-availability-bad-${what.replace(/\W+/g, "-")}`, value);
      const error = await pool.get(policy).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: "INVALID_POLICY" });
      expect(String((error as Error).message)).toMatch(/shell\.no-pipe-to-shell/);
      expect(String((error as Error).message)).toMatch(why);
    });
  }
});
