/**
 * Independent HTTP corpus for issue 10 (black box: `warden serve` as a user starts it, spoken to over raw
 * loopback sockets). A seeded, bounded fast-check corpus plus hand-picked cases: malformed and random
 * JSON, wrong content types, huge and deep bodies, foreign Host and Origin headers, wrong methods,
 * unicode, overlong URLs, random field types in the check request and deep tool arguments.
 *
 * Properties of every answer: never a 5xx; never a stack trace or a source path in a body; every error
 * body is `{ error: { code, message } }`; every 200 from POST /v1/check is a Decision; what the issue
 * says must be refused (a foreign Host, a POST that is not `application/json`, a foreign Origin) gets a
 * 4xx; no CORS grant to a foreign origin; and the server still answers /healthz afterwards.
 *
 * Malformed HTTP that the HTTP layer rejects before the application sees it (a bare 400/431 with no
 * body: Node's parser, or the adapter refusing a Host it cannot parse) is accepted as a refusal.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decisionOf,
  decisionProblems,
  deepArrayText,
  deepObjectText,
  errorShapeProblems,
  leaks,
  type RawRequest,
  type RawResult,
  request,
  startWardenServer,
  toolCallOutput,
  type WardenServer,
} from "./harness.js";

const SEED = 20_261_125;
const RUNS = 200;
const REQUEST_TIMEOUT_MS = 20_000;

let server: WardenServer;

beforeAll(async () => {
  server = await startWardenServer(["--check-timeout", "5000", "--learn", "off"]);
}, 150_000);

afterAll(async () => {
  await server?.stop();
});

// ---- What a request is and what its answer must be -------------------------------------------------

type HostKind = "loopback" | "localhost" | "none" | "foreign" | "neutral";
type OriginKind = "none" | "same" | "foreign";

interface Case {
  label: string;
  method: string;
  path: string;
  host: { kind: HostKind; value?: string };
  origin: { kind: OriginKind; value?: string };
  /** undefined: no Content-Type header at all. */
  contentType?: string;
  body?: string | Buffer;
  /** Extra headers. */
  headers?: Array<[string, string]>;
  /** The answer must be a 4xx (a refusal), whatever else holds. */
  mustRefuse?: string;
  /** A 200 here must not allow (the body carries a call the policy denies). */
  mustNotAllow?: boolean;
}

const FOREIGN_HOSTS = [
  "evil.example",
  "evil.example:PORT",
  "attacker.test:80",
  "127.0.0.1.nip.io:PORT",
  "localhost.evil.example:PORT",
  "127.0.0.1:PORT.evil.example",
  "xn--80ak6aa92e.com",
];
const NEUTRAL_HOSTS = ["0.0.0.0:PORT", "[::1]:PORT", "127.0.0.1", "LOCALHOST:PORT", "127.1:PORT", ""];
const FOREIGN_ORIGINS = [
  "https://evil.example",
  "http://evil.example:PORT",
  "null",
  "http://localhost.evil.example:PORT",
  "http://127.0.0.1.nip.io:PORT",
];
const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8"];
const NEUTRAL_TYPES = ["APPLICATION/JSON", "application/vnd.api+json", "application/merge-patch+json"];
const FOREIGN_TYPES = [
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  "text/html",
  "*/*",
  "application/octet-stream",
  "application/jsonp",
  "text/json-but-not",
];

const POLICIES = ["mcp-tools", "eicu-ac", "mind2web-sc", "mcp-filesystem", "agentharm"];
const TOOLS = [
  "github.delete_repository",
  "github.comment",
  "github.create_issue",
  "filesystem.read_file",
  "filesystem.delete_file",
  "email.send",
  "shell.run",
  "read_text_file",
];

const portOf = (text: string) => text.replaceAll("PORT", String(server.port));

