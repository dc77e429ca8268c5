import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { defineConfig } from "tsdown";

const common = {
  format: "esm",
  // Plain .js/.d.ts names: the package is "type": "module" and its exports map points at them.
  fixedExtension: false,
  platform: "node",
  target: "node20",
  sourcemap: true,
} as const;

/**
 * Where the build goes: dist/ unless WARDEN_BUILD_DIR names another folder (the package test builds into
 * a temporary one, so the checkout's dist/ stays as other tests use it). Both builds follow it.
 */
const out = process.env.WARDEN_BUILD_DIR ?? "dist";

const natives = ["node-llama-cpp", "better-sqlite3", "better-sqlite3-v13", "pg"];
/**
 * Pure-JavaScript packages every `warden check` loads, bundled into the CLI build. re2js is not one of
 * them: core/safe-regex.ts requires it on the first regex a check compiles, which most hook events
 * never do.
 */
const inlined = ["zod", "commander"];

/**
 * commander requires node:child_process at its top (only to run executable subcommands, which Warden
 * has none of), and with it net, dgram and their streams: a few ms on every `warden check`. In the CLI
 * bundle that require answers a stand-in that loads the real module on first use.
 */
const LAZY_CHILD_PROCESS = "\0warden:lazy-child-process";
const lazyChildProcess = {
  name: "warden:lazy-child-process",
  resolveId(id: string, importer?: string) {
    if (id === "node:child_process" && importer?.includes("/node_modules/commander/"))
      return LAZY_CHILD_PROCESS;
    return undefined;
  },
  load(id: string) {
    if (id !== LAZY_CHILD_PROCESS) return undefined;
    return 'let real;\nmodule.exports = new Proxy({}, { get: (_, key) => (real ??= require("node:child_process"))[key] });\n';
  },
};

/**
 * The CLI's chunks along the path of a one-shot check (`warden check`, `warden hook`): ESM loads each
 * file with a resolve, a read through the thread pool and a link of its own, and code splitting alone
 * cut that path into ~35 small shared chunks. Here each module goes to the first group whose roots
 * import it statically, directly or not: what the entry loads (`main.ts`: commander, the error
 * mapping); zod, with the module the command table loads to turn its JIT off before a check's schemas
 * are built (`one-shot-validation.ts`); then what `check.ts` and `hook.ts` add. The earlier groups take
 * their modules first (priority), so the last one (a group takes its modules' imports with it) cannot
 * pull them in and make every start load it. In the last group, what only one of the two commands
 * imports goes to a chunk of its own (`apart`: check.ts and its output format, the hook's event and
 * session log), so neither start compiles the other's command. Dynamic imports stay as they were: a
 * module only some checks need still loads on its first use. Were the module ids not to match (a
 * renamed root), rolldown would split as before: slower, nothing else.
 */
const CHUNK_GROUPS: readonly { name: string; roots: readonly string[]; apart?: readonly string[] }[] = [
  { name: "cli-start", roots: ["src/cli/main.ts"] },
  { name: "zod", roots: ["src/cli/one-shot-validation.ts"] },
  {
    name: "one-shot-check",
    roots: ["src/cli/commands/check.ts", "src/cli/commands/hook.ts"],
    apart: ["check-command", "hook-command"],
  },
];
const CLI_ENTRY = resolve("src/cli/main.ts");
type ModuleInfoOf = (id: string) => { importedIds: readonly string[] } | null;

/** Every module `roots` import statically, directly or not, the roots included. */
function staticClosure(options: { roots: readonly string[]; info: ModuleInfoOf }): Set<string> {
  const seen = new Set<string>();
  const stack = options.roots.map((root) => resolve(root));
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(options.info(id)?.importedIds ?? []));
  }
  return seen;
}

/**
 * The groups of CHUNK_GROUPS as rolldown's `codeSplitting.groups` (the module graph is read once): each
 * module goes to the first group whose closure has it, and in a group with `apart` names, a module
 * only one root reaches goes to that root's chunk.
 */
