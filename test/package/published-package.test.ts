/**
 * The package as users get it: built (tsdown, into a temporary folder so the checkout's dist/ and the
 * tests that use it are untouched), packed with `npm pack`, unpacked into a consumer project whose
 * node_modules holds only warden and its production dependencies — linked from this checkout's
 * node_modules, no network — and none of the optional peers (the AI SDK, providers, pg, node-llama-cpp,
 * QuickJS): a light install. There the published types must compile with `skipLibCheck: false`, and a
 * compiled check must run, as a library and through the installed bin. A second consumer adds `ai@6`
 * (linked the same way) and uses warden/ai-sdk: its types compile, and a guarded tool keeps a denied call
 * from running while an allowed one runs, in a real generateText loop.
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bundledPoliciesDir,
  listBundledPolicies,
  readPolicyFile,
  validatedPolicyDigest,
} from "../../src/policies/load-policy.js";

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, "..", "..");
const repoModules = join(repo, "node_modules");
/** The optional peers: a light install has none of them. */
const OPTIONAL_PEERS = Object.keys(readPackage({ dir: repo }).peerDependenciesMeta ?? {});

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  files?: string[];
}

function readPackage(options: { dir: string }): PackageJson {
  return JSON.parse(readFileSync(join(options.dir, "package.json"), "utf8")) as PackageJson;
}

/** What a package needs at run time: its dependencies, optional ones and required peers. */
function runtimeNeeds(options: { pkg: PackageJson }): string[] {
  const { pkg } = options;
  const optionalPeers = new Set(
    Object.entries(pkg.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional)
      .map(([name]) => name),
  );
  return [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)),
  ];
}

/**
 * The packages `npm install warden --omit=dev` would hoist: warden's production dependencies and theirs,
 * as installed in this checkout. A version nested under a package's own node_modules travels with it.
 */
function productionClosure(options: { pkg: PackageJson }): string[] {
  return closureOf({ names: runtimeNeeds({ pkg: options.pkg }) });
}

/** The named packages and what they need at run time, optional peers of warden left out. */
function closureOf(options: { names: string[] }): string[] {
  const seen = new Set<string>();
  const pending = [...options.names];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name) || OPTIONAL_PEERS.includes(name)) continue;
    const dir = join(repoModules, name);
    if (!existsSync(join(dir, "package.json"))) continue;
    seen.add(name);
    pending.push(...runtimeNeeds({ pkg: readPackage({ dir }) }));
  }
  return [...seen].sort();
}

function link(options: { modules: string; name: string }): void {
  const target = join(options.modules, options.name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(repoModules, options.name), target, "dir");
}

const CONSUMER_TS = `
import { createGuard, type Decision, WardenError, type Guard } from "warden";
import { createWardenApp, HTTP_STATUS_BY_CODE, type StartServerOptions } from "warden/server";
import { createGuardedMcpProxy, MCP_ERROR_CODE_BY_WARDEN_CODE, type GuardedMcpProxyOptions } from "warden/mcp";
import { createScriptedModel, startOpenAIServer, type ModelServer } from "warden/testing";

export async function decide(call: { name: string; arguments: Record<string, unknown> }): Promise<Decision> {
  const guard: Guard = await createGuard({ policy: "mcp-tools" });
  try {
    return await guard.check({ input: "Do the task.", output: JSON.stringify(call) });
  } finally {
    await guard.close();
  }
}

export const statuses: number[] = [HTTP_STATUS_BY_CODE.MISSING_DEPENDENCY, MCP_ERROR_CODE_BY_WARDEN_CODE.INTERNAL];
export const error: WardenError = new WardenError({ code: "MISSING_DEPENDENCY", message: "m" });
export type Used = [typeof createWardenApp, StartServerOptions, typeof createGuardedMcpProxy, GuardedMcpProxyOptions];
export type Testing = [typeof createScriptedModel, typeof startOpenAIServer, ModelServer];
`;

