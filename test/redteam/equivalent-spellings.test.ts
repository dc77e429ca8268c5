/**
 * Property tests: every equivalent spelling of a path, URL, e-mail address or shell command gets the
 * decision of its canonical form. Spellings that only restructure (dot segments, repeated and trailing
 * slashes, `file:` URLs, case of scheme and host, display names, flag order, wrappers) must get exactly
 * the same decision; spellings that a reader could take two ways (percent-encoding, backslashes, Unicode
 * normalisation) get every reading checked, so they may be refused more, never allowed more.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/core/decision.js";
import { type InlinePolicy, onlyExample, toolCall, useGuardPool } from "./redteam.fixture.js";

const pool = useGuardPool();

const RUNS = 60;
const decide = async (policy: string | InlinePolicy, name: string, args: Record<string, unknown>) =>
  (await pool.get(policy)).check(toolCall({ name, args }));
const outcome = (d: Decision) => `${d.verdict}${d.allowed ? "" : "!"}`;
/**
 * Counts the canonical forms' outcomes of one property, so each property can show it saw both allowed
 * and refused values (a policy that refuses everything would pass every equality vacuously).
 */
function tally() {
  const seen = new Set<boolean>();
  return {
    note: (d: Decision) => seen.add(d.allowed),
    expectBoth: () => expect([...seen].sort()).toEqual([false, true]),
  };
}

/** 0 = allow, 1 = ask, 2 = deny (or a fail-closed failure). */
const strictness = (d: Decision) => (d.allowed ? 0 : d.verdict === "ask" ? 1 : 2);

// ---- paths ----------------------------------------------------------------------------------------

const segment = fc.constantFrom(
  "tmp",
  "etc",
  "passwd",
  "shadow",
  ".env",
  "srv",
  "app",
  "a",
  "b.txt",
  ".ssh",
  "id_rsa",
);
// Half the paths lie under /tmp, so every run sees deletes the policy allows as well as refusals.
const canonicalPathArb = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join("/")}`),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/tmp/${s.join("/")}`),
);

/** A spelling of the same path that only restructures it. */
function restructured(path: string, choices: number[]): string {
  const parts = path.split("/").filter(Boolean);
  let out = "";
  parts.forEach((part, i) => {
    const c = choices[i % choices.length]!;
    if (c % 5 === 1) out += "/.";
    if (c % 5 === 2) out += "/detour/..";
    out += c % 7 === 3 ? `//${part}` : `/${part}`;
  });
  const last = choices[0]! % 4;
  if (last === 1) out += "/";
  if (last === 2) out += "/.";
  if (choices[1 % choices.length]! % 3 === 0) out = `file://${out}`;
  return out;
}

/** A spelling with readings a path reader may take two ways (percent-encoding, backslashes). */
function ambiguous(path: string, choices: number[]): string {
  return path
    .split("")
    .map((ch, i) => {
      const c = choices[i % choices.length]!;
      if (ch === "/" && i > 0 && c % 6 === 1) return "\\";
      if (/[a-z.]/.test(ch) && c % 4 === 2) return `%${ch.charCodeAt(0).toString(16)}`;
      return ch;
    })
    .join("");
}

const choicesArb = fc.array(fc.nat({ max: 100 }), { minLength: 1, maxLength: 12 });

describe("equivalent spellings: paths (mcp-tools delete_file and read_file)", () => {
  for (const tool of ["filesystem.delete_file", "filesystem.read_file"]) {
    it(`${tool}: a restructured path gets the canonical path's decision`, async () => {
      const t = tally();
      await fc.assert(
        fc.asyncProperty(canonicalPathArb, choicesArb, async (path, choices) => {
          const spelled = restructured(path, choices);
          const [a, b] = await Promise.all([
            decide("mcp-tools", tool, { path }),
            decide("mcp-tools", tool, { path: spelled }),
          ]);
          t.note(a);
          expect(outcome(b), `${spelled} vs ${path}`).toBe(outcome(a));
        }),
        { numRuns: RUNS },
      );
      t.expectBoth();
    });

    it(`${tool}: an ambiguous spelling is never allowed more than the canonical path`, async () => {
      const t = tally();
      await fc.assert(
        fc.asyncProperty(canonicalPathArb, choicesArb, async (path, choices) => {
          const spelled = ambiguous(restructured(path, choices), choices);
          const [a, b] = await Promise.all([
            decide("mcp-tools", tool, { path }),
            decide("mcp-tools", tool, { path: spelled }),
          ]);
          t.note(a);
          expect(strictness(b), `${spelled} vs ${path}`).toBeGreaterThanOrEqual(strictness(a));
        }),
        { numRuns: RUNS },
      );
      t.expectBoth();
    });
  }
});

// ---- URLs -----------------------------------------------------------------------------------------

const hostArb = fc.constantFrom(
  "example.com",
  "docs.example.com",
  "evil.test",
  "example.com.evil.test",
  "example.org",
);
const urlPathArb = fc
  .array(fc.constantFrom("a", "b", "index.html", "api"), { maxLength: 3 })
  .map((s) => `/${s.join("/")}`);

function spelledUrl(host: string, path: string, choices: number[]): string {
  const c = (i: number) => choices[i % choices.length]!;
  const scheme = c(0) % 2 ? "HTTPS" : "https";
  let h = c(1) % 2 ? host.toUpperCase() : host;
  if (c(2) % 3 === 0) h += ".";
  if (c(3) % 4 === 1) h = h.replace(/[a-z]/i, (ch) => `%${ch.toLowerCase().charCodeAt(0).toString(16)}`);
  const port = c(4) % 3 === 0 ? ":443" : "";
  const userinfo = c(5) % 4 === 0 ? "user:pw@" : "";
  const p = c(6) % 3 === 0 ? `/x/..${path}` : path;
  return `${scheme}://${userinfo}${h}${port}${p}`;
}

