/**
 * The detector registry: detectors by name, the shipped ones by default. Users register their own
 * (same interface) and a policy binding names one with `{ kind: "detector", detector: "<name>" }`.
 */
import { WardenError } from "../../../core/errors.js";
import type { Detector } from "./detector.js";
import { elementMatchDetector } from "./element-match.js";
import { errorPopupDetector } from "./error-popup.js";
import { fuzzyTextDetector } from "./fuzzy-text.js";
import { piiDetector } from "./pii.js";
import { programHtmlDetector } from "./program-html.js";
import { secretDetector } from "./secret.js";
import { urlScopeDetector } from "./url-scope.js";

export interface DetectorRegistry {
  register(options: { detector: Detector; replace?: boolean }): void;
  get(options: { name: string }): Detector | undefined;
  names(): string[];
}

/** The detectors Warden ships: pii, secret, url-scope, error-popup, program-html, fuzzy-text, element-match. */
export function builtinDetectors(): Detector[] {
  return [
    piiDetector,
    secretDetector,
    urlScopeDetector,
    errorPopupDetector,
    programHtmlDetector,
    fuzzyTextDetector,
    elementMatchDetector,
  ];
}

/**
 * Creates a registry holding `detectors` (default: the built-in ones). Registering a name twice is an
 * error unless `replace` is set, so that a typo cannot silently shadow a shipped detector.
 */
export function createDetectorRegistry(options: { detectors?: Detector[] } = {}): DetectorRegistry {
  const byName = new Map<string, Detector>();
  const register = (opts: { detector: Detector; replace?: boolean }) => {
    const { detector } = opts;
    if (!detector || typeof detector.name !== "string" || detector.name.trim() === "") {
      throw new WardenError({ code: "INVALID_INPUT", message: "detector.name must be a non-empty string" });
    }
    if (typeof detector.detect !== "function") {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `detector.detect of '${detector.name}' must be a function`,
        details: { field: "detector.detect" },
      });
    }
    if (byName.has(detector.name) && !opts.replace) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `a detector named '${detector.name}' is already registered (pass replace: true to override it)`,
        details: { field: "detector.name" },
      });
    }
    byName.set(detector.name, detector);
  };
  for (const detector of options.detectors ?? builtinDetectors()) register({ detector });
  return {
    register,
    get: (opts) => byName.get(opts.name),
    names: () => [...byName.keys()].sort(),
  };
}