function oneShotChunkGroups() {
  let closures: { all: Set<string>; byRoot: Set<string>[] }[] | undefined;
  const chunkName = (id: string, info: ModuleInfoOf): { name: string } | undefined => {
    if (id === CLI_ENTRY) return undefined;
    closures ??= CHUNK_GROUPS.map((group) => ({
      all: staticClosure({ roots: group.roots, info }),
      byRoot: group.roots.map((root) => staticClosure({ roots: [root], info })),
    }));
    const index = closures.findIndex((closure) => closure.all.has(id));
    if (index === -1) return undefined;
    const group = CHUNK_GROUPS[index]!;
    const reaching = closures[index]!.byRoot.flatMap((closure, i) => (closure.has(id) ? [i] : []));
    const apart = reaching.length === 1 ? group.apart?.[reaching[0]!] : undefined;
    return { name: apart ?? group.name };
  };
  const names = CHUNK_GROUPS.flatMap((group) => [group.name, ...(group.apart ?? [])]);
  return names.map((name, i) => ({
    name: (id: string, ctx: { getModuleInfo: ModuleInfoOf }) =>
      chunkName(id, (m) => ctx.getModuleInfo(m))?.name === name ? name : null,
    priority: names.length - i,
  }));
}

/**
 * The build's copy of src/policies/validated-policy-digests.ts lists the digests of the bundled policy
 * documents that parse to themselves, so a load of one skips the schema walk (load-policy.ts). They are
 * computed by each build with scripts/validated-policies.ts, run through tsx on the same sources the
 * build bundles. The module must keep its marker line: a build that cannot write the digests fails.
 */
const DIGESTS_MODULE = resolve("src/policies/validated-policy-digests.ts");
const DIGESTS_MARKER = "// warden:validated-policy-digests";
let digests: string[] | undefined;
const validatedPolicies = {
  name: "warden:validated-policies",
  // Computed again by each build, so a watch build never keeps digests from older sources.
  buildStart() {
    digests = undefined;
  },
  transform(code: string, id: string) {
    if (id !== DIGESTS_MODULE) return undefined;
    if (!code.includes(DIGESTS_MARKER)) throw new Error(`${id} lost its marker ${DIGESTS_MARKER}`);
    digests ??= JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", "scripts/validated-policies.ts"], {
        encoding: "utf8",
      }),
    ) as string[];
    return code.replace(DIGESTS_MARKER, digests.map((d) => JSON.stringify(d)).join(", "));
  },
};

export default defineConfig([
  {
    ...common,
    entry: {
      index: "src/index.ts",
      "server/index": "src/server/index.ts",
      "mcp/index": "src/mcp/index.ts",
      "testing/index": "src/testing/index.ts",
      // warden/ai-sdk: imports only types from `ai` (an optional peer), so nothing of it is bundled.
      "integrations/ai-sdk/index": "src/integrations/ai-sdk/index.ts",
      "integrations/openai-agents/index": "src/integrations/openai-agents/index.ts",
      "integrations/langchain/index": "src/integrations/langchain/index.ts",
      // The sandbox starts its workers from this file, found beside the bundled module.
      "sandbox/quickjs-worker": "src/sandbox/quickjs-worker.ts",
      // The check pool starts its workers from this file, found under runtime/offload/ of the bundle.
      "runtime/offload/check-worker": "src/runtime/offload/check-worker.ts",
      // A SQLite store's background checkpointer starts its thread from this file (store/ of the bundle).
      "store/sqlite-checkpoint-worker": "src/store/sqlite-checkpoint-worker.ts",
    },
    dts: true,
    // Everything but the CLI's own folder, which the second build writes.
    outDir: out,
    clean: [`${out}/**`, `!${out}/cli/**`],
    deps: { neverBundle: natives },
    plugins: [validatedPolicies],
  },
  {
    ...common,
    // The CLI is built on its own, with the pure-JavaScript packages every `warden check` loads
    // bundled in: a pre-tool hook starts on every action, and resolving and compiling ~100 separate
    // module files (zod alone is 95, most of them locales no message uses) costs more than the check.
    // The library above keeps them as dependencies, so an application shares its own zod with ours.
    entry: { main: "src/cli/main.ts" },
    outDir: `${out}/cli`,
    dts: false,
    clean: true,
    // onlyBundle lists the same packages: the build fails if anything else would be bundled.
    deps: { neverBundle: natives, alwaysBundle: inlined, onlyBundle: inlined },
    plugins: [lazyChildProcess, validatedPolicies],
    outputOptions: { codeSplitting: { groups: oneShotChunkGroups() } },
    // Minified: V8 parses every byte of each module a check loads (~0.9 MB) and fully compiles the
    // functions it calls, and Node 20 keeps no compile cache. Names stay (keepNames), so stack traces
    // (WARDEN_DEBUG=1) still name the functions; the .map files beside the bundle give the source lines.
    minify: { compress: true, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
  },
]);