/**
 * The MCP SDK's own declarations (which warden/mcp's types import) name the DOM-only global HeadersInit,
 * which @types/node does not declare: modelcontextprotocol/typescript-sdk#2568, open, fixed upstream by
 * an open pull request. That one error, in that file, is theirs; any other error fails the test.
 */
const UPSTREAM_TYPE_ERROR =
  /@modelcontextprotocol\/sdk\/dist\/esm\/shared\/transport\.d\.ts\(\d+,\d+\): error TS2304: Cannot find name 'HeadersInit'\./;

/**
 * The AI SDK's own declarations import types from `json-schema`, whose types (@types/json-schema) are only
 * a devDependency of @ai-sdk/provider: with skipLibCheck: false every ai@6 consumer gets this error, with
 * or without Warden. That one error, in that file, is theirs.
 */
const AI_UPSTREAM_TYPE_ERROR =
  /@ai-sdk\/provider\/dist\/index\.d\.ts\(\d+,\d+\): error TS7016: Could not find a declaration file for module 'json-schema'\./;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: ["node"],
  },
  files: ["consumer.ts"],
};

const CONSUMER_MJS = `
import { createGuard } from "warden";
const guard = await createGuard({ policy: "mcp-tools" });
const check = (name, args) =>
  guard.check({ input: "Do the task.", output: JSON.stringify({ name, arguments: args }) });
const deny = await check("github.delete_repository", { repo: "acme/proto" });
const allow = await check("github.create_issue", { repo: "acme/web", title: "bug" });
await guard.close();
process.stdout.write(JSON.stringify({ deny, allow }));
`;

/** warden/ai-sdk in a consumer with ai@6: the published types, used as the README shows them. */
const AI_CONSUMER_TS = `
import { generateText, stepCountIs, tool, wrapLanguageModel } from "ai";
import { z } from "zod";
import { createGuard } from "warden";
import { guardTools, wardenMiddleware, WardenToolDeniedError, type WardenRefusal } from "warden/ai-sdk";

type Model = Parameters<typeof wrapLanguageModel>[0]["model"];

export async function run(model: Model): Promise<string> {
  const guard = await createGuard({ policy: "mcp-tools" });
  const tools = guardTools({
    guard,
    mode: "feedback",
    tools: {
      email_send: tool({
        inputSchema: z.object({ email: z.string() }),
        execute: async ({ email }) => \`sent to \${email}\`,
      }),
    },
  });
  const guarded = wrapLanguageModel({ model, middleware: wardenMiddleware({ guard }) });
  try {
    const result = await generateText({ model: guarded, tools, prompt: "Mail Bob.", stopWhen: stepCountIs(5) });
    return result.text;
  } catch (error) {
    if (WardenToolDeniedError.is(error)) return error.decision.verdict;
    throw error;
  } finally {
    await guard.close();
  }
}
export type Refusal = WardenRefusal["feedback"];
`;

/** The "done when" of warden/ai-sdk, from the packed package: a denied call never runs, an allowed one does. */
const AI_CONSUMER_MJS = `
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { createGuard } from "warden";
import { guardTools } from "warden/ai-sdk";
const guard = await createGuard({ policy: "mcp-tools" });
const sent = [];
const tools = guardTools({
  guard,
  tools: {
    email_send: tool({
      inputSchema: z.object({ email: z.string() }),
      execute: async ({ email }) => { sent.push(email); return "sent to " + email; },
    }),
  },
});
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const replies = [
  [{ type: "tool-call", toolCallId: "a", toolName: "email_send", input: JSON.stringify({ email: "eve@evil.test" }) }],
  [{ type: "tool-call", toolCallId: "b", toolName: "email_send", input: JSON.stringify({ email: "bob@example.com" }) }],
  [{ type: "text", text: "done" }],
];
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const content = replies[step++];
    return { content, finishReason: { unified: content[0].type === "text" ? "stop" : "tool-calls", raw: undefined }, usage, warnings: [] };
  },
});
const result = await generateText({ model, tools, prompt: "Mail the numbers.", stopWhen: stepCountIs(5) });
await guard.close();
process.stdout.write(JSON.stringify({ sent, text: result.text, feedback: result.steps[0].toolResults[0].output }));
`;

