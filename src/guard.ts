/**
 * The shortest way to use Warden as a library: a guard for one policy, with the default engine (compiled
 * when it can decide, the model pipeline when a model is given and it cannot), that answers Decisions.
 *
 *   const guard = await createGuard({ policy: "mcp-tools" });
 *   const decision = await guard.check({ input: "Clean up old repos", output: JSON.stringify(toolCall) });
 *   if (!decision.allowed) ...
 */
import type { Decision } from "./core/decision.js";
import type { Policy } from "./core/policy.js";
import { type SubjectInput, SubjectSchema } from "./core/subject.js";
import { parseWith } from "./core/validate.js";
import { createMemoryBank } from "./memory/memory-bank.js";
import type { EngineName } from "./runtime/create-engine.js";
import { createEngine } from "./runtime/create-engine.js";
import { openStore } from "./runtime/default-store.js";
import { modelFromOptions } from "./runtime/model-options.js";
import { loadPolicyWithSeeds } from "./runtime/policy-context.js";

export interface GuardOptions {
  /** A bundled policy name, a policy file or directory. */
  policy: string;
  engine?: EngineName;
  /** "provider:model-id", enabling the model pipeline (e.g. "openai:gpt-4o"). */
  model?: string;
  baseUrl?: string;
  /** Memory database for the model engines (default $WARDEN_STORE or ~/.local/state/warden/warden.db). */
  store?: string;
  failMode?: "closed" | "open";
}

export interface Guard {
  readonly policy: Policy;
  check(subject: SubjectInput): Promise<Decision>;
  close(): Promise<void>;
}

export async function createGuard(options: GuardOptions): Promise<Guard> {
  const model = modelFromOptions({
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  });
  const engineName = options.engine ?? "auto";
  const needsMemory = Boolean(model) && engineName !== "compiled" && engineName !== "shield";
  const store = needsMemory ? await openStore(options.store ? { path: options.store } : {}) : undefined;
  const memory = store ? createMemoryBank({ store }) : undefined;
  const loaded = await loadPolicyWithSeeds({ ref: options.policy, ...(memory ? { memory } : {}) });
  const handle = await createEngine({
    engine: engineName,
    ...(model ? { model } : {}),
    ...(memory ? { memory } : {}),
    ...(options.failMode ? { failMode: options.failMode } : {}),
  });
  return {
    policy: loaded.policy,
    check: (subject) =>
      handle.engine.check({
        policy: loaded.policy,
        subject: parseWith({ schema: SubjectSchema, value: subject, what: "subject", path: "subject" }),
      }),
    async close() {
      await handle.close();
      await store?.close();
    },
  };
}