/** Checks one answer against the properties; returns the problems found (empty when it passes). */
function judge(c: Case, result: RawResult): string[] {
  const r = result.response;
  if (!r) return [`no answer (${result.failure})`];
  const problems: string[] = [];
  if (r.status >= 500) problems.push(`status ${r.status}`);
  // A bare 400/431 with no body comes from the HTTP layer (Node's parser, or the adapter refusing a
  // Host it cannot parse) before the application runs: a refusal, though not a family error body.
  const transportReject = r.body.length === 0 && [400, 431].includes(r.status);
  if (c.mustRefuse && !(r.status >= 400 && r.status < 500)) {
    problems.push(`must be refused (${c.mustRefuse}) but got ${r.status}`);
  }
  problems.push(...leaks(r.body).map((l) => `body leaks ${l}`));
  if (r.status >= 400 && c.method !== "HEAD" && !transportReject) {
    problems.push(...errorShapeProblems(r.body));
  }
  const isCheck = c.method === "POST" && /^\/v1\/check(\?|$)/.test(c.path);
  if (r.status === 200 && isCheck) {
    problems.push(...decisionProblems(r.body));
    if (c.mustNotAllow && decisionOf(r.body)?.allowed !== false) problems.push("a denied call was allowed");
  }
  const acao = r.headers["access-control-allow-origin"];
  if (c.origin.kind === "foreign" && acao !== undefined && (acao === "*" || acao === c.origin.value)) {
    problems.push(`CORS grants the foreign origin ${c.origin.value} (${acao})`);
  }
  return problems;
}

function toRequest(c: Case): RawRequest {
  const headers: Array<[string, string]> = [];
  if (c.host.kind !== "none") headers.push(["Host", c.host.value ?? `127.0.0.1:${server.port}`]);
  if (c.origin.kind !== "none" && c.origin.value !== undefined) headers.push(["Origin", c.origin.value]);
  if (c.contentType !== undefined) headers.push(["Content-Type", c.contentType]);
  headers.push(...(c.headers ?? []));
  return {
    port: server.port,
    method: c.method,
    path: c.path,
    headers,
    ...(c.body !== undefined ? { body: c.body } : {}),
    timeoutMs: REQUEST_TIMEOUT_MS,
  };
}

/** Sends every case in order and returns one line per failing case. */
async function runCases(cases: Case[]): Promise<string[]> {
  const failures: string[] = [];
  for (const c of cases) {
    const result = await request(toRequest(c));
    const problems = judge(c, result);
    if (problems.length > 0) {
      const status = result.response ? result.response.status : "-";
      const excerpt = result.response ? result.response.body.slice(0, 160) : "";
      failures.push(`${c.label} -> ${status}: ${problems.join("; ")} ${excerpt ? `| ${excerpt}` : ""}`);
    }
  }
  return failures;
}

async function expectHealthy(): Promise<void> {
  const r = await request({ port: server.port, path: "/healthz", timeoutMs: REQUEST_TIMEOUT_MS });
  expect(r.response?.status, `healthz after the corpus: ${r.failure ?? ""}`).toBe(200);
}

/** Fills in the refusal rule from the headers (foreign Host, foreign Origin, non-JSON POST). */
function withRules(c: Case): Case {
  const reasons: string[] = [];
  // /healthz says nothing and load balancers probe it by any name; a preflight is judged by its CORS
  // headers, not its status.
  const exempt = c.path === "/healthz";
  if (c.host.kind === "foreign" && !exempt) reasons.push(`foreign Host ${c.host.value}`);
  if (c.origin.kind === "foreign" && !exempt && c.method !== "OPTIONS") {
    reasons.push(`foreign Origin ${c.origin.value}`);
  }
  if (c.method === "POST" && c.path.startsWith("/v1/check")) {
    if (c.contentType === undefined) reasons.push("POST without Content-Type");
    else if (FOREIGN_TYPES.includes(c.contentType)) reasons.push(`POST as ${c.contentType}`);
  }
  const existing = c.mustRefuse ? [c.mustRefuse] : [];
  const all = [...existing, ...reasons];
  return all.length > 0 ? { ...c, mustRefuse: all.join(", ") } : c;
}

// ---- Seeded corpus ----------------------------------------------------------------------------------

const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom("", "\u0000", "\ud800", "\u202e\u2066rtl", "\ufeff", "💥".repeat(50), "a\r\nX-Injected: 1"),
);