/** The framework integrations' types, as an application with the peers installed writes them. */
const PEERS_TS = `
import { Agent, tool } from "@openai/agents";
import { tool as langchainTool, type DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { createGuard, type Guard } from "warden";
import {
  WardenToolDeniedError,
  wardenDenialOf,
  wardenInputGuardrail,
  wardenNeedsApproval,
  wardenOutputGuardrail,
  wardenToolInputGuardrail,
} from "warden/openai-agents";
import { wardenTools, type ApprovalRequest } from "warden/langchain";

export async function build(): Promise<{ agent: Agent; tools: DynamicStructuredTool[] }> {
  const guard: Guard = await createGuard({ policy: "mcp-tools" });
  const deleteFile = tool({
    name: "filesystem_delete_file",
    description: "Delete a file",
    parameters: z.object({ path: z.string() }),
    inputGuardrails: [wardenToolInputGuardrail({ guard, mode: "approval" })],
    needsApproval: wardenNeedsApproval({ guard, tool: "filesystem_delete_file" }),
    execute: async ({ path }) => \`deleted \${path}\`,
  });
  const agent = new Agent({
    name: "ops",
    tools: [deleteFile],
    inputGuardrails: [wardenInputGuardrail({ guard })],
    outputGuardrails: [wardenOutputGuardrail({ guard })],
  });
  const issue = langchainTool(async ({ title }: { title: string }) => title, {
    name: "github_create_issue",
    description: "Open an issue",
    schema: z.object({ title: z.string() }),
  });
  const approve = async (request: ApprovalRequest) => request.tool === "github_create_issue";
  const tools = await wardenTools({ guard, tools: [issue], mode: "approval", approve });
  return { agent, tools };
}

export const denial: WardenToolDeniedError | undefined = wardenDenialOf({ error: new Error("x") });
`;

/**
 * The three OpenAI Agents guardrails and the LangChain tools at work from the installed package: a
 * scripted model (the SDK's own Model interface) asks to delete a file outside /tmp, reads the refusal
 * and deletes under /tmp; mind2web-sc's input guardrail stops a minor's hotel booking and lets an
 * adult's through, whose answer passes the output guardrail; a guarded LangChain tool refuses a
 * repository deletion.
 */
