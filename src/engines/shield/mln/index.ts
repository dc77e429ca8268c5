/** The shield's Markov-logic decision: score difference of μ+ and μ−, marginalising open predicates. */

export { createRandom, hashSeed } from "../../../util/seeded-random.js";
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
