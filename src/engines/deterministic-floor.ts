/**
 * The deterministic floor under a model engine (guardagent, baseline): a model never overrules a
 * deterministic deny. Each check also runs the compiled engine (microseconds, no model); when the
 * policy is compiled and every fact the compiled rules need was determined — the compiled engine
 * answered without a failure — and its verdict is deny or ask, that verdict stands whatever the model's
 * program or verdict says. Otherwise (no compiled rules, a fact or a rule outcome undetermined, or a
 * compiled allow) the model decides as it would alone: it may still be stricter than the rules.
 *
 * Both views are kept on the Decision (`views`: the compiled and the model answer, and which one the
 * decision follows) and a trace note says when the floor overruled the model. The model still runs
 * when the floor already denies, so that its view is recorded (and benchmarks see what it would have
 * done); `overrulesModel` lets an engine that learns from its own decisions refuse to learn a case
 * the floor contradicts.
 */

import type { CheckTrust } from "../core/caller.js";
import {
  type Decision,
  type DecisionView,
  type DecisionViews,
  denyDecision,
  type Trace,
} from "../core/decision.js";
import { toWardenError } from "../core/errors.js";
import type { Policy } from "../core/policy.js";
import type { Subject } from "../core/subject.js";
import { createCompiledEngine } from "./compiled/compiled-engine.js";
import type { CheckOptions, Engine } from "./engine.js";

/** The compiled engine's answer, and whether it is determined (no failure: every fact known). */
export interface FloorView {
  decision: Decision | undefined;
  determined: boolean;
  /** Why the compiled view is not determined, in words. */
  why?: string;
}

function viewOf(decision: Decision): DecisionView {
  return {
    engine: decision.engine,
    allowed: decision.allowed,
    label: decision.label,
    verdict: decision.verdict,
    violations: decision.violations,
    explanation: decision.explanation,
    ...(decision.failure ? { failure: decision.failure } : {}),
  };
}

/** Runs the compiled rules; never throws (a throw is an undetermined view, and the model decides). */
async function compiledView(options: { compiled: Engine } & CheckOptions): Promise<FloorView> {
  const { compiled, ...check } = options;
  try {
    const decision = await compiled.check(check);
    if (decision.failure) return { decision, determined: false, why: decision.failure.message };
    return { decision, determined: true };
  } catch (error) {
    const e = toWardenError({ error, code: "INTERNAL", message: "the compiled rules could not run" });
    return { decision: undefined, determined: false, why: `${e.code}: ${e.message}` };
  }
}

/** Whether a determined compiled view denies (deny or ask): then it is the floor. */
function floorDenies(view: FloorView): view is FloorView & { decision: Decision } {
  return view.determined && view.decision !== undefined && view.decision.verdict !== "allow";
}

function viewsOf(view: FloorView, model: Decision, decidedBy: DecisionViews["decidedBy"]): DecisionViews {
  return {
    ...(view.decision ? { compiled: { ...viewOf(view.decision), determined: view.determined } } : {}),
    model: viewOf(model),
    decidedBy,
  };
}

/** The decision once both views are known (exported for tests and for engines that combine views). */
export function combineViews(options: { compiled: FloorView; model: Decision }): Decision {
  const { compiled: view, model } = options;
  const notes = [...(model.trace?.notes ?? [])];
  if (floorDenies(view)) {
    const floor = view.decision;
    const disagreed = model.verdict === "allow";
    notes.push(
      disagreed
        ? `the compiled rules ${floor.verdict} with every fact determined; the model's allow does not overrule them`
        : `the compiled rules ${floor.verdict} with every fact determined; the model agrees (${model.verdict})`,
    );
    const trace: Trace = {
      ...(model.trace ?? { attempts: [] }),
      ...(floor.trace?.facts ? { facts: floor.trace.facts } : {}),
      notes,
    };
    const decision = denyDecision({
      engine: model.engine,
      ...((model.policy ?? floor.policy) ? { policy: model.policy ?? floor.policy } : {}),
      violations: floor.violations,
      verdict: floor.verdict === "ask" ? "ask" : "deny",
      explanation: `${floor.explanation}${disagreed ? " (the compiled rules decide: the model's allow was overruled)" : ""}`,
      cost: { ...model.cost, ms: model.cost.ms + floor.cost.ms },
      trace,
    });
    return { ...decision, views: viewsOf(view, model, "compiled") };
  }
  if (view.decision?.failure?.code === "UNSUPPORTED")
    notes.push("the policy has no compiled rules: the model decides");
  else if (view.decision && !view.determined)
    notes.push(`the compiled rules could not decide (${view.why ?? "undetermined"}): the model decides`);
  else if (!view.decision)
    notes.push(`the compiled rules could not run (${view.why ?? "unknown"}): the model decides`);
  const trace: Trace = { ...(model.trace ?? { attempts: [] }), notes };
  return { ...model, trace, views: viewsOf(view, model, "model") };
}

/**
 * Whether the compiled rules, with every fact determined, deny (or ask for) a check that `decision`
 * allows — i.e. whether the floor overrules it. For engines that learn from their own decisions.
 */
export async function overrulesModel(options: {
  compiled?: Engine;
  policy: Policy;
  subject: Subject;
  decision: Decision;
  /** What the check's caller was trusted with, so the floor reads the facts the check read. */
  trust?: CheckTrust | undefined;
}): Promise<boolean> {
  if (options.decision.verdict !== "allow") return false;
  const view = await compiledView({
    compiled: options.compiled ?? createCompiledEngine({ failMode: "closed" }),
    policy: options.policy,
    subject: options.subject,
    ...(options.trust ? { trust: options.trust } : {}),
  });
  return floorDenies(view);
}

/**
 * The model engine with the deterministic floor under it. `compiled` defaults to a fail-closed
 * compiled engine (its failures are how an undetermined view shows; fail-open would hide them).
 */
export function withDeterministicFloor(options: { engine: Engine; compiled?: Engine }): Engine {
  const { engine } = options;
  const compiled = options.compiled ?? createCompiledEngine({ failMode: "closed" });
  return {
    name: engine.name,
    async check(check: CheckOptions): Promise<Decision> {
      const view = await compiledView({ compiled, ...check });
      const model = await engine.check(check);
      return combineViews({ compiled: view, model });
    },
    ...(engine.close ? { close: () => engine.close!() } : {}),
  };
}