const PEERS_MJS = `
import { Agent, InputGuardrailTripwireTriggered, Runner, Usage, tool } from "@openai/agents";
import { tool as langchainTool } from "@langchain/core/tools";
import { z } from "zod";
import { createGuard } from "warden";
import { wardenInputGuardrail, wardenOutputGuardrail, wardenToolInputGuardrail } from "warden/openai-agents";
import { wardenTools } from "warden/langchain";

const usage = () => new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
const text = (t) => ({ usage: usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: t }] }] });
const call = (callId, path) => ({ usage: usage(), output: [{ type: "function_call", callId, name: "filesystem_delete_file", status: "completed", arguments: JSON.stringify({ path }) }] });
function scripted(steps) {
  let step = 0;
  return { async getResponse(request) { return steps[Math.min(step++, steps.length - 1)](request); }, async *getStreamedResponse() { throw new Error("no streaming"); } };
}
const resultOf = (request, callId) => {
  const item = request.input.find((i) => i.type === "function_call_result" && i.callId === callId);
  return typeof item?.output === "string" ? item.output : item?.output?.text;
};

const tools = await createGuard({ policy: "mcp-tools" });
const web = await createGuard({ policy: "mind2web-sc" });
const runner = new Runner({ tracingDisabled: true });
const out = {};
try {
  const deleted = [];
  const deleteFile = tool({
    name: "filesystem_delete_file", description: "Delete a file", parameters: z.object({ path: z.string() }),
    inputGuardrails: [wardenToolInputGuardrail({ guard: tools })],
    execute: async ({ path }) => { deleted.push(path); return "deleted " + path; },
  });
  let feedback = "";
  const model = scripted([
    () => call("c1", "/home/me/notes.txt"),
    (request) => { feedback = resultOf(request, "c1"); return call("c2", "/tmp/notes.txt"); },
    () => text("done"),
  ]);
  const result = await runner.run(new Agent({ name: "files", model, tools: [deleteFile] }), "Remove my notes", { maxTurns: 6 });
  out.tool = { deleted, feedback, final: result.finalOutput };

  const user = { age: 16, domestic: true, dr_license: true, vaccine: true, membership: true };
  const agentFor = (age) => new Agent({
    name: "web", model: scripted([() => text("Booked.")]),
    inputGuardrails: [wardenInputGuardrail({ guard: web, context: { user: { ...user, age } } })],
    outputGuardrails: [wardenOutputGuardrail({ guard: web, context: { user: { ...user, age } } })],
  });
  const minor = await runner.run(agentFor(16), "Book a hotel in Paris for tonight").catch((e) => e);
  out.minor = { tripped: minor instanceof InputGuardrailTripwireTriggered, explanation: minor?.result?.output?.outputInfo?.explanation };
  out.adult = (await runner.run(agentFor(30), "Book a hotel in Paris for tonight")).finalOutput;

  const ran = [];
  const remove = langchainTool(async ({ repo }) => { ran.push(repo); return "deleted"; }, {
    name: "github_delete_repository", description: "Delete a repository", schema: z.object({ repo: z.string() }),
  });
  const [guarded] = await wardenTools({ guard: tools, tools: [remove] });
  const message = await guarded.invoke({ name: "github_delete_repository", args: { repo: "acme/old" }, id: "l1", type: "tool_call" });
  out.langchain = { ran, status: message.status, content: message.content };
} finally {
  await tools.close();
  await web.close();
}
process.stdout.write(JSON.stringify(out));
`;

let work = "";
let consumer = "";
let aiConsumer = "";
let agentsConsumer = "";
let tarball = "";

/** tsc's errors in a consumer project, less the one known upstream error. */
async function typeErrors(options: { cwd: string }): Promise<string[]> {
  const tsc = join(repoModules, "typescript", "bin", "tsc");
  const output = await run(process.execPath, [tsc, "-p", "tsconfig.json"], {
    cwd: options.cwd,
    timeout: 240_000,
  }).then(
    () => "",
    (error: { stdout?: string; stderr?: string; killed?: boolean; signal?: string | null }) => {
      // A tsc killed at its limit, or failing without a word, is a failure of the test, never "no errors".
      const text = `${error.stdout ?? ""}${error.stderr ?? ""}`;
      if (error.killed || error.signal || text.trim() === "") {
        throw new Error(`tsc did not finish (${error.signal ?? "no output"}): ${text.slice(0, 500)}`);
      }
      return text;
    },
  );
  return output
    .split("\n")
    .filter((line) => /error TS\d+/.test(line))
    .filter((line) => !UPSTREAM_TYPE_ERROR.test(line) && !AI_UPSTREAM_TYPE_ERROR.test(line));
}