const toolArgs = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({ command: anyText }),
  fc.record({
    path: fc.oneof(anyText, fc.constantFrom("/etc/passwd", "/tmp/../etc/shadow", "~/.ssh/id_rsa")),
  }),
  fc.record({ to: fc.oneof(anyText, fc.array(anyText, { maxLength: 3 })) }),
  // Kept shallow enough for JSON.stringify here; deeper arguments are written as text below.
  fc.integer({ min: 1, max: 200 }).map((d) => JSON.parse(deepObjectText(d, "a", '"x"'))),
);

const outputValue = fc.oneof(
  anyText,
  fc.tuple(fc.constantFrom(...TOOLS), toolArgs).map(([name, args]) => toolCallOutput(name, args)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 100, max: 20_000 }).map((d) => deepArrayText(d)),
  fc
    .integer({ min: 100, max: 5_000 })
    .map(
      (d) =>
        `{"method":"tools/call","params":{"name":"shell.run","arguments":${deepObjectText(d, "c", '"ls"')}}}`,
    ),
);

const shapeOf = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: arb }, fc.jsonValue({ maxDepth: 2 }));

const subject = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        input: shapeOf(anyText),
        output: shapeOf(outputValue),
        context: shapeOf(
          fc.record(
            {
              identity: anyText,
              cwd: anyText,
              toolCalls: fc.array(
                fc.record({ name: fc.constantFrom(...TOOLS), args: fc.jsonValue({ maxDepth: 2 }) }),
                {
                  maxLength: 3,
                },
              ),
              resources: fc.jsonValue({ maxDepth: 2 }),
            },
            { requiredKeys: [] },
          ),
        ),
        trajectory: shapeOf(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 })),
      },
      { requiredKeys: [] },
    ),
  },
  fc.jsonValue({ maxDepth: 2 }),
);

const checkBody = fc
  .record(
    {
      policy: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...POLICIES) }, fc.jsonValue({ maxDepth: 1 })),
      subject,
      engine: fc.oneof(
        fc.constantFrom("auto", "compiled", "shield", "guardagent", "baseline", "nope"),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      extra: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: ["policy", "subject"] },
  )
  .map((b) => JSON.stringify(b));

const body = fc.oneof(
  { weight: 6, arbitrary: checkBody },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  { weight: 1, arbitrary: checkBody.chain((b) => fc.nat({ max: b.length }).map((n) => b.slice(0, n))) },
  { weight: 1, arbitrary: fc.constant("") },
);

const path = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "/v1/check",
      "/v1/check",
      "/v1/check",
      "/healthz",
      "/v1/stats",
      "/v1/policies",
      "/v1/policies/mcp-tools",
      "/v1/policies/..%2f..%2f..%2fetc%2fpasswd",
      "/v1/policies/%00",
      "/v1/policies/%E0%A4%A",
      "/v1/policies/%zz",
      "/v1/check?engine=compiled&x=%ff",
      "//v1/check",
      "/v1/check/",
      "/V1/CHECK",
      "/v1/policies/" + encodeURIComponent("ポリシー"),
    ),
  },
  { weight: 1, arbitrary: fc.webPath().map((p) => (p.startsWith("/") ? p : `/${p}`)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 12_000 }).map((n) => `/v1/policies/${"a".repeat(n)}`),
  },
);

const hostArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Case["host"]>({ kind: "loopback" }) },
  { weight: 1, arbitrary: fc.constant<Case["host"]>({ kind: "localhost", value: "localhost:PORT" }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...FOREIGN_HOSTS).map((v): Case["host"] => ({ kind: "foreign", value: v })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...NEUTRAL_HOSTS).map((v): Case["host"] => ({ kind: "neutral", value: v })),
  },
);

const originArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Case["origin"]>({ kind: "none" }) },
  { weight: 1, arbitrary: fc.constant<Case["origin"]>({ kind: "same", value: "http://127.0.0.1:PORT" }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...FOREIGN_ORIGINS)
      .map((v): Case["origin"] => ({ kind: "foreign", value: v })),
  },
);

const contentTypeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 1, arbitrary: fc.constantFrom(...NEUTRAL_TYPES) },
  { weight: 2, arbitrary: fc.constantFrom(...FOREIGN_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant("POST") },
  { weight: 2, arbitrary: fc.constant("GET") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "M-SEARCH"),
  },
);

const caseArb = fc
  .record({ method: methodArb, path, host: hostArb, origin: originArb, contentType: contentTypeArb, body })
  .map(
    (r): Case => ({
      label: "",
      method: r.method,
      path: r.path,
      host: r.host,
      origin: r.origin,
      ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
      ...(r.method === "HEAD" ? {} : { body: r.body }),
    }),
  );

function materialise(c: Case): Case {
  const host = c.host.value !== undefined ? { ...c.host, value: portOf(c.host.value) } : c.host;
  const origin = c.origin.value !== undefined ? { ...c.origin, value: portOf(c.origin.value) } : c.origin;
  const bodyText = typeof c.body === "string" ? JSON.stringify(c.body.slice(0, 80)) : "-";
  const label = `${c.method} ${c.path.slice(0, 60)} host=${host.value ?? host.kind} origin=${origin.value ?? "-"} ct=${c.contentType ?? "-"} body=${bodyText}`;
  return withRules({ ...c, label, host, origin });
}

