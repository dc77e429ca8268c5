/** ASPM building with a model: chunking, policy and rule extraction, refinement, circuits. */
export type { AspmLogEntry, AspmLogStep } from "./aspm-draft.js";
export {
  type AspmReport,
  type BuildAspmResult,
  buildAspm,
  summarizeAspmLog,
} from "./build-aspm.js";
export { chunkDocuments, type DocumentChunk, type PolicyDocument } from "./chunk-documents.js";
export {
  predicateSimilarity,
  predicateVagueness,
  ruleVagueness,
  type SimilarityIndex,
} from "./predicate-similarity.js";
export { similarGroups } from "./prune-redundancy.js";