describe("the published package, installed without its optional peers", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "warden-package-"));
    const stage = join(work, "stage");
    mkdirSync(stage);
    // Build into the staging folder: the checkout's own dist/ may be in use by other tests.
    await run(process.execPath, [join(repoModules, "tsdown", "dist", "run.mjs")], {
      cwd: repo,
      // Both builds (the library and the CLI's own bundle under cli/) follow WARDEN_BUILD_DIR.
      env: { ...process.env, WARDEN_BUILD_DIR: join(stage, "dist") },
      timeout: 150_000,
    });
    const pkg = readPackage({ dir: repo });
    for (const entry of [...(pkg.files ?? []).filter((f) => f !== "dist"), "package.json", "README.md"]) {
      if (existsSync(join(repo, entry))) await run("cp", ["-R", join(repo, entry), stage]);
    }
    // --ignore-scripts: the checkout's build scripts have nothing to build from here; dist is built.
    const packed = await run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", work], {
      cwd: stage,
      timeout: 60_000,
    });
    tarball = join(work, packed.stdout.trim().split("\n").at(-1) as string);
    consumer = join(work, "consumer");
    const modules = join(consumer, "node_modules");
    mkdirSync(join(modules, "warden"), { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", join(modules, "warden"), "--strip-components=1"]);
    for (const name of [...productionClosure({ pkg }), "@types/node"]) link({ modules, name });
    writeFileSync(
      join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", type: "module", private: true }),
    );
    writeFileSync(join(consumer, "consumer.ts"), CONSUMER_TS);
    writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
    writeFileSync(join(consumer, "check.mjs"), CONSUMER_MJS);

    // The same package in a project that also installed ai@6.
    aiConsumer = join(work, "consumer-ai");
    const aiModules = join(aiConsumer, "node_modules");
    mkdirSync(join(aiModules, "warden"), { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", join(aiModules, "warden"), "--strip-components=1"]);
    const withAi = new Set([
      ...productionClosure({ pkg }),
      "@types/node",
      "ai",
      ...closureOf({ names: runtimeNeeds({ pkg: readPackage({ dir: join(repoModules, "ai") }) }) }),
    ]);
    for (const name of withAi) link({ modules: aiModules, name });
    writeFileSync(
      join(aiConsumer, "package.json"),
      JSON.stringify({ name: "consumer-ai", type: "module", private: true }),
    );
    writeFileSync(join(aiConsumer, "consumer.ts"), AI_CONSUMER_TS);
    // The AI SDK's declarations name fetch's DOM types (HeadersInit, RequestCredentials, FileList): its
    // users compile with the DOM library, as this one does.
    const aiConfig = {
      ...CONSUMER_TSCONFIG,
      compilerOptions: { ...CONSUMER_TSCONFIG.compilerOptions, lib: ["ES2023", "DOM"] },
    };
    writeFileSync(join(aiConsumer, "tsconfig.json"), JSON.stringify(aiConfig, null, 2));
    writeFileSync(join(aiConsumer, "check.mjs"), AI_CONSUMER_MJS);

    // The same package in a project that also installed @openai/agents and @langchain/core.
    agentsConsumer = join(work, "consumer-agents");
    const agentsModules = join(agentsConsumer, "node_modules");
    mkdirSync(join(agentsModules, "warden"), { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", join(agentsModules, "warden"), "--strip-components=1"]);
    const peers = ["@openai/agents", "@langchain/core"];
    const withAgents = new Set([
      ...productionClosure({ pkg }),
      "@types/node",
      ...peers,
      ...peers.flatMap((peer) =>
        closureOf({ names: runtimeNeeds({ pkg: readPackage({ dir: join(repoModules, peer) }) }) }),
      ),
    ]);
    for (const name of withAgents) link({ modules: agentsModules, name });
    writeFileSync(
      join(agentsConsumer, "package.json"),
      JSON.stringify({ name: "consumer-agents", type: "module", private: true }),
    );
    writeFileSync(join(agentsConsumer, "consumer.ts"), PEERS_TS);
    writeFileSync(join(agentsConsumer, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
    writeFileSync(join(agentsConsumer, "check.mjs"), PEERS_MJS);
  }, 240_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("ships the LICENSE and the built entry points, and no sources", async () => {
    const listing = (await run("tar", ["-tzf", tarball])).stdout.split("\n");
    expect(listing).toContain("package/LICENSE");
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing).toContain("package/bin/warden.js");
    expect(listing.some((path) => path.startsWith("package/src/"))).toBe(false);
  });

  it("leaves out every optional peer", () => {
    expect(OPTIONAL_PEERS).toEqual(
      expect.arrayContaining(["ai", "@ai-sdk/openai", "pg", "node-llama-cpp", "quickjs-emscripten"]),
    );
    for (const name of OPTIONAL_PEERS) expect(existsSync(join(consumer, "node_modules", name))).toBe(false);
  });

  it("has types that compile in a consumer with skipLibCheck: false", async () => {
    expect(await typeErrors({ cwd: consumer })).toEqual([]);
  }, 150_000);

  it("has warden/ai-sdk types that compile beside ai@6 with skipLibCheck: false", async () => {
    expect(await typeErrors({ cwd: aiConsumer })).toEqual([]);
  }, 150_000);

  it("keeps a denied AI SDK tool call from running and runs the allowed one (warden/ai-sdk with ai@6)", async () => {
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: aiConsumer, timeout: 60_000 });
    const { sent, text, feedback } = JSON.parse(stdout) as {
      sent: string[];
      text: string;
      feedback: unknown;
    };
    expect(sent).toEqual(["bob@example.com"]);
    expect(text).toBe("done");
    expect(feedback).toMatchObject({ warden: "refused", verdict: "deny" });
    expect(JSON.stringify(feedback)).toContain("tool.email-internal-only");
  }, 90_000);

  it("has warden/openai-agents and warden/langchain types that compile beside the peers", async () => {
    // Errors inside the peers' own declarations are theirs (tsc names them by the linked real path, e.g.
    // @openai/agents-realtime's WebRTC types, which need the DOM library); every other one — the
    // consumer's, warden's, a missing file or module — fails the test.
    const errors = (await typeErrors({ cwd: agentsConsumer })).filter(
      (line) => !/^[^(]*node_modules\/(?!warden\/)[^(]*\(/.test(line),
    );
    expect(errors).toEqual([]);
  }, 300_000);

  it("runs the three OpenAI Agents guardrails and the guarded LangChain tools", async () => {
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: agentsConsumer, timeout: 90_000 });
    const out = JSON.parse(stdout) as Record<string, Record<string, unknown> | string>;
    expect(out.tool).toMatchObject({ deleted: ["/tmp/notes.txt"], final: "done" });
    expect((out.tool as { feedback: string }).feedback).toContain("tool.delete-only-tmp");
    expect(out.minor).toEqual({ tripped: true, explanation: "User aged under 18 cannot book a hotel" });
    expect(out.adult).toBe("Booked.");
    expect(out.langchain).toMatchObject({ ran: [], status: "error" });
    expect((out.langchain as { content: string }).content).toContain("tool.no-repo-deletion");
  }, 120_000);

  it("runs a compiled check from the installed package", async () => {
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: consumer, timeout: 60_000 });
    const { deny, allow } = JSON.parse(stdout) as {
      deny: Record<string, unknown>;
      allow: Record<string, unknown>;
    };
    expect(deny).toMatchObject({ allowed: false, verdict: "deny", engine: "auto/compiled" });
    expect(allow).toMatchObject({ allowed: true, engine: "auto/compiled" });
  }, 90_000);

  it("carries the digests of the bundled policies it validated in the CLI build", () => {
    const cli = join(consumer, "node_modules", "warden", "dist", "cli");
    const code = readdirSync(cli)
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(cli, f), "utf8"))
      .join("\n");
    for (const name of listBundledPolicies()) {
      const path = join(bundledPoliciesDir(), name, "policy.json");
      const digest = validatedPolicyDigest({ text: readPolicyFile({ path, what: name }), what: name });
      expect(code).toContain(digest);
    }
  });

  it("runs `warden check` through the installed bin", async () => {
    const subject = join(consumer, "call.json");
    writeFileSync(
      subject,
      JSON.stringify({
        input: "Clean up the old prototype repository.",
        output: JSON.stringify({ name: "github.delete_repository", arguments: { repo: "acme/proto" } }),
      }),
    );
    const bin = join(consumer, "node_modules", "warden", "bin", "warden.js");
    const result = await run(
      process.execPath,
      [bin, "check", "--policy", "mcp-tools", "--subject", subject, "--json"],
      {
        cwd: consumer,
        timeout: 60_000,
      },
    ).then(
      () => ({ code: 0, stdout: "" }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? "" }),
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ allowed: false, verdict: "deny" });
  }, 90_000);
});
