/**
 * The `element-match` detector: is the element a step acts on the one a selector names? Benchmarks name
 * elements by CSS selector or XPath and resolve them in the live page; offline, Warden tests what the
 * step logged about its element: a selector it already carries (exact match), its outer HTML
 * (`meta.elementHtml`, tested against the CSS selector), or its tag and text for the XPath shapes
 * `//tag[contains(text(), 'X')]`, `//tag[contains(., 'X')]`, `//tag[@attr='v']` and
 * `//label[contains(., 'X')]/following::input[n]` (read as: a form field whose label mentions X). When
 * the step carries too little to decide, it answers undefined rather than guess.
 */
import { z } from "zod";
import type { Detector } from "./detector.js";
import { parseDetectorParams } from "./detector-params.js";
import { elementMatches, selectorHasCombinator } from "./html/css-select.js";
import { descendants, type HtmlElement, parseHtml, textContent } from "./html/html-dom.js";

const ElementMatchParamsSchema = z
  .looseObject({
    selector: z.string().min(1).optional(),
    selectors: z.array(z.string().min(1)).min(1).optional(),
  })
  .refine((p) => p.selector !== undefined || p.selectors !== undefined, {
    message: "give selector or selectors",
  });

function normaliseSelector(s: string): string {
  return s.trim().replace(/\s+/g, " ").replace(/"/g, "'");
}

interface ElementView {
  element: HtmlElement | null;
  tag: string;
  text: string;
  ownText: string;
  label: string;
}

function view(meta: Record<string, unknown>, elementText: string): ElementView {
  const html =
    typeof meta.elementHtml === "string"
      ? meta.elementHtml
      : typeof meta.element_html === "string"
        ? meta.element_html
        : "";
  let element: HtmlElement | null = null;
  if (html.trim() !== "") element = descendants({ root: parseHtml({ html }) })[0] ?? null;
  const tagMeta = typeof meta.elementTag === "string" ? meta.elementTag.toLowerCase() : "";
  const label = typeof meta.label === "string" ? meta.label : elementText;
  return {
    element,
    tag: element?.tag ?? tagMeta,
    text: element ? textContent({ node: element }) : elementText,
    ownText: element ? element.children.map((c) => (c.type === "text" ? c.text : "")).join("") : elementText,
    label,
  };
}

const XPATH_HEAD =
  /^\.?\/\/([a-zA-Z*][\w-]*)\[\s*(?:contains\(\s*(\.|text\(\))\s*,\s*(['"])(.*?)\3\s*\)|@([\w:-]+)\s*=\s*(['"])(.*?)\6)\s*\]/;
const FORM_FIELDS = new Set(["input", "textarea", "select"]);

function matchXPath(xpath: string, v: ElementView): boolean | undefined {
  const head = XPATH_HEAD.exec(xpath);
  if (!head) return undefined;
  const rest = xpath.slice(head[0].length);
  const tag = head[1]!.toLowerCase();
  if (rest !== "") {
    const follow = /^\/following::([a-zA-Z*][\w-]*)\[\d+\]$/.exec(rest);
    if (!follow || tag !== "label" || head[4] === undefined) return undefined;
    const target = follow[1]!.toLowerCase();
    if (v.tag === "" || v.label === "") return undefined;
    if (target !== "*" && v.tag !== target && !(target === "input" && FORM_FIELDS.has(v.tag))) return false;
    return v.label.toLowerCase().includes(head[4].toLowerCase());
  }
  if (v.tag === "") return undefined;
  if (tag !== "*" && v.tag !== tag) return false;
  if (head[4] !== undefined) return (head[2] === "text()" ? v.ownText : v.text).includes(head[4]);
  if (!v.element) return undefined;
  return v.element.attrs[head[5]!.toLowerCase()] === head[7];
}

function matchOne(selector: string, known: string[], v: ElementView): boolean | undefined {
  const want = normaliseSelector(selector);
  if (known.some((k) => normaliseSelector(k) === want)) return true;
  if (want.startsWith("//") || want.startsWith(".//")) return matchXPath(want, v);
  if (!v.element) return undefined;
  const matched = elementMatches({ element: v.element, selector: want });
  if (matched === null) return undefined;
  if (!matched && selectorHasCombinator({ selector: want })) return undefined;
  return matched;
}

export const elementMatchDetector: Detector = {
  name: "element-match",
  description:
    "true when the step's target element is the one params.selector (or any of params.selectors) names, judged from the step's selectors, element HTML, tag and text",
  detect({ facts, params }) {
    const p = parseDetectorParams({ schema: ElementMatchParamsSchema, params, detector: "element-match" });
    const wanted = [...(p.selector ? [p.selector] : []), ...(p.selectors ?? [])];
    const v = view(facts.meta, facts.elementText);
    let unknown = false;
    for (const selector of wanted) {
      const r = matchOne(selector, facts.selectors, v);
      if (r === true) return true;
      if (r === undefined) unknown = true;
    }
    return unknown ? undefined : false;
  },
};
