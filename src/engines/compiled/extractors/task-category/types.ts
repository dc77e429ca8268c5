/** Shapes of the task-category classifier: which attribute rules' action categories a task falls under. */

export type Confidence = "high" | "medium" | "low" | "none";

/**
 * How a category was recognised:
 * - "strong": one of the rule's actions (or a synonym) with one of its objects, e.g. "rent" + "SUV",
 *   "car rental"; a multi-word keyword of the rule; or, for a rule whose action has no object
 *   ("Purchase"), the action itself.
 * - "medium": the rule's object as what the task is about, without the rule's own verb
 *   ("Find flights from Boston to Denver" for "Book a flight").
 * - "weak": only a near miss (a compound like "car seat", a place like "near the hotel", a name, a
 *   quoted title, an excluded phrase, a negated mention, or an ambiguous word with nothing to support it).
 */
export type Strength = "strong" | "medium" | "weak";

export interface CategoryMatch {
  ruleId: string;
  category: string;
  /** 1.0 strong, 0.6 medium, 0.2 weak, times the weight of the term (brands and loose terms < 1). */
  score: number;
  strength: Strength;
  /** What was seen, in words, e.g. `verb "rent" + object "SUV" (~car)`. */
  evidence: string[];
}

export interface ClassifyResult {
  /** Every category that applies (strong or medium), best first; empty = "Other". */
  categories: CategoryMatch[];
  /** Weak signals that were not taken, for the trace. */
  nearMisses: CategoryMatch[];
  /**
   * "high": the best category is strong, or no category word appears at all (a clean "Other");
   * "medium": the best category is medium, or only near misses appear;
   * "low": a mention was negated or looks like a name: the reading is doubtful;
   * "none": no text to classify.
   * The compiled path decides on "high" and "medium" (applying a rule to a task only about its object
   * is the safe reading: it restricts, never permits); on "low" it should ask a model
   * (`classifyWithModel`) or fall back to the model pipeline.
   */
  confidence: Confidence;
  reason: string;
}

export interface CategoryClassifier {
  classify(options: { text: string }): ClassifyResult;
}
