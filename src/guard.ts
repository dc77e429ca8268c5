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
import type { EngineName } from "./runtime/create-engine.js";
import { openGuardService } from "./runtime/open-guard-service.js";

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
  const service = await openGuardService({
    policies: [options.policy],
    ...(options.engine ? { engine: options.engine } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.store ? { store: options.store } : {}),
    failOpen: options.failMode === "open",
  });
  const name = service.listPolicies()[0]!.name;
  return {
    policy: service.getPolicy({ name }),
    check: async (subject) =>
      service.check({
        policy: name,
        subject: parseWith({ schema: SubjectSchema, value: subject, what: "subject", path: "subject" }),
      }),
    close: () => service.close(),
  };
}
