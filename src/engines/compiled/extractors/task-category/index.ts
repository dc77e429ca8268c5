/** Task text -> the action categories of attribute rules it falls under (lexicon first, model optional). */
export { createCategoryClassifier } from "./classifier.js";
export {
  classifyWithModel,
  type ModelClassification,
  ModelClassificationSchema,
  type ModelClassifyResult,
} from "./classify-with-model.js";
export { lemmatize, nounLemmas, verbLemmas } from "./lemmatize.js";
export {
  buildRuleLexicon,
  type LexiconPattern,
  type LexiconTerm,
  parseDescription,
  type RuleLexicon,
} from "./lexicon.js";
export { type Token, tokenize } from "./tokenize.js";
export type {
  CategoryClassifier,
  CategoryMatch,
  ClassifyResult,
  Confidence,
  Strength,
} from "./types.js";
