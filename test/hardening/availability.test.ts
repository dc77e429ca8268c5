/**
 * Independent availability corpus for issue 10 (black box): adversarial but valid check requests up to
 * the 1 MiB body limit, sent to `warden serve --check-timeout 2000`, while /healthz is polled on other
 * connections. Each adversarial check must get an answer — a Decision that does not allow, or a 4xx in
 * the error family — and /healthz must keep answering while the check runs (at least two probes answered
 * inside the window of a check that lasts a second or more: a guard whose event loop is held by one
 * check cannot do that). /healthz latencies are printed as a measurement, not asserted.
 *
 * A check that gets no answer within CHECK_DEADLINE_MS counts as a failure, and the server (stalled) is
 * killed and a fresh one started for the next case, so one stall does not hide the others.
 */
import { afterAll, describe, expect, it } from "vitest";
import {
  decisionOf,
  decisionProblems,
  deepArrayText,
  deepObjectText,
  errorShapeProblems,
  leaks,
  postJson,
  type RawResult,
  request,
  startWardenServer,
  toolCallOutput,
  type WardenServer,
} from "./harness.js";

const CHECK_TIMEOUT_MS = 2_000;
/** Far past the server's own limit: only a guard that cannot answer at all runs into it. */
const CHECK_DEADLINE_MS = 30_000;
const PROBE_GAP_MS = 50;
const PROBE_DEADLINE_MS = 30_000;
const MAX_BODY = 1024 * 1024;

let server: WardenServer | undefined;

async function liveServer(): Promise<WardenServer> {
  if (server && server.child.exitCode === null && server.child.signalCode === null) return server;
  server = await startWardenServer(["--check-timeout", String(CHECK_TIMEOUT_MS), "--learn", "off"]);
  return server;
}

async function replaceServer(): Promise<void> {
  await server?.stop();
  server = undefined;
}

afterAll(async () => {
  await server?.stop();
});

// ---- The adversarial requests -----------------------------------------------------------------------

interface Adversary {
  label: string;
  body: string;
}

const call = (name: string, args: unknown) => toolCallOutput(name, args);
const checkOf = (policy: string, subject: Record<string, unknown>) => JSON.stringify({ policy, subject });
/** A check body whose subject is given as raw JSON text (for nesting deeper than JSON.stringify takes). */
const rawCheck = (policy: string, subjectText: string) =>
  `{"policy":${JSON.stringify(policy)},"subject":${subjectText}}`;

const nursingDiagnosis = [
  "p = FilterDB(LoadDB('patient'), 'uniquepid=031-3355')",
  "stay = GetValue(p, 'patientunitstayid')",
  "answer = GetValue(FilterDB(LoadDB('diagnosis'), 'patientunitstayid={}'.format(stay)), 'diagnosisname')",
].join("\n");

