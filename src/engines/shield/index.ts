/**
 * The ShieldAgent engine family: LTLf (ltl/), predicate assignment (assign/), detectors (detectors/),
 * policy importers (import/), action-based rule circuits (circuits/), the Markov-logic decision
 * (mln/), the step-by-step runtime with sessions and memory (runtime/), ASPM building with a model
 * (aspm/) and rule-weight training (train/).
 */
export * from "./aspm/index.js";
export * from "./assign/index.js";
export * from "./circuits/index.js";
export * from "./detectors/index.js";
export * from "./import/index.js";
export * from "./ltl/index.js";
export * from "./mln/index.js";
export * from "./runtime/index.js";
export * from "./train/index.js";
