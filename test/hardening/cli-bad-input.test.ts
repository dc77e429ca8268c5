/**
 * Independent CLI corpus for issue 10 (black box: the real `warden` binary, real files): bad inputs
 * and bad environments across every command — missing files, directories where files go, /dev/zero as
 * input (bounded by a memory watch), non-object contexts, malformed and escaping policies, bad ports,
 * unresolvable hosts, missing upstream binaries, stores under a file — plus a seeded corpus of random
 * bad arguments.
 *
 * Exit codes (README, `warden ltl --help`): 0 allow, 1 deny or ask, 2 usage or input error. Properties:
 * the exit code is the one the case calls for (2 for bad input, 1 where a Decision is the right
 * answer), never a signal, a timeout or a memory blow-up; stderr carries no stack-trace line and no
 * "internal error"; stdout, when it is JSON, parses; a server never starts listening on a bad
 * configuration.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, deepObjectText, runWarden, toolCallOutput } from "./harness.js";

const SEED = 20_261_125;
const SEEDED_RUNS = 6;
const SPAWN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = 150_000;
/** Resident-size bound for inputs that never end (/dev/zero): far above a CLI's normal footprint. */
const MAX_RSS_MB = 1_024;

type Expect = "error" | "deny" | "deny-or-error" | "any";
const CODES: Record<Expect, number[]> = {
  error: [2],
  deny: [1],
  "deny-or-error": [1, 2],
  any: [0, 1, 2],
};

interface CliCase {
  label: string;
  args: () => string[];
  expect: Expect;
  stdin?: string;
  stdinPath?: string;
  /** A server command: starting to listen means it accepted the bad configuration. */
  server?: boolean;
}

const dir = mkdtempSync(join(tmpdir(), "warden-hardening-cli-"));
const f = (name: string) => join(dir, name);
let busy: Server;
let busyPort = 0;

const DENIED = toolCallOutput("github.delete_repository", { repo: "acme/proto" });

function policyText(
  overrides: { rules?: unknown; specification?: unknown; requests?: unknown } = {},
): string {
  return JSON.stringify({
    kind: "warden.policy",
    schemaVersion: 1,
    name: "hardening",
    version: "1.0.0",
    agent: "tools",
    specification: overrides.specification ?? "An engineering assistant.",
    requests: overrides.requests ?? "Never delete a repository.",
    rules: overrides.rules ?? {
      toolRules: [
        {
          id: "no-delete",
          tool: "github.delete_repository",
          effect: "deny",
          message: "Never delete a repository",
        },
      ],
      toolDefault: "ask",
    },
  });
}

const ruleWith = (when: unknown, id = "r1") => ({
  id,
  tool: "shell.run",
  effect: "deny",
  message: "no",
  when,
});

/** A policy whose one rule's `when` is `depth` nested `not`s, as text (no recursion here). */
function deepWhenPolicy(depth: number): string {
  const leaf = '{"field":"args.command","op":"eq","value":"x"}';
  const when = '{"not":'.repeat(depth) + leaf + "}".repeat(depth);
  return policyText({ rules: { toolRules: ["@WHEN@"], toolDefault: "ask" } }).replace(
    '"@WHEN@"',
    `{"id":"deep","tool":"shell.run","effect":"deny","message":"no","when":${when}}`,
  );
}

const YAML_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]",
  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]",
  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]",
  "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]",
  "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]",
  "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]",
  "kind: warden.policy",
  "schemaVersion: 1",
  "name: bomb",
  "specification: x",
  "requests: x",
  "rules: { toolRules: [], toolDefault: ask, vocabulary: { actions: *g } }",
].join("\n");