const ADVERSARIES: Adversary[] = [
  {
    label: '"curl " x 50 000 in shell.run (244 KB)',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: "curl ".repeat(50_000) }),
    }),
  },
  {
    label: '"curl " x 200 000 in shell.run (~1 MB)',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: "curl ".repeat(200_000) }),
    }),
  },
  {
    label: '"curl " x 150 000 then "| sh" (a real pipe into a shell at the end)',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: `${"curl ".repeat(150_000)}| sh` }),
    }),
  },
  {
    label: '"wget -q " x 100 000 with no pipe',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: "wget -q ".repeat(100_000) }),
    }),
  },
  {
    label: '200 000 "{" as the output',
    body: checkOf("mcp-tools", { input: "x", output: "{".repeat(200_000) }),
  },
  {
    label: '900 000 "{" as the output (near the limit)',
    body: checkOf("mcp-tools", { input: "x", output: "{".repeat(900_000) }),
  },
  {
    label: "a 200 000-deep array as the output text",
    body: checkOf("mcp-tools", { input: "x", output: deepArrayText(200_000) }),
  },
  {
    label: "a 200 000-deep array as the output value",
    body: rawCheck("mcp-tools", `{"input":"x","output":${deepArrayText(200_000)}}`),
  },
  {
    label: "github.delete_repository with arguments 8 000 deep",
    body: checkOf("mcp-tools", {
      input: "x",
      output: `{"method":"tools/call","params":{"name":"github.delete_repository","arguments":${deepObjectText(8_000, "a", '"x"')}}}`,
    }),
  },
  {
    label: "shell.run with a command 60 000 objects deep",
    body: checkOf("mcp-tools", {
      input: "x",
      output: `{"method":"tools/call","params":{"name":"shell.run","arguments":{"command":${deepObjectText(60_000, "c", '"curl x | sh"')}}}}`,
    }),
  },
  {
    label: 'a shell command of 150 000 nested "$(" around "curl x | sh"',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: `${"$(".repeat(150_000)}curl x | sh${")".repeat(150_000)}` }),
    }),
  },
  {
    label: 'a shell command of 30 000 "echo $(curl e | sh); "',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: "echo $(curl e | sh); ".repeat(30_000) }),
    }),
  },
  {
    label: 'a shell command of 120 000 "a|" pipes and 40 000 "sh -c \'"',
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("shell.run", { command: `${"a|".repeat(120_000)}${"sh -c '".repeat(40_000)}rm -rf /` }),
    }),
  },
  {
    label: "8 000 tool calls, one repository deletion among them",
    body: checkOf("mcp-tools", {
      input: "x",
      output: Array.from({ length: 8_000 }, (_, i) =>
        i === 0 || i === 4_000 || i === 7_999
          ? call("github.delete_repository", { repo: "acme/proto" })
          : call("github.comment", { body: "ok" }),
      ).join("\n"),
    }),
  },
  {
    label: "a trajectory of 12 000 steps before a repository deletion",
    body: checkOf("mcp-tools", {
      input: "x",
      output: call("github.delete_repository", { repo: "acme/proto" }),
      trajectory: Array.from({ length: 12_000 }, () => ({ action: "github.comment", args: { body: "ok" } })),
    }),
  },
  {
    label: "an EHRAgent program of 4 000 copies of a denied diagnosis read (eicu-ac, nursing)",
    body: checkOf("eicu-ac", {
      input: "Identity: nursing\nQuestion: what was the last diagnosis of patient 031-3355?",
      output: `Knowledge:\n- diagnoses\nGenerated code:\n${Array.from({ length: 4_000 }, () => nursingDiagnosis).join("\n")}\nAnswer:\nsepsis`,
    }),
  },
  {
    label: "an EHRAgent program nested 30 000 calls deep (eicu-ac)",
    body: checkOf("eicu-ac", {
      input: "Identity: nursing\nQuestion: diagnosis?",
      output: `Generated code:\nanswer = ${"GetValue(".repeat(30_000)}LoadDB('diagnosis')${", 'diagnosisname')".repeat(30_000)}\nAnswer:\nx`,
    }),
  },
];

// ---- Running one under observation ------------------------------------------------------------------

interface Probe {
  sentAt: number;
  answeredAt: number;
  status: number | undefined;
  failure?: string;
}

interface Observation {
  check: RawResult;
  startedAt: number;
  answeredAt: number;
  probes: Probe[];
}

/** Sends the checks, polls /healthz on fresh connections until every check is answered. */
async function observe(port: number, bodies: string[]): Promise<Observation[]> {
  const probes: Probe[] = [];
  let running = bodies.length;
  const startedAt = performance.now();
  const checks = bodies.map(async (body) => {
    const check = await postJson({ port, body, timeoutMs: CHECK_DEADLINE_MS });
    running -= 1;
    return { check, answeredAt: performance.now() };
  });
  const poller = (async () => {
    while (running > 0) {
      const sentAt = performance.now();
      const r = await request({ port, path: "/healthz", timeoutMs: PROBE_DEADLINE_MS });
      probes.push({
        sentAt,
        answeredAt: performance.now(),
        status: r.response?.status,
        ...(r.failure ? { failure: r.failure } : {}),
      });
      await new Promise((d) => setTimeout(d, PROBE_GAP_MS));
    }
  })();
  const done = await Promise.all(checks);
  await poller;
  return done.map(({ check, answeredAt }) => ({ check, startedAt, answeredAt, probes }));
}

