/**
 * The engine contract. Every engine (compiled, guardagent, baseline, shield, auto) answers a check with
 * the same Decision. A deny is a returned Decision; only misuse (invalid arguments) throws.
 */
import type { Decision } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import type { Subject } from "../core/subject.js";

export interface CheckOptions {
  policy: Policy;
  subject: Subject;
  signal?: AbortSignal;
}

export interface Engine {
  readonly name: string;
  check(options: CheckOptions): Promise<Decision>;
  close?(): Promise<void>;
}
