/**
 * The `program-html` detector: evaluates a web-benchmark page check — a locator
 * (`document.querySelector('#x').value`, `...?.textContent || ...`, an XPath, or "" for the whole page)
 * plus `required_contents` (`not_empty`, `exact_match`, `must_include`) — against the HTML the step
 * observed, and answers whether the required contents are there. Without a browser it can only read
 * the markup it is given: no HTML on the step, a locator that needs HTML on a plain-text observation,
 * a benchmark helper function (`func:`), or a page other than the step's — cannot tell (undefined).
 */
import { z } from "zod";
import { urlParts } from "../assign/url-parts.js";
import type { Detector } from "./detector.js";
import { parseDetectorParams, readText } from "./detector-params.js";
import { type HtmlElement, looksLikeHtml, parseHtml } from "./html/html-dom.js";
import { evaluateLocator } from "./html/locator.js";
import { matchesRequiredContents, RequiredContentsSchema } from "./html/required-contents.js";

const ProgramHtmlParamsSchema = z.looseObject({
  locator: z.string(),
  required: RequiredContentsSchema,
  /** "last" (default): the page the step observed; a URL: only a step on that page can tell. */
  url: z.string().default("last"),
});

/** Locators that read only the page's text, so a plain-text observation can answer them. */
const TEXT_ONLY =
  /^document\.body\.(?:innerText|textContent)(?:\.(?:substring|slice)\(\s*\d+\s*(?:,\s*\d+\s*)?\))?(?:\.trim\(\))?$/;

const parsedCache = new Map<string, HtmlElement>();

function parseCached(html: string): HtmlElement {
  let root = parsedCache.get(html);
  if (!root) {
    root = parseHtml({ html });
    // Several predicates read the same observation in a row; keep only a few documents.
    if (parsedCache.size >= 8) parsedCache.delete(parsedCache.keys().next().value as string);
    parsedCache.set(html, root);
  }
  return root;
}

/** Evaluates the check on one observation: true/false, or undefined when it cannot tell. */
export function checkProgramHtml(options: {
  observation: string;
  locator: string;
  required: z.output<typeof RequiredContentsSchema>;
}): boolean | undefined {
  const { observation, locator, required } = options;
  const trimmed = locator.trim();
  let value: string;
  if (looksLikeHtml({ text: observation })) {
    const result = evaluateLocator({ locator: trimmed, html: observation, root: parseCached(observation) });
    if (!result.ok) return undefined;
    value = result.value;
  } else if (trimmed === "") {
    value = observation;
  } else if (TEXT_ONLY.test(trimmed)) {
    // Plain page text stands in for <body>; the same substring/trim applies.
    const asHtml = `<body><pre>${observation.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</pre></body>`;
    const root = parseHtml({ html: asHtml });
    const result = evaluateLocator({
      locator: trimmed.replace("innerText", "textContent"),
      html: asHtml,
      root,
    });
    if (!result.ok) return undefined;
    value = result.value;
  } else {
    return undefined;
  }
  return matchesRequiredContents({ text: value, required });
}

export const programHtmlDetector: Detector = {
  name: "program-html",
  description:
    "true when params.locator, evaluated on the page the step observed (field default: observation), meets params.required (not_empty / exact_match / must_include)",
  detect({ facts, params, field }) {
    const p = parseDetectorParams({ schema: ProgramHtmlParamsSchema, params, detector: "program-html" });
    const observation = readText({ facts, field, fallback: "observation" });
    if (observation === undefined || observation.trim() === "") return undefined;
    if (p.url !== "last") {
      const want = urlParts({ url: p.url }).base;
      if (want === "" || facts.page.base !== want) return undefined;
    }
    return checkProgramHtml({ observation, locator: p.locator, required: p.required });
  },
};
