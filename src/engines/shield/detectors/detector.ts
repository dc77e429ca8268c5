/**
 * The Detect operation of the shield: a named, deterministic check over one step's facts that assigns
 * a truth value to a predicate (PII in what was typed, a secret in a message, a URL outside the allowed
 * sites, an error shown on the page...). `undefined` means "cannot tell from this step" (no page HTML,
 * no URL): the predicate then stays unassigned and the shield marginalises it instead of guessing.
 */
import type { StepFacts } from "../assign/step-facts.js";

export interface DetectOptions {
  /** The facts of the step being assigned. */
  facts: StepFacts;
  /** The binding's detector parameters (validated by the detector). */
  params: Record<string, unknown>;
  /** The binding's field: a dot path into the facts (each detector has its own default). */
  field: string | undefined;
}

export interface Detector {
  readonly name: string;
  /** One sentence: what a `true` answer means, for policy authors and prompts. */
  readonly description: string;
  detect(options: DetectOptions): boolean | undefined;
}
