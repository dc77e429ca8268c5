/** GuardAgent's memory: demonstrations, their files, Levenshtein top-k retrieval (exhaustive and indexed). */

// The content hash lives in the store layer (the stores index it); re-exported here where it always was.
export { demonstrationContentHash } from "../store/content-hash.js";
export * from "./bounded-levenshtein.js";
export * from "./demonstration-file.js";
export * from "./demonstration-input.js";
export * from "./distance-bounds.js";
export * from "./memory.js";
export * from "./memory-bank.js";
export * from "./retrieval.js";
export * from "./retrieval-index.js";
