/** Warden's own trajectory suites and the reference replay pipeline used to score them. */
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
  judgePolicy,
  judgeTrajectory,
  type OracleViolation,
  type TruthPage,
  type TruthStep,
} from "./st-webagentbench-oracle.js";
export { runStWebAgentBenchSuite, type StSuiteRun } from "./st-webagentbench-run.js";
export {
  buildStWebAgentBenchSuite,
  ST_SUITE_NAME,
  type StSuite,
  type StSuiteStats,
  type StSuiteTrajectory,
} from "./st-webagentbench-trajectories.js";
