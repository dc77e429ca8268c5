/**
 * The engine contract. Every engine (compiled, guardagent, baseline, shield, auto) answers a check with
 * the same Decision. A deny is a returned Decision; only misuse (invalid arguments) throws.
 */

import type { CheckTrust } from "../core/caller.js";
import type { Decision } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import type { Subject } from "../core/subject.js";

export interface CheckOptions {
  policy: Policy;
  subject: Subject;
  signal?: AbortSignal;
  /** What this check takes on trust from its caller (default: nothing; see core/caller.ts). */
  trust?: CheckTrust;
}

export interface Engine {
  readonly name: string;
  check(options: CheckOptions): Promise<Decision>;
  close?(): Promise<void>;
}
