/**
 * The package as users get it: built (tsdown, into a temporary folder so the checkout's dist/ and the
 * tests that use it are untouched), packed with `npm pack`, unpacked into a consumer project whose
 * node_modules holds only warden and its production dependencies — linked from this checkout's
 * node_modules, no network — and none of the optional peers (the AI SDK, providers, pg, node-llama-cpp,
 * QuickJS): a light install. There the published types must compile with `skipLibCheck: false`, and a
 * compiled check must run, as a library and through the installed bin.
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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
 * `roots` adds packages installed beside warden (an optional peer and what it needs).
 */
function productionClosure(options: { pkg: PackageJson; roots?: string[] }): string[] {
  const seen = new Set<string>();
  const roots = options.roots ?? [];
  const pending = [...runtimeNeeds({ pkg: options.pkg }), ...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name) || (OPTIONAL_PEERS.includes(name) && !roots.includes(name))) continue;
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

let work = "";
let tarball = "";
let packing: Promise<void> | undefined;

/** Builds and packs the package once for every consumer in this file. */
function packOnce(): Promise<void> {
  packing ??= (async () => {
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
  })();
  return packing;
}

/** A consumer project with the unpacked package, its production closure and `peers` beside it. */
async function installConsumer(options: { name: string; peers: string[]; files: Record<string, string> }) {
  const dir = join(work, options.name);
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "warden"), { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", join(modules, "warden"), "--strip-components=1"]);
  const pkg = readPackage({ dir: repo });
  for (const name of new Set([...productionClosure({ pkg, roots: options.peers }), "@types/node"])) {
    link({ modules, name });
  }
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: options.name, type: "module", private: true }),
  );
  for (const [file, text] of Object.entries(options.files)) writeFileSync(join(dir, file), text);
  return dir;
}

/**
 * The TypeScript errors of a consumer's `tsc -p tsconfig.json`, one per line. A tsc that was killed (past
 * its time limit) or printed nothing while failing is an error of the test, never "no errors".
 */
async function typeErrors(options: { cwd: string }): Promise<string[]> {
  const tsc = join(repoModules, "typescript", "bin", "tsc");
  const output = await run(process.execPath, [tsc, "-p", "tsconfig.json"], {
    cwd: options.cwd,
    timeout: 240_000,
  }).then(
    () => "",
    (error: { stdout?: string; stderr?: string; killed?: boolean; signal?: string | null }) => {
      const text = `${error.stdout ?? ""}${error.stderr ?? ""}`;
      if (error.killed || error.signal || text.trim() === "") {
        throw new Error(`tsc did not finish (${error.signal ?? "no output"}): ${text.slice(0, 500)}`);
      }
      return text;
    },
  );
  return output.split("\n").filter((line) => /error TS\d+/.test(line));
}

let consumer = "";

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the published package, installed without its optional peers", () => {
  beforeAll(async () => {
    await packOnce();
    consumer = await installConsumer({
      name: "consumer",
      peers: [],
      files: {
        "consumer.ts": CONSUMER_TS,
        "tsconfig.json": JSON.stringify(CONSUMER_TSCONFIG, null, 2),
        "check.mjs": CONSUMER_MJS,
      },
    });
  }, 240_000);

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
    const errors = (await typeErrors({ cwd: consumer })).filter((line) => !UPSTREAM_TYPE_ERROR.test(line));
    expect(errors).toEqual([]);
  }, 300_000);

  it("runs a compiled check from the installed package", async () => {
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: consumer, timeout: 60_000 });
    const { deny, allow } = JSON.parse(stdout) as {
      deny: Record<string, unknown>;
      allow: Record<string, unknown>;
    };
    expect(deny).toMatchObject({ allowed: false, verdict: "deny", engine: "auto/compiled" });
    expect(allow).toMatchObject({ allowed: true, engine: "auto/compiled" });
  }, 90_000);

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

describe("the published package, installed with @openai/agents and @langchain/core", () => {
  let dir = "";
  beforeAll(async () => {
    await packOnce();
    dir = await installConsumer({
      name: "consumer-peers",
      peers: ["@openai/agents", "@langchain/core"],
      files: {
        "consumer.ts": PEERS_TS,
        "tsconfig.json": JSON.stringify(CONSUMER_TSCONFIG, null, 2),
        "check.mjs": PEERS_MJS,
      },
    });
  }, 240_000);

  it("has warden/openai-agents and warden/langchain types that compile in the consumer", async () => {
    // Errors inside the peers' own declarations are theirs; every other one (the consumer's, warden's, a
    // missing file or module) fails the test.
    const errors = (await typeErrors({ cwd: dir })).filter(
      (line) => !/^node_modules\/(?!warden\/)[^(]*\(/.test(line),
    );
    expect(errors).toEqual([]);
  }, 300_000);

  it("runs the three guardrails and the guarded LangChain tools", async () => {
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: dir, timeout: 90_000 });
    const out = JSON.parse(stdout) as Record<string, Record<string, unknown> | string>;
    expect(out.tool).toMatchObject({ deleted: ["/tmp/notes.txt"], final: "done" });
    expect((out.tool as { feedback: string }).feedback).toContain("tool.delete-only-tmp");
    expect(out.minor).toEqual({ tripped: true, explanation: "User aged under 18 cannot book a hotel" });
    expect(out.adult).toBe("Booked.");
    expect(out.langchain).toMatchObject({ ran: [], status: "error" });
    expect((out.langchain as { content: string }).content).toContain("tool.no-repo-deletion");
  }, 120_000);
});
