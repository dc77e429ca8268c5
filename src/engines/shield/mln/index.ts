/** The shield's Markov-logic decision: score difference of μ+ and μ−, marginalising open predicates. */
export {
  decideMln,
  type MlnOptions,
  type MlnProblem,
  type MlnResult,
  type MlnRule,
  type MlnSide,
  type MlnViolation,
  type MlnWorld,
  prepareMln,
  solveMln,
} from "./mln-decision.js";
export { createRandom, hashSeed } from "./seeded-random.js";