describe("seeded HTTP corpus", () => {
  it(`${RUNS} random requests (seed ${SEED}): no 5xx, no leaks, error bodies in the family, Decisions on 200, refusals where required`, async () => {
    const cases = fc.sample(caseArb, { seed: SEED, numRuns: RUNS }).map(materialise);
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 180_000);

  it(`${RUNS} random check requests with loopback headers (seed ${SEED + 1}): answered with a Decision or a 4xx`, async () => {
    const cases = fc.sample(checkBody, { seed: SEED + 1, numRuns: RUNS }).map(
      (b, i): Case => ({
        label: `#${i} ${b.slice(0, 120)}`,
        method: "POST",
        path: "/v1/check",
        host: { kind: "loopback" },
        origin: { kind: "none" },
        contentType: "application/json",
        body: b,
      }),
    );
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 180_000);
});

// ---- Hand-picked cases ------------------------------------------------------------------------------

const DENIED_CALL = toolCallOutput("github.delete_repository", { repo: "acme/proto" });
const okCheck = (subjectExtra: Record<string, unknown> = {}, top: Record<string, unknown> = {}) =>
  JSON.stringify({
    policy: "mcp-tools",
    subject: { input: "tidy up", output: DENIED_CALL, ...subjectExtra },
    ...top,
  });

function post(label: string, bodyText: string | Buffer, extra: Partial<Case> = {}): Case {
  return {
    label,
    method: "POST",
    path: "/v1/check",
    host: { kind: "loopback" },
    origin: { kind: "none" },
    contentType: "application/json",
    body: bodyText,
    ...extra,
  };
}

function get(label: string, p: string, extra: Partial<Case> = {}): Case {
  return { label, method: "GET", path: p, host: { kind: "loopback" }, origin: { kind: "none" }, ...extra };
}

describe("hand-picked HTTP cases", () => {
  it("malformed JSON and odd encodings get a 4xx in the error family, never a 5xx", async () => {
    const cases: Case[] = [
      post("lone brace", "{", { mustRefuse: "malformed JSON" }),
      post("truncated", '{"policy":"mcp-tools","subject":{"input":"x","output":"', {
        mustRefuse: "malformed JSON",
      }),
      post("trailing comma", '{"policy":"mcp-tools",}', { mustRefuse: "malformed JSON" }),
      post("NaN literal", '{"policy":"mcp-tools","subject":{"input":NaN,"output":"x"}}', {
        mustRefuse: "malformed JSON",
      }),
      post("single quotes", "{'policy':'mcp-tools'}", { mustRefuse: "malformed JSON" }),
      post("empty body", "", { mustRefuse: "empty body" }),
      post("whitespace body", " \n\t ", { mustRefuse: "empty body" }),
      post("null body", "null", { mustRefuse: "not an object" }),
      post("array body", "[]", { mustRefuse: "not an object" }),
      post("string body", '"mcp-tools"', { mustRefuse: "not an object" }),
      post("number body", "1e999", { mustRefuse: "not an object" }),
      post("BOM then JSON", `\ufeff${okCheck()}`, { mustNotAllow: true }),
      post(
        "invalid UTF-8 inside a string",
        Buffer.concat([
          Buffer.from('{"policy":"mcp-tools","subject":{"input":"'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from(`","output":${JSON.stringify(DENIED_CALL)}}}`),
        ]),
        { mustNotAllow: true },
      ),
      post("lone surrogate escapes", okCheck({ input: "\ud800\udfff\udc00" }), { mustNotAllow: true }),
      post("NUL bytes", okCheck({ input: "a\u0000b" }), { mustNotAllow: true }),
      post("RTL and zero-width", okCheck({ input: "\u202e\u200b\u2066ﷺ" }), { mustNotAllow: true }),
      post(
        "1e400 number where a string goes",
        '{"policy":"mcp-tools","subject":{"input":1e400,"output":"x"}}',
        {
          mustRefuse: "wrong type",
        },
      ),
      post("policy of wrong type", '{"policy":{"name":"mcp-tools"},"subject":{"input":"x","output":"y"}}', {
        mustRefuse: "wrong type",
      }),
      post("unknown engine", okCheck({}, { engine: "rm -rf /" }), { mustRefuse: "unknown engine" }),
      post("extra top-level field", okCheck({}, { debug: true }), { mustNotAllow: true }),
      post("__proto__ at the top", `{"__proto__":{"allowed":true},${okCheck().slice(1)}`, {
        mustNotAllow: true,
      }),
      post(
        "__proto__ key spelled in the text",
        `{"policy":"mcp-tools","subject":{"__proto__":{"allowed":true},"input":"x","output":${JSON.stringify(DENIED_CALL)}}}`,
        { mustNotAllow: true },
      ),
      post(
        "constructor/prototype keys",
        okCheck({ context: { constructor: { prototype: { allowed: true } } } }),
        {
          mustNotAllow: true,
        },
      ),
      post(
        "unknown policy",
        JSON.stringify({ policy: "../../etc/passwd", subject: { input: "x", output: "y" } }),
        {
          mustRefuse: "unknown policy",
        },
      ),
    ];
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 120_000);

  it("deep and huge bodies get a Decision or a 4xx, never a 5xx", async () => {
    const deepTool = (d: number) =>
      `{"method":"tools/call","params":{"name":"shell.run","arguments":${deepObjectText(d, "a", '"x"')}}}`;
    const cases: Case[] = [
      post(
        "tool arguments nested 8 000 deep (as text)",
        okCheck({
          output: `{"method":"tools/call","params":{"name":"github.delete_repository","arguments":${deepObjectText(8_000, "a", '"x"')}}}`,
        }),
        { mustNotAllow: true },
      ),
      post(
        "tool arguments nested 100 000 deep (as text)",
        okCheck({
          output: `{"method":"tools/call","params":{"name":"github.delete_repository","arguments":${deepObjectText(100_000, "a", '"x"')}}}`,
        }),
        { mustNotAllow: true },
      ),
      post("shell.run with arguments 1 000 deep", okCheck({ output: deepTool(1_000) })),
      post(
        "context 50 000 deep",
        `{"policy":"mcp-tools","subject":{"input":"x","output":${JSON.stringify(DENIED_CALL)},"context":${deepObjectText(50_000, "k", "1")}}}`,
        { mustNotAllow: true },
      ),
      post(
        "trajectory 50 000 deep",
        `{"policy":"mcp-tools","subject":{"input":"x","output":${JSON.stringify(DENIED_CALL)},"trajectory":${deepArrayText(50_000)}}}`,
        { mustNotAllow: true },
      ),
      post(
        "output as a 200 000-deep JSON array value",
        `{"policy":"mcp-tools","subject":{"input":"x","output":${deepArrayText(200_000)}}}`,
        { mustNotAllow: true },
      ),
      post("output text a 200 000-deep array", okCheck({ output: deepArrayText(200_000) }), {
        mustNotAllow: true,
      }),
      post("whole body 300 000-deep arrays", deepArrayText(300_000), { mustRefuse: "not a check request" }),
      post("whole body 100 000-deep objects", deepObjectText(100_000, "policy", '"x"'), {
        mustRefuse: "not a check request",
      }),
      post("body one byte over 1 MiB", okCheck({ input: "x".repeat(1024 * 1024) }), {
        mustRefuse: "body over the limit",
      }),
      post("declared Content-Length of 2 GB, few bytes sent", "{}", {
        mustRefuse: "body over the limit",
        headers: [["Content-Length", String(2 * 1024 ** 3)]],
      }),
      {
        ...post("chunked body over 1 MiB", chunked(okCheck({ input: "y".repeat(1_200_000) })), {
          mustRefuse: "body over the limit",
          headers: [["Transfer-Encoding", "chunked"]],
        }),
      },
      post(
        "a context of 60 000 keys",
        `{"policy":"mcp-tools","subject":{"input":"x","output":${JSON.stringify(DENIED_CALL)},"context":{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":${i}`).join(",")}}}}`,
        { mustNotAllow: true },
      ),
      post("a 900 KB input string", okCheck({ input: "é".repeat(450_000) }), { mustNotAllow: true }),
    ];
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 150_000);

  it("a foreign Host is refused on every route; loopback names are served", async () => {
    const routes: Array<[string, string, string | undefined]> = [
      ["GET", "/v1/policies/mcp-tools", undefined],
      ["GET", "/v1/policies", undefined],
      ["GET", "/v1/stats", undefined],
      ["POST", "/v1/check", okCheck()],
    ];
    const cases: Case[] = [];
    for (const host of FOREIGN_HOSTS) {
      for (const [method, p, b] of routes) {
        cases.push({
          label: `${method} ${p} Host: ${portOf(host)}`,
          method,
          path: p,
          host: { kind: "foreign", value: portOf(host) },
          origin: { kind: "none" },
          ...(b !== undefined ? { contentType: "application/json", body: b } : {}),
          mustRefuse: `foreign Host ${portOf(host)}`,
        });
      }
    }
    const failures = await runCases(cases);
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`]) {
      const r = await request({ port: server.port, path: "/healthz", headers: [["Host", host]] });
      if (r.response?.status !== 200)
        failures.push(`Host ${host} on /healthz -> ${r.response?.status ?? r.failure}`);
      const c = await request({
        port: server.port,
        method: "POST",
        path: "/v1/check",
        headers: [
          ["Host", host],
          ["Content-Type", "application/json"],
        ],
        body: okCheck(),
      });
      if (c.response?.status !== 200)
        failures.push(`Host ${host} on /v1/check -> ${c.response?.status ?? c.failure}`);
    }
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 120_000);

  it("a POST that is not application/json is refused (what a web page can send without a preflight)", async () => {
    const cases: Case[] = FOREIGN_TYPES.map((ct) =>
      post(`valid check JSON sent as ${ct}`, okCheck(), { contentType: ct, mustRefuse: `POST as ${ct}` }),
    );
    const { contentType: _dropped, ...untyped } = post("valid check JSON with no Content-Type", okCheck(), {
      mustRefuse: "POST without Content-Type",
    });
    cases.push(untyped);
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 120_000);

  it("a foreign Origin is refused and never granted by CORS", async () => {
    const cases: Case[] = [];
    for (const origin of FOREIGN_ORIGINS) {
      const o = portOf(origin);
      cases.push(
        post(`POST /v1/check Origin: ${o}`, okCheck(), {
          origin: { kind: "foreign", value: o },
          mustRefuse: `foreign Origin ${o}`,
        }),
      );
      cases.push(
        get(`GET /v1/policies/mcp-tools Origin: ${o}`, "/v1/policies/mcp-tools", {
          origin: { kind: "foreign", value: o },
          mustRefuse: `foreign Origin ${o}`,
        }),
      );
      cases.push({
        label: `OPTIONS preflight Origin: ${o}`,
        method: "OPTIONS",
        path: "/v1/check",
        host: { kind: "loopback" },
        origin: { kind: "foreign", value: o },
        headers: [
          ["Access-Control-Request-Method", "POST"],
          ["Access-Control-Request-Headers", "content-type"],
        ],
      });
    }
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 120_000);

  it("wrong methods are refused with a 4xx in the error family", async () => {
    const cases: Case[] = [
      get("GET /v1/check", "/v1/check", { mustRefuse: "wrong method" }),
      { ...post("POST /healthz", "{}"), path: "/healthz", mustRefuse: "wrong method" },
      { ...post("POST /v1/stats", "{}"), path: "/v1/stats", mustRefuse: "wrong method" },
      {
        ...post("POST /v1/policies/mcp-tools", "{}"),
        path: "/v1/policies/mcp-tools",
        mustRefuse: "wrong method",
      },
      { ...post("PUT /v1/check", okCheck()), method: "PUT", mustRefuse: "wrong method" },
      { ...post("PATCH /v1/check", okCheck()), method: "PATCH", mustRefuse: "wrong method" },
      get("DELETE /v1/policies/mcp-tools", "/v1/policies/mcp-tools", {
        method: "DELETE",
        mustRefuse: "wrong method",
      }),
      get("TRACE /v1/check", "/v1/check", { method: "TRACE", mustRefuse: "wrong method" }),
      get("PROPFIND /", "/", { method: "PROPFIND", mustRefuse: "wrong method" }),
      get("absolute-form request target", "http://evil.example/v1/stats"),
    ];
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 120_000);

  it("overlong URLs, many headers and odd paths never give a 5xx", async () => {
    const cases: Case[] = [
      get("8 KB policy name", `/v1/policies/${"p".repeat(8_000)}`, { mustRefuse: "no such policy" }),
      get("100 KB URL", `/v1/policies/${"q".repeat(100_000)}`, { mustRefuse: "URL too long" }),
      get("percent-encoded traversal", "/v1/policies/..%2F..%2F..%2Fetc%2Fpasswd", {
        mustRefuse: "no such policy",
      }),
      get("dot segments", "/v1/policies/../../../../etc/passwd", { mustRefuse: "no such policy" }),
      get("bad percent escape", "/v1/policies/%E0%A4%A", { mustRefuse: "no such policy" }),
      get("NUL escape", "/v1/policies/%00", { mustRefuse: "no such policy" }),
      get("unicode policy name", `/v1/policies/${encodeURIComponent("mcp‐tools\u202e")}`, {
        mustRefuse: "no such policy",
      }),
      get("300 headers", "/healthz", {
        headers: Array.from({ length: 300 }, (_, i): [string, string] => [`X-H${i}`, "v".repeat(20)]),
      }),
      get("query flood", `/v1/stats?${Array.from({ length: 2_000 }, (_, i) => `a${i}=${i}`).join("&")}`),
    ];
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
    await expectHealthy();
  }, 120_000);

  it("facts supplied in the context by an untrusted caller do not override the agent's output", async () => {
    const benign = { name: "github.comment", args: { body: "hi" } };
    const cases: Case[] = [
      post("context.toolCalls says a comment", okCheck({ context: { toolCalls: [benign] } }), {
        mustNotAllow: true,
      }),
      post("context.toolCall says a comment", okCheck({ context: { toolCall: benign } }), {
        mustNotAllow: true,
      }),
      post("context.toolCalls empty", okCheck({ context: { toolCalls: [] } }), { mustNotAllow: true }),
    ];
    const failures = await runCases(cases);
    expect(failures, failures.join("\n")).toEqual([]);
  }, 60_000);
});

/** Encodes a body as HTTP/1.1 chunks of 64 KiB. */
function chunked(text: string): Buffer {
  const data = Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += 65_536) {
    const piece = data.subarray(i, i + 65_536);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}