beforeAll(async () => {
  mkdirSync(f("a-directory"));
  mkdirSync(f("empty-policy-dir"));
  mkdirSync(f("policies"));
  writeFileSync(f("file.txt"), "just a file\n");
  writeFileSync(f("input.txt"), "Clean up the old prototype repository.");
  writeFileSync(f("output.txt"), DENIED);
  writeFileSync(f("subject.json"), JSON.stringify({ input: "tidy", output: DENIED }));
  writeFileSync(f("outside.md"), "A file outside the policy's folder.");
  writeFileSync(f("policies/ok.json"), policyText());
  writeFileSync(f("policies/deep-when-2000.json"), deepWhenPolicy(2_000));
  writeFileSync(f("policies/deep-when-100000.json"), deepWhenPolicy(100_000));
  writeFileSync(
    f("policies/duplicate-ids.json"),
    policyText({
      rules: {
        toolRules: [
          { id: "same", tool: "github.delete_repository", effect: "deny", message: "no" },
          { id: "same", tool: "github.comment", effect: "allow", message: "yes" },
        ],
        toolDefault: "ask",
      },
    }),
  );
  writeFileSync(f("policies/spec-etc-passwd.json"), policyText({ specification: { file: "/etc/passwd" } }));
  writeFileSync(f("policies/requests-etc-passwd.json"), policyText({ requests: { file: "/etc/passwd" } }));
  writeFileSync(f("policies/spec-dotdot.json"), policyText({ specification: { file: "../outside.md" } }));
  writeFileSync(
    f("policies/spec-dotdot-deep.json"),
    policyText({ specification: { file: "../../../../../../../../etc/passwd" } }),
  );
  symlinkSync("/etc/passwd", f("policies/innocent.md"));
  writeFileSync(f("policies/spec-symlink-out.json"), policyText({ specification: { file: "innocent.md" } }));
  writeFileSync(
    f("policies/invalid-regex.json"),
    policyText({
      rules: {
        toolRules: [ruleWith({ field: "args.command", op: "matches", value: "(unclosed[" })],
        toolDefault: "ask",
      },
    }),
  );
  writeFileSync(
    f("policies/backreference-regex.json"),
    policyText({
      rules: {
        toolRules: [ruleWith({ field: "args.command", op: "matches", value: "^(a+)+\\1$" })],
        toolDefault: "ask",
      },
    }),
  );
  writeFileSync(f("policies/bomb.yaml"), YAML_BOMB);
  writeFileSync(
    f("policies/deep-json.json"),
    policyText().replace(
      '"agent":"tools"',
      `"agent":"tools","description":${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    ),
  );
  writeFileSync(f("policies/not-json.json"), "{ this is not json");
  writeFileSync(
    f("deep-subject.json"),
    `{"input":"x","output":"x","context":${deepObjectText(100_000, "k", "1")}}`,
  );
  writeFileSync(
    f("deep-args-subject.json"),
    JSON.stringify({
      input: "x",
      output: `{"method":"tools/call","params":{"name":"github.delete_repository","arguments":${deepObjectText(8_000, "a", '"x"')}}}`,
    }),
  );
  writeFileSync(f("wrong-types-subject.json"), JSON.stringify({ input: 42, output: ["x"], context: "root" }));
  writeFileSync(f("trajectory-garbage.jsonl"), "{not json}\n[1,2,\n");
  writeFileSync(f("trace-deep.json"), "[".repeat(100_000) + "]".repeat(100_000));
  busy = createServer(() => {});
  await new Promise<void>((listening) => busy.listen(0, "127.0.0.1", () => listening()));
  const address = busy.address();
  busyPort = typeof address === "object" && address ? address.port : 0;
});

afterAll(async () => {
  await new Promise<void>((closed) => (busy ? busy.close(() => closed()) : closed()));
  rmSync(dir, { recursive: true, force: true });
});

// ---- Judging one run --------------------------------------------------------------------------------

function problemsOf(c: CliCase, run: CliRun): string[] {
  const problems: string[] = [];
  if (run.timedOut) problems.push(`did not finish within ${SPAWN_TIMEOUT_MS} ms`);
  if (run.memoryExceeded) problems.push(`grew past ${MAX_RSS_MB} MB`);
  if (run.stoppedOnMatch) problems.push("started serving on a bad configuration");
  if (run.signal && !run.timedOut && !run.memoryExceeded && !run.stoppedOnMatch) {
    problems.push(`killed by ${run.signal}`);
  }
  if (
    !run.timedOut &&
    !run.memoryExceeded &&
    !run.stoppedOnMatch &&
    !CODES[c.expect].includes(run.code ?? -1)
  ) {
    problems.push(`exit ${run.code}, expected ${CODES[c.expect].join(" or ")}`);
  }
  if (/^\s+at /m.test(run.stderr)) problems.push("stack trace on stderr");
  if (/internal error/i.test(run.stderr)) problems.push('"internal error" on stderr');
  if (c.expect === "error" && run.code === 2 && run.stderr.trim() === "" && run.stdout.trim() === "") {
    problems.push("exit 2 with no message");
  }
  const out = run.stdout.trim();
  if (out.startsWith("{") || out.startsWith("[")) {
    try {
      JSON.parse(out);
    } catch {
      problems.push("stdout looks like JSON but does not parse");
    }
  }
  return problems;
}

async function runCase(c: CliCase): Promise<void> {
  const run = await runWarden(c.args(), {
    timeoutMs: SPAWN_TIMEOUT_MS,
    maxRssMb: MAX_RSS_MB,
    ...(c.stdin !== undefined ? { stdin: c.stdin } : {}),
    ...(c.stdinPath !== undefined ? { stdinPath: c.stdinPath } : {}),
    ...(c.server ? { killWhen: /serving http/ } : {}),
  });
  const problems = problemsOf(c, run);
  const tail = run.stderr.trim().split("\n").slice(0, 6).join("\n");
  expect(problems, `${problems.join("; ")}\nexit=${run.code} signal=${run.signal}\nstderr: ${tail}`).toEqual(
    [],
  );
}

// ---- The hand-picked corpus -------------------------------------------------------------------------

const check = (...rest: string[]) => ["check", "--policy", "mcp-tools", ...rest];

const CASES: CliCase[] = [
  // check: files that are not files, inputs that never end, contexts that are not objects
  {
    label: "check --input <directory>",
    args: () => check("--input", f("a-directory"), "--output", f("output.txt")),
    expect: "error",
  },
  { label: "check --subject <directory>", args: () => check("--subject", f("a-directory")), expect: "error" },
  {
    label: "check --input <missing file>",
    args: () => check("--input", f("missing.txt"), "--output", f("output.txt")),
    expect: "error",
  },
  {
    label: "check --input /dev/zero (bounded)",
    args: () => check("--input", "/dev/zero", "--output", f("output.txt")),
    expect: "error",
  },
  {
    label: "check --input - with stdin /dev/zero (bounded)",
    args: () => check("--input", "-", "--output", f("output.txt")),
    stdinPath: "/dev/zero",
    expect: "error",
  },
  {
    label: "check --context '[1,2]'",
    args: () => check("--subject", f("subject.json"), "--context", "[1,2]"),
    expect: "error",
  },
  {
    label: "check --context '\"nursing\"'",
    args: () => check("--subject", f("subject.json"), "--context", '"nursing"'),
    expect: "error",
  },
  // 20 000 levels keep the argument under the 128 KiB a single argv entry may hold on Linux.
  {
    label: "check --context 20 000 deep",
    args: () => check("--subject", f("subject.json"), "--context", deepObjectText(20_000, "k", "1")),
    expect: "deny-or-error",
  },
  {
    label: "check --subject with a context 100 000 deep",
    args: () => check("--subject", f("deep-subject.json")),
    expect: "deny-or-error",
  },
  {
    label: "check --subject with tool arguments 8 000 deep",
    args: () => check("--subject", f("deep-args-subject.json"), "--json"),
    expect: "deny-or-error",
  },
  {
    label: "check --subject with fields of the wrong types",
    args: () => check("--subject", f("wrong-types-subject.json")),
    expect: "error",
  },
  {
    label: "check --trajectory of garbage lines",
    args: () => check("--subject", f("subject.json"), "--trajectory", f("trajectory-garbage.jsonl")),
    expect: "error",
  },
  {
    label: "check --check-timeout 2000 decides",
    args: () => check("--subject", f("subject.json"), "--check-timeout", "2000", "--json"),
    expect: "deny",
  },
  {
    label: "check --check-timeout -5",
    args: () => check("--subject", f("subject.json"), "--check-timeout", "-5"),
    expect: "error",
  },
  {
    label: "check --store under a file, with a model",
    args: () =>
      check(
        "--subject",
        f("subject.json"),
        "--engine",
        "guardagent",
        "--model",
        "openai-compatible:x",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--store",
        f("file.txt/warden.db"),
      ),
    expect: "deny-or-error",
  },

  // policies: escaping, malformed, too deep, duplicated, invalid
  ...policyCases(),

  // serve: bad ports, busy ports, unresolvable hosts, stores under files, bad limits
  { label: "serve --port 99999", args: () => ["serve", "--port", "99999"], expect: "error", server: true },
  {
    label: "serve --port <in use>",
    args: () => ["serve", "--port", String(busyPort), "--policy", "mcp-tools"],
    expect: "error",
    server: true,
  },
  {
    label: "serve --host no-such-host.invalid",
    args: () => ["serve", "--port", "0", "--host", "no-such-host.invalid", "--policy", "mcp-tools"],
    expect: "error",
    server: true,
  },
  {
    label: "serve --store under a file",
    args: () => ["serve", "--port", "0", "--policy", "mcp-tools", "--store", f("file.txt/warden.db")],
    expect: "error",
    server: true,
  },
  {
    label: "serve --max-body-bytes -5",
    args: () => ["serve", "--port", "0", "--max-body-bytes", "-5"],
    expect: "error",
    server: true,
  },

  // mcp: missing upstreams, bad contexts, stores under files
  {
    label: "mcp proxy -- /missing/binary",
    args: () => ["mcp", "proxy", "--policy", "mcp-tools", "--", f("missing-binary")],
    expect: "error",
  },
  {
    label: "mcp proxy --context '[1]'",
    args: () => [
      "mcp",
      "proxy",
      "--policy",
      "mcp-tools",
      "--context",
      "[1]",
      "--",
      process.execPath,
      "-e",
      "",
    ],
    expect: "error",
  },
  {
    label: "mcp serve --store under a file",
    args: () => ["mcp", "serve", "--policy", "mcp-tools", "--store", f("file.txt/warden.db")],
    expect: "error",
  },

  // ltl, compile, bench, demo, policy
  {
    label: "ltl --trace /dev/zero (bounded)",
    args: () => ["ltl", "--formula", "G p", "--trace", "/dev/zero"],
    expect: "error",
  },
  {
    label: "ltl --trace 100 000 deep",
    args: () => ["ltl", "--formula", "G p", "--trace", f("trace-deep.json")],
    expect: "error",
  },
  {
    label: "compile --request <directory>",
    args: () => [
      "compile",
      "--request",
      f("a-directory"),
      "--model",
      "openai-compatible:x",
      "--base-url",
      "http://127.0.0.1:9/v1",
    ],
    expect: "error",
  },
  {
    label: "bench eicu-ac --data <file>",
    args: () => ["bench", "eicu-ac", "--data", f("file.txt"), "--no-progress"],
    expect: "error",
  },
  {
    label: "policy train --aspm <directory>",
    args: () => [
      "policy",
      "train",
      "--aspm",
      f("a-directory"),
      "--data",
      f("file.txt"),
      "-o",
      f("trained.json"),
    ],
    expect: "error",
  },
];

function policyCases(): CliCase[] {
  // Each bad policy goes to one command (spawns are costly); `check`, `serve` and `mcp serve` load
  // policies the same way `compile --check` verifies them, and both halves are covered.
  const bad: Array<[string, string, "check" | "compile" | "serve" | "mcp serve"]> = [
    ["a `when` nested 2 000 deep", "policies/deep-when-2000.json", "check"],
    ["a `when` nested 100 000 deep", "policies/deep-when-100000.json", "compile"],
    ["duplicate rule ids", "policies/duplicate-ids.json", "check"],
    ["duplicate rule ids", "policies/duplicate-ids.json", "serve"],
    ["specification file /etc/passwd", "policies/spec-etc-passwd.json", "check"],
    ["specification file /etc/passwd", "policies/spec-etc-passwd.json", "compile"],
    ["requests file /etc/passwd", "policies/requests-etc-passwd.json", "mcp serve"],
    ["specification file ../outside.md", "policies/spec-dotdot.json", "compile"],
    ["specification file ../../…/etc/passwd", "policies/spec-dotdot-deep.json", "check"],
    ["specification through a symlink out of the folder", "policies/spec-symlink-out.json", "compile"],
    ["an invalid `matches` regex", "policies/invalid-regex.json", "check"],
    ["an invalid `matches` regex", "policies/invalid-regex.json", "serve"],
    ["a `matches` regex with a backreference", "policies/backreference-regex.json", "compile"],
    ["a YAML alias bomb", "policies/bomb.yaml", "check"],
    ["a JSON value 100 000 deep", "policies/deep-json.json", "compile"],
    ["a directory without a policy", "empty-policy-dir", "check"],
    ["/dev/zero (bounded)", "/dev/zero", "check"],
  ];
  return bad.map(([what, file, command]): CliCase => {
    const path = file.startsWith("/") ? file : f(file);
    const label = `${command} with a policy: ${what}`;
    if (command === "check") {
      return {
        label,
        args: () => ["check", "--policy", path, "--subject", f("subject.json")],
        expect: "error",
      };
    }
    if (command === "compile")
      return { label, args: () => ["compile", "--check", path, "--json"], expect: "error" };
    if (command === "serve") {
      return { label, args: () => ["serve", "--port", "0", "--policy", path], expect: "error", server: true };
    }
    return { label, args: () => ["mcp", "serve", "--policy", path], expect: "error" };
  });
}

describe.concurrent("warden CLI on bad input: hand-picked", () => {
  for (const c of CASES) {
    it(c.label, () => runCase(c), TEST_TIMEOUT_MS);
  }
});

// ---- The seeded corpus ------------------------------------------------------------------------------

const badNumber = fc.constantFrom(
  "-1",
  "abc",
  "1e309",
  "NaN",
  "1.5",
  "-0.5",
  "99999999999999999999",
  "Infinity",
);
const badPort = fc.constantFrom("-1", "abc", "1e309", "NaN", "1.5", "65536", "99999", "Infinity");
const anyPath = fc.constantFrom("a-directory", "missing.txt", "/dev/null", "file.txt", "empty-policy-dir");
const jsonish = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom("[", "{", "[]", '""', "null", "true", '{"a":', "\u0000"),
);
const text = fc.string({ minLength: 1, maxLength: 40 });
const resolvePath = (p: string) => (p.startsWith("/") ? p : f(p));
/** Leading dashes would be read as options: a value is always passed as `--opt=value`. */
const opt = (name: string, value: string) => `--${name}=${value}`;

const seededArgs: fc.Arbitrary<{ label: string; args: string[]; server: boolean; expect: Expect }> = fc.oneof(
  jsonish.map((j) => ({
    label: `check --context=${JSON.stringify(j).slice(0, 60)}`,
    args: ["check", "--policy", "mcp-tools", "--subject", f("subject.json"), opt("context", j)],
    server: false,
    expect: "deny-or-error" as Expect,
  })),
  fc.tuple(anyPath, anyPath).map(([i, o]) => ({
    label: `check --input ${i} --output ${o}`,
    args: ["check", "--policy", "mcp-tools", opt("input", resolvePath(i)), opt("output", resolvePath(o))],
    server: false,
    expect: "deny-or-error" as Expect,
  })),
  fc.tuple(text, anyPath).map(([p, s]) => ({
    label: `check --policy=${JSON.stringify(p)} --subject ${s}`,
    args: ["check", opt("policy", p), opt("subject", resolvePath(s))],
    server: false,
    expect: "error" as Expect,
  })),
  fc.tuple(text, jsonish, badNumber).map(([formula, trace, at]) => ({
    label: `ltl --formula=${JSON.stringify(formula)} --trace=${JSON.stringify(trace).slice(0, 40)} --at=${at}`,
    args: ["ltl", opt("formula", formula), opt("trace", trace || "[]"), opt("at", at)],
    server: false,
    expect: "error" as Expect,
  })),
  fc.tuple(badPort, badNumber, badNumber).map(([port, body, timeout]) => ({
    label: `serve --port=${port} --max-body-bytes=${body} --check-timeout=${timeout}`,
    args: [
      "serve",
      opt("port", port),
      opt("max-body-bytes", body),
      opt("check-timeout", timeout),
      "--policy",
      "mcp-tools",
    ],
    server: true,
    expect: "error" as Expect,
  })),
  fc.tuple(jsonish, anyPath).map(([context, upstream]) => ({
    label: `mcp proxy --context=${JSON.stringify(context).slice(0, 40)} -- ${upstream}`,
    args: ["mcp", "proxy", "--policy", "mcp-tools", opt("context", context), "--", resolvePath(upstream)],
    server: false,
    expect: "error" as Expect,
  })),
  fc
    .tuple(fc.constantFrom("eicu-ac", "mind2web-sc", "qa", "nope"), badNumber, anyPath)
    .map(([ds, limit, data]) => ({
      label: `bench ${ds} --limit=${limit} --data ${data}`,
      args: ["bench", ds, opt("limit", limit), opt("data", resolvePath(data)), "--no-progress"],
      server: false,
      expect: "error" as Expect,
    })),
);

describe.concurrent(`warden CLI on bad input: seeded (seed ${SEED}, ${SEEDED_RUNS} runs)`, () => {
  const samples = fc.sample(seededArgs, { seed: SEED, numRuns: SEEDED_RUNS });
  for (const [i, s] of samples.entries()) {
    it(
      `#${i} ${s.label}`,
      () => runCase({ label: s.label, args: () => s.args, expect: s.expect, server: s.server }),
      TEST_TIMEOUT_MS,
    );
  }
});
