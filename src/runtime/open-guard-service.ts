/**
 * Assembles a GuardService from configuration, the way `warden check` assembles one check: model from
 * the model options, memory (store + bank) when a model engine can use it, policies loaded with their seed
 * demonstrations, user toolbox functions, and an engine pool. The default engine is built at once, so a
 * misconfiguration (a model engine without a model) stops the start instead of failing every request.
 *
 * Learning from live checks is off by default: a service answers whoever may call it, so storing what
 * the model decided would let a caller poison memory. "correct-only" learns from labelled feedback
 * (GuardService.feedback, scope "memory:write"); "successful" is refused here (it is for `warden bench`,
 * where the benchmark's labels judge). A failed memory write is counted in stats and reported to
 * `onWarning`, never changing the decision.
 *
 * The store (SQLite), the memory bank, the model client and user tool functions are imported only when
 * the options ask for them: a compiled `warden check` opens none of them and must start in a blink.
 */
import { userInfo } from "node:os";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import type { ModelClient } from "../llm/model.js";
import type { MemoryBank } from "../memory/memory-bank.js";
import { listBundledPolicies, REGEX_CHECKS } from "../policies/load-policy.js";
import type { ApprovalStore, Store } from "../store/store.js";
import type { ToolFunction } from "../toolbox/tool-function.js";
import { ENGINE_NAMES } from "./create-engine.js";
import { createEnginePool } from "./engine-pool.js";
import { CheckTimeoutMsSchema, createGuardService, type GuardService } from "./guard-service.js";
import { ModelOptionsSchema, modelFromOptions } from "./model-options.js";
import { loadPolicyWithSeeds } from "./policy-context.js";

export const GuardServiceOptionsSchema = ModelOptionsSchema.extend({
  /** Policy names or paths to preload; empty = every bundled policy. */
  policies: z.array(z.string().min(1)).default([]),
  engine: z.enum(ENGINE_NAMES).default("auto"),
  shots: z.coerce.number().int().min(0).optional(),
  retrieval: z.enum(["most", "least"]).default("most"),
  debugRounds: z.coerce.number().int().min(0).max(10).optional(),
  toolbox: z.boolean().default(true),
  /** Use demonstrations from a store (only opened when a model is configured). */
  memory: z.boolean().default(true),
  tools: z.array(z.string()).default([]),
  demos: z.array(z.string()).default([]),
  /** Memory database path (default $WARDEN_STORE or the XDG state directory); ":memory:" for none on disk. */
  store: z.string().min(1).optional(),
  failOpen: z.boolean().default(false),
  /** "off" (default) or "correct-only" (labelled feedback only); "successful" is refused, see the header. */
  learn: z.enum(["off", "successful", "correct-only"]).default("off"),
  sandboxWorkers: z.coerce.number().int().min(1).max(64).optional(),
  /** The shield with a model: "binary-check" (default) or "plan" (ShieldAgent's shielding plan). */
  shieldPlanning: z.enum(["binary-check", "plan"]).optional(),
  /** Time limit of one check in ms, past which it is denied (default 300 000); 0 for none. */
  checkTimeoutMs: CheckTimeoutMsSchema.optional(),
  /** When the policies' regexes are parsed: "load" (default) or "use" (one-shot checks: warden hook). */
  regexes: z.enum(REGEX_CHECKS).default("load"),
  /**
   * Record every decision in the audit log (runtime/audit-log.ts) of the store of `store`; default: on
   * when `store` is named, off otherwise.
   */
  audit: z.boolean().optional(),
  /** Keep each checked subject in its audit row, not only its digest. */
  auditSubjects: z.boolean().default(false),
  /** "sync" (default): a decision is answered after its row is written; "async": written behind. */
  auditMode: z.enum(["sync", "async"]).default("sync"),
});
export type GuardServiceOptions = z.input<typeof GuardServiceOptionsSchema>;

