/**
 * The `error-popup` detector: does the page the step saw (observation text or HTML) show an error —
 * an HTTP error page, a failed-request banner, an access-denied notice, a validation error? Markup is
 * reduced to visible text first so that CSS class names or scripts mentioning "error" do not count.
 * Bare numbers ("404 results") do not count either; a code must come with an error word.
 */
import { z } from "zod";
import type { Detector } from "./detector.js";
import { parseDetectorParams, readText } from "./detector-params.js";
import { innerText, looksLikeHtml, parseHtml } from "./html/html-dom.js";

const PHRASES = [
  "page not found",
  "access denied",
  "permission denied",
  "not authorized to",
  "access forbidden",
  "internal server error",
  "server error",
  "bad gateway",
  "service unavailable",
  "gateway timeout",
  "something went wrong",
  "an error occurred",
  "an error has occurred",
  "error occurred",
  "error has occurred",
  "unexpected error",
  "request failed",
  "failed to save",
  "failed to load",
  "could not be saved",
  "could not be completed",
  "unable to complete",
  "you don't have permission",
  "you do not have permission",
  "this page is not available",
  "this page isn't available",
  "under maintenance",
  "temporarily unavailable",
  "session expired",
  "please try again later",
  "validation failed",
];
// No two `\s*` may be adjacent (around an optional part) and no `\s*` may run over the newline a
// pattern starts at: on a page of white space either makes the match quadratic. The languages are those
// of the plain spellings (`\s*[-:]?\s*`, `(?:^|\n)\s*`).
const CODED =
  /\b(?:4\d\d|5\d\d)\s*(?:[-:\u2013]\s*)?(?:error|not found|forbidden|unauthorized|internal server error|service unavailable|bad gateway|gateway time-?out)\b|\b(?:error|http)\s*(?:code\s*)?(?::\s*)?(?:4\d\d|5\d\d)\b/i;
const LABELLED = /(?:^|\n)[^\S\n]*(?:error|fatal error|warning: error)\s*[:!-]/i;

/** Visible text of an observation (HTML reduced to innerText; plain text unchanged). */
export function visibleText(options: { observation: string }): string {
  const { observation } = options;
  return looksLikeHtml({ text: observation })
    ? innerText({ node: parseHtml({ html: observation }) })
    : observation;
}

/** The error phrase the text shows, or null. */
export function findErrorIndicator(options: { text: string; extra?: readonly string[] }): string | null {
  const lower = options.text.toLowerCase();
  for (const phrase of [...PHRASES, ...(options.extra ?? []).map((e) => e.toLowerCase())]) {
    if (phrase !== "" && lower.includes(phrase)) return phrase;
  }
  const coded = CODED.exec(options.text);
  if (coded) return coded[0];
  const labelled = LABELLED.exec(options.text);
  return labelled ? labelled[0].trim() : null;
}

const ErrorPopupParamsSchema = z.looseObject({
  /** More phrases that mean "error" on this site. */
  extra: z.array(z.string().min(1)).optional(),
});

export const errorPopupDetector: Detector = {
  name: "error-popup",
  description:
    "true when the page the step saw (field default: observation) shows an error message or error page",
  detect({ facts, params, field }) {
    const p = parseDetectorParams({ schema: ErrorPopupParamsSchema, params, detector: "error-popup" });
    const observation = readText({ facts, field, fallback: "observation" });
    if (observation === undefined) return undefined;
    return findErrorIndicator({ text: visibleText({ observation }), extra: p.extra }) !== null;
  },
};
