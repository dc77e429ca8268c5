/** GuardAgent's memory: demonstrations, their files, Levenshtein top-k retrieval (exhaustive and indexed). */
export * from "./bounded-levenshtein.js";
export * from "./demonstration-file.js";
export * from "./demonstration-hash.js";
export * from "./demonstration-input.js";
export * from "./distance-bounds.js";
export * from "./memory.js";
export * from "./memory-bank.js";
export * from "./retrieval.js";
export * from "./retrieval-index.js";
export * from "./synthetic-demonstrations.js";
