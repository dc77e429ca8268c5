/**
 * Warden's own trajectory suites (not published: a generator is no part of the guard), the registry of
 * what each ST-WebAgentBench eval type means, and the reference replay pipeline used to score them.
 */
export {
  createRuleIndex,
  type ReplayDisagreement,
  type ReplayReport,
  type ReplayResult,
  type ReplayViolation,
  type RuleIndex,
  replaySuite,
  replayTrajectory,
} from "./policy-replay.js";
export {
  type EvalTypeSemantics,
  type JudgeInput,
  type MutateInput,
  type Mutation,
  ST_EVAL_TYPE_SEMANTICS,
  semanticsOf,
} from "./st-webagentbench-eval-types.js";
export {
  judgePolicy,
  judgeTrajectory,
  type OracleViolation,
  type TruthPage,
  type TruthStep,
} from "./st-webagentbench-oracle.js";
export { runStWebAgentBenchSuite, type StSuiteRun, stWebAgentBenchSuite } from "./st-webagentbench-run.js";
export {
  buildStWebAgentBenchSuite,
  ST_SUITE_NAME,
  type StSuite,
  type StSuiteStats,
  type StSuiteTrajectory,
} from "./st-webagentbench-trajectories.js";