describe("equivalent spellings: URLs (allow only example.com)", () => {
  it("a spelling of the same URL gets the canonical URL's decision", async () => {
    const t = tally();
    await fc.assert(
      fc.asyncProperty(hostArb, urlPathArb, choicesArb, async (host, path, choices) => {
        const canonical = `https://${host}${path}`;
        const spelled = spelledUrl(host, path, choices);
        const [a, b] = await Promise.all([
          decide(onlyExample, "http.fetch", { url: canonical }),
          decide(onlyExample, "http.fetch", { url: spelled }),
        ]);
        t.note(a);
        expect(outcome(b), `${spelled} vs ${canonical}`).toBe(outcome(a));
      }),
      { numRuns: RUNS },
    );
    t.expectBoth();
  });
});

// ---- e-mail addresses ----------------------------------------------------------------------------

const addressArb = fc
  .tuple(
    fc.constantFrom("bob", "alice", "eve", "ops.team"),
    fc.constantFrom("example.com", "evil.test", "example.com.evil.test"),
  )
  .map(([local, domain]) => `${local}@${domain}`);

function spelledAddress(address: string, choices: number[]): unknown {
  const [local, domain] = address.split("@") as [string, string];
  const c = (i: number) => choices[i % choices.length]!;
  const d = c(0) % 2 ? domain.toUpperCase() : domain;
  const plain = `${local}@${d}`;
  switch (c(1) % 6) {
    case 0:
      return `Some Name <${plain}>`;
    case 1:
      return `"Name, Quoted" <${plain}>`;
    case 2:
      return `${plain} (a comment)`;
    case 3:
      return `team: ${plain};`;
    case 4:
      return [plain];
    default:
      return ` ${plain} `;
  }
}

describe("equivalent spellings: e-mail addresses (mcp-tools: only example.com)", () => {
  it("a spelling of the same recipient gets the canonical address's decision", async () => {
    const t = tally();
    await fc.assert(
      fc.asyncProperty(addressArb, choicesArb, async (address, choices) => {
        const spelled = spelledAddress(address, choices);
        const [a, b] = await Promise.all([
          decide("mcp-tools", "email.send", { to: address, subject: "s", body: "b" }),
          decide("mcp-tools", "email.send", { to: spelled, subject: "s", body: "b" }),
        ]);
        t.note(a);
        expect(outcome(b), `${JSON.stringify(spelled)} vs ${address}`).toBe(outcome(a));
      }),
      { numRuns: RUNS },
    );
    t.expectBoth();
  });
});

// ---- shell commands ------------------------------------------------------------------------------

const shellPolicy: InlinePolicy = {
  name: "spellings-shell",
  rules: {
    toolRules: [
      {
        id: "shell.no-recursive-rm",
        tool: "shell.run",
        effect: "deny",
        message: "No recursive rm",
        when: { field: "args:command", op: "invokes", value: { program: "rm", flags: ["recursive"] } },
      },
      { id: "shell.allow", tool: "shell.run", effect: "allow", message: "Other commands are allowed" },
    ],
    toolDefault: "deny",
  },
};

/** A command as program, flags (canonical names) and operands. */
const commandArb = fc.record({
  program: fc.constantFrom("rm", "ls", "cp"),
  recursive: fc.boolean(),
  force: fc.boolean(),
  target: fc.constantFrom("/srv", "/tmp/x", "build"),
});
type Cmd = { program: string; recursive: boolean; force: boolean; target: string };

function canonicalCommand(cmd: Cmd): string {
  const flags = [cmd.recursive ? "-r" : "", cmd.force && cmd.program === "rm" ? "-f" : ""].filter(Boolean);
  return [cmd.program, ...flags, cmd.target].join(" ");
}

function spelledCommand(cmd: Cmd, choices: number[]): string {
  const c = (i: number) => choices[i % choices.length]!;
  const r = cmd.recursive ? ["-r", "-R", "--recursive"][c(0) % 3]! : "";
  const f = cmd.force && cmd.program === "rm" ? ["-f", "--force"][c(1) % 2]! : "";
  let flags = [r, f].filter(Boolean);
  if (c(2) % 2 && flags.length === 2 && flags.every((x) => /^-[a-zA-Z]$/.test(x)))
    flags = [
      `-${flags
        .map((x) => x[1])
        .reverse()
        .join("")}`,
    ];
  if (c(3) % 2) flags.reverse();
  const program = [cmd.program, `/bin/${cmd.program}`, `'${cmd.program}'`, `\\${cmd.program}`][c(4) % 4]!;
  let line = [program, ...flags, cmd.target].join(" ");
  switch (c(5) % 6) {
    case 1:
      line = `sudo ${line}`;
      break;
    case 2:
      line = `sh -c '${line.replaceAll("'", "'\\''")}'`;
      break;
    case 3:
      line = `true && ${line}`;
      break;
    case 4:
      line = `env ${line}`;
      break;
  }
  return line;
}

describe("equivalent spellings: shell commands (no recursive rm)", () => {
  it("a spelling of the same command gets the canonical command's decision", async () => {
    const t = tally();
    await fc.assert(
      fc.asyncProperty(commandArb, choicesArb, async (cmd, choices) => {
        const canonical = canonicalCommand(cmd);
        const spelled = spelledCommand(cmd, choices);
        const [a, b] = await Promise.all([
          decide(shellPolicy, "shell.run", { command: canonical }),
          decide(shellPolicy, "shell.run", { command: spelled }),
        ]);
        t.note(a);
        expect(outcome(b), `${spelled} vs ${canonical}`).toBe(outcome(a));
      }),
      { numRuns: RUNS },
    );
    t.expectBoth();
  });
});
