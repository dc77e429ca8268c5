/** Action-based rule circuits: spectral clustering of state predicates and one circuit per action. */
export {
  buildCircuits,
  type ClusterOptions,
  clusterStatePredicates,
  type StatePredicateClusters,
} from "./build-circuits.js";
export { parseRule, ruleAtoms } from "./rule-atoms.js";
export { type SpectralClusteringResult, spectralClustering } from "./spectral-clustering.js";
export {
  normaliseText,
  type TrigramVector,
  trigramCosine,
  trigramVector,
  vectorCosine,
} from "./trigram-similarity.js";
