/**
 * Facts the compiled engine reads from a SeeAct-style web agent's output: the ELEMENT it picked (a
 * multiple-choice letter or a description), the ACTION and the VALUE, with how sure the parse is.
 */

/**
 * How far a caller can rely on extracted facts: "high" = unambiguous, "medium" = usable but something
 * was missing or unresolved (see `reason`), "low" = a guess, "none" = nothing found.
 */
export type Confidence = "high" | "medium" | "low" | "none";

/** One option of SeeAct's multiple-choice question, e.g. `B. <button id=1 button> Save </button>`. */
export interface SeeActChoice {
  /** Option name: "A".."Z", then "AA", "AB", ... */
  letter: string;
  /** The option as listed (usually a compact HTML element). */
  content: string;
  /** What a user would read on the element: its inner text, or its attribute words when it has none. */
  text: string;
  /** True for SeeAct's last option, "None of the other options match the correct element". */
  isNoneOption: boolean;
}

export interface SeeActAction {
  /** The choice letter ("B") or, for agents that describe the element, the description. Null if absent. */
  element: string | null;
  /** The listed choice for a letter, e.g. `<button id=1 button> Save </button>`; null when unresolved. */
  elementChoice: string | null;
  /** Visible text of the element ("Save"), or the description itself when ELEMENT is not a letter. */
  elementText: string | null;
  /** Upper-case action: CLICK, TYPE, SELECT, PRESS ENTER, HOVER, ...; null if absent. */
  action: string | null;
  /** Typed or selected value; null for "None" or when absent. */
  value: string | null;
  confidence: Confidence;
  /** Why the confidence is not "high", or what was assumed. */
  reason?: string;
}