export async function openGuardService(
  options: GuardServiceOptions & {
    /** A model client made by the caller (tests, embedding apps); takes precedence over `model`; the service closes it. */
    modelClient?: ModelClient;
    /** Directory policy paths are resolved against (default the process's). */
    cwd?: string;
    /** Told of conditions worth logging (a failed memory write); default: a process warning. */
    onWarning?: (options: { message: string; error?: unknown }) => void;
    /**
     * An opened store whose audit log records every decision (the caller keeps and closes it); implies
     * `audit`. Without it, `audit: true` opens the store of `store` (default $WARDEN_STORE) and closes it.
     */
    auditStore?: Store;
    /** Who answers, in each audit row ("http", "mcp-server"...; default "library"). */
    auditFace?: string;
    /**
     * The approval queue (runtime/approvals.ts): an ask becomes an approval in this store. Applied inside
     * the audit log, so each audit row holds the answer the caller got (the approval id included).
     */
    approvals?: { store: ApprovalStore; ttlMs?: number };
  },
): Promise<GuardService> {
  const { modelClient, cwd, onWarning, auditStore, auditFace, approvals, ...raw } = options;
  const o = parseWith({ schema: GuardServiceOptionsSchema, value: raw, what: "guard service options" });
  if (o.learn === "successful") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message:
        'learn: "successful" stores whatever the model decided, so any caller could teach the guard (memory poisoning); a live guard takes "off" (the default) or "correct-only" (cases confirmed by labelled feedback). "successful" is for warden bench, where the benchmark\'s labels judge',
      details: { field: "learn", expected: ["off", "correct-only"] },
    });
  }
  const warn =
    onWarning ??
    (({ message }: { message: string }) => process.emitWarning(message, { code: "WARDEN_MEMORY_WRITE" }));
  const model = modelClient ?? (await modelFromOptions(o));
  // Any request may pick a model engine, so memory is opened whenever there is a model to use it.
  const usesMemory = o.memory && model !== undefined;
  let store: Store | undefined;
  let service: GuardService | undefined;
  try {
    if (usesMemory || o.store) {
      const { openStore } = await import("./default-store.js");
      store = usesMemory ? await openStore({ ...(o.store ? { path: o.store } : {}) }) : undefined;
      // A store the user named but no engine will use (no model) is still opened once, so a path that
      // cannot hold it is an error at start rather than a surprise when a model is added.
      if (!store && o.store) await (await openStore({ path: o.store })).close();
    }
    const memory = store ? await memoryBankOf({ store, learn: o.learn, warn }) : undefined;
    const refs = o.policies.length > 0 ? o.policies : listBundledPolicies();
    if (refs.length === 0) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: "no policy to load: pass --policy (a bundled name or a policy file)",
        details: { field: "policies" },
      });
    }
    const policies = [];
    for (const ref of refs) {
      const loaded = await loadPolicyWithSeeds({
        ref,
        ...(memory ? { memory } : {}),
        extraDemonstrations: o.demos,
        ...(cwd ? { cwd } : {}),
        regexes: o.regexes,
      });
      policies.push(loaded.policy);
    }
    const toolFunctions = await toolFunctionsOf({ paths: o.tools });
    const engines = createEnginePool({
      defaultEngine: o.engine,
      setup: {
        ...(model ? { model } : {}),
        ...(memory ? { memory } : {}),
        ...(o.shots !== undefined ? { shots: o.shots } : {}),
        retrieval: o.retrieval,
        ...(o.debugRounds !== undefined ? { debugRounds: o.debugRounds } : {}),
        toolbox: o.toolbox,
        toolFunctions,
        learn: o.learn,
        failMode: o.failOpen ? "open" : "closed",
        ...(o.sandboxWorkers !== undefined ? { sandboxWorkers: o.sandboxWorkers } : {}),
        ...(o.shieldPlanning ? { shieldPlanning: o.shieldPlanning } : {}),
      },
    });
    const openedStore = store;
    service = createGuardService({
      policies,
      engines,
      ...(model ? { model } : {}),
      ...(openedStore ? { onClose: () => openedStore.close() } : {}),
      ...(o.checkTimeoutMs !== undefined ? { checkTimeoutMs: o.checkTimeoutMs } : {}),
      ...(memory ? { memory } : {}),
    });
    await service.getEngine({});
    if (approvals) {
      const { withApprovals } = await import("./approvals.js");
      service = withApprovals({
        service,
        store: approvals.store,
        ...(approvals.ttlMs !== undefined ? { ttlMs: approvals.ttlMs } : {}),
      });
    }
    if (auditStore || (o.audit ?? o.store !== undefined))
      service = await auditedService({ service, o, auditStore, auditFace, onWarning });
    return service;
  } catch (error) {
    // Once made, the service owns the model (through its engine pool) and the store.
    if (service) await service.close().catch(() => undefined);
    else {
      await model?.close?.()?.catch(() => undefined);
      await store?.close().catch(() => undefined);
    }
    throw error;
  }
}

/** The service wrapped by withAudit over `auditStore`, or over a store it opens (closed with the service). */
async function auditedService(options: {
  service: GuardService;
  o: z.output<typeof GuardServiceOptionsSchema>;
  auditStore: Store | undefined;
  auditFace: string | undefined;
  onWarning: ((options: { message: string; error?: unknown }) => void) | undefined;
}): Promise<GuardService> {
  const { service, o } = options;
  const { withAudit } = await import("./audit-log.js");
  let store = options.auditStore;
  let inner = service;
  if (!store) {
    const { openStore } = await import("./default-store.js");
    const opened = await openStore({ ...(o.store ? { path: o.store } : {}) });
    store = opened;
    inner = { ...service, close: () => service.close().finally(() => opened.close()) };
  }
  const face = options.auditFace ?? "library";
  return withAudit({
    service: inner,
    store,
    face,
    // A command-line face's caller is the user running it.
    defaultCaller: face === "library" || face === "http" ? face : `user:${userInfo().username}`,
    auditSubjects: o.auditSubjects,
    auditMode: o.auditMode,
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
}

/** The memory bank over an opened store (its module loaded only when there is a store). */
async function memoryBankOf(options: {
  store: Store;
  learn: "off" | "successful" | "correct-only";
  warn: (options: { message: string; error?: unknown }) => void;
}): Promise<MemoryBank> {
  const { createMemoryBank } = await import("../memory/memory-bank.js");
  const { warn } = options;
  return createMemoryBank({
    store: options.store,
    learn: options.learn,
    onWriteError: ({ error, policy }) =>
      warn({
        message: `memory: storing a case of policy ${policy} failed (${error instanceof Error ? error.message : String(error)}); the decision stands`,
        error,
      }),
  });
}

/** The user's toolbox functions from their files (the loader and its YAML parser only when any). */
async function toolFunctionsOf(options: { paths: readonly string[] }): Promise<ToolFunction[]> {
  if (options.paths.length === 0) return [];
  const { loadToolFunctions } = await import("../toolbox/load-tool-functions.js");
  return (await Promise.all(options.paths.map((path) => loadToolFunctions({ path })))).flat();
}