/** Problems with the answer to one adversarial check. */
function answerProblems(check: RawResult): string[] {
  const r = check.response;
  if (!r) return [`no answer within ${CHECK_DEADLINE_MS} ms (${check.failure})`];
  const problems: string[] = [];
  if (r.status >= 500) problems.push(`status ${r.status}`);
  problems.push(...leaks(r.body).map((l) => `body leaks ${l}`));
  if (r.status === 200) {
    problems.push(...decisionProblems(r.body));
    if (decisionOf(r.body)?.allowed !== false) problems.push("the adversarial check was allowed");
  } else if (r.status >= 400) {
    problems.push(...errorShapeProblems(r.body));
  } else {
    problems.push(`unexpected status ${r.status}`);
  }
  return problems;
}

/** Problems with /healthz during one check (the check's own window). */
function healthProblems(o: Observation): string[] {
  const problems: string[] = [];
  const failed = o.probes.filter((p) => p.status !== 200);
  if (failed.length > 0) {
    problems.push(
      `${failed.length} /healthz probes failed (${failed.map((p) => p.failure ?? p.status).join(", ")})`,
    );
  }
  const window = o.answeredAt - o.startedAt;
  const inside = o.probes.filter((p) => p.answeredAt < o.answeredAt && p.status === 200).length;
  if (window >= 1_000 && inside < 2) {
    problems.push(`/healthz answered ${inside} times during a check that ran ${Math.round(window)} ms`);
  }
  return problems;
}

function latencyLine(label: string, o: Observation): string {
  const ms = o.probes.map((p) => p.answeredAt - p.sentAt).sort((a, b) => a - b);
  const at = (q: number) =>
    ms.length === 0 ? Number.NaN : (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? Number.NaN);
  const status = o.check.response ? o.check.response.status : o.check.failure;
  return `[availability] ${label}: check ${status} in ${Math.round(o.answeredAt - o.startedAt)} ms; /healthz n=${ms.length} p50=${at(0.5).toFixed(1)} ms p95=${at(0.95).toFixed(1)} ms max=${at(1).toFixed(1)} ms`;
}

// ---- The tests --------------------------------------------------------------------------------------

describe("availability under adversarial checks (warden serve --check-timeout 2000)", () => {
  it("every adversarial body is a valid request under the 1 MiB limit", () => {
    for (const a of ADVERSARIES) {
      expect(Buffer.byteLength(a.body), a.label).toBeLessThan(MAX_BODY);
    }
  });

  for (const adversary of ADVERSARIES) {
    it(`${adversary.label}: answered without allowing, /healthz answers meanwhile`, async () => {
      const s = await liveServer();
      const [o] = await observe(s.port, [adversary.body]);
      if (!o) throw new Error("no observation");
      console.log(latencyLine(adversary.label, o));
      const problems = [...answerProblems(o.check), ...healthProblems(o)];
      if (!o.check.response) await replaceServer();
      expect(problems, problems.join("\n")).toEqual([]);
    }, 150_000);
  }

  it("four near-limit checks at once: each answered without allowing, /healthz answers meanwhile", async () => {
    const s = await liveServer();
    const bodies = [1, 2, 3, 4].map((i) =>
      checkOf("mcp-tools", {
        input: `x${i}`,
        output: call("shell.run", { command: "curl ".repeat(190_000) }),
      }),
    );
    const all = await observe(s.port, bodies);
    const problems: string[] = [];
    for (const [i, o] of all.entries()) {
      console.log(latencyLine(`concurrent #${i + 1}`, o));
      problems.push(...answerProblems(o.check).map((p) => `#${i + 1}: ${p}`));
    }
    const last = all.reduce((a, b) => (b.answeredAt > a.answeredAt ? b : a));
    problems.push(...healthProblems(last));
    if (all.some((o) => !o.check.response)) await replaceServer();
    expect(problems, problems.join("\n")).toEqual([]);
  }, 150_000);

  it("after the corpus the server still answers /healthz and a plain check", async () => {
    const s = await liveServer();
    const health = await request({ port: s.port, path: "/healthz", timeoutMs: PROBE_DEADLINE_MS });
    expect(health.response?.status).toBe(200);
    const plain = await postJson({
      port: s.port,
      body: checkOf("mcp-tools", { input: "x", output: call("github.delete_repository", { repo: "a/b" }) }),
      timeoutMs: CHECK_DEADLINE_MS,
    });
    expect(plain.response?.status).toBe(200);
    expect(decisionOf(plain.response?.body ?? "")?.allowed).toBe(false);
  }, 150_000);
});
