/**
 * A small, forgiving HTML reader for page observations: builds an element tree (tags, attributes,
 * text) good enough to answer the form-state questions web policies ask (`#id.value`, `.checked`, the
 * selected option, an element's text, the page's visible text). It is not a browser: no scripts run,
 * no CSS applies, and malformed markup is repaired by simple rules (void elements, implied end tags of
 * p/li/option/tr/td, unknown end tags ignored).
 */
import { ownTable } from "../../../../util/own-table.js";

export interface HtmlText {
  type: "text";
  text: string;
  parent: HtmlElement | null;
}

export interface HtmlElement {
  type: "element";
  /** Lower-case tag name; the document root is "#document". */
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
  parent: HtmlElement | null;
}

export type HtmlNode = HtmlElement | HtmlText;

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
const RAW_TEXT = new Set(["script", "style", "textarea", "title"]);
/** Opening one of these closes an open element of the listed kinds (HTML's implied end tags). */
const IMPLIED_CLOSE: Readonly<Record<string, readonly string[]>> = ownTable({
  p: ["p"],
  li: ["li"],
  option: ["option"],
  optgroup: ["option", "optgroup"],
  tr: ["tr", "td", "th"],
  td: ["td", "th"],
  th: ["td", "th"],
  dt: ["dt", "dd"],
  dd: ["dt", "dd"],
});

const NAMED_ENTITIES: Readonly<Record<string, string>> = ownTable({
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "\u00a9",
  reg: "\u00ae",
  hellip: "\u2026",
  mdash: "\u2014",
  ndash: "\u2013",
  laquo: "\u00ab",
  raquo: "\u00bb",
});

export function decodeEntities(options: { text: string }): string {
  return options.text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code =
        body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function parseAttrs(text: string): Record<string, string> {
  // No prototype: a page names the attributes, and `constructor` or `__proto__` must be attributes like any
  // other (kept when written, absent otherwise), not Object.prototype's members.
  const attrs = Object.create(null) as Record<string, string>;
  for (const m of text.matchAll(ATTR)) {
    const name = m[1]!.toLowerCase();
    if (name in attrs) continue;
    attrs[name] = decodeEntities({ text: m[2] ?? m[3] ?? m[4] ?? "" });
  }
  return attrs;
}

/** Parses HTML into a tree rooted at a "#document" element. Never throws. */
/** Deepest element nesting kept (Chrome's HTML parser stops nesting at 512 as well). */
const MAX_DEPTH = 512;

export function parseHtml(options: { html: string }): HtmlElement {
  const html = options.html;
  const root: HtmlElement = { type: "element", tag: "#document", attrs: {}, children: [], parent: null };
  const stack: HtmlElement[] = [root];
  const top = (): HtmlElement => stack[stack.length - 1]!;
  const addText = (text: string) => {
    if (text === "") return;
    top().children.push({ type: "text", text: decodeEntities({ text }), parent: top() });
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      addText(html.slice(i));
      break;
    }
    addText(html.slice(i, lt));
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html[lt + 1] === "!" || html[lt + 1] === "?") {
      const end = html.indexOf(">", lt);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    const close = /^<\/\s*([a-zA-Z][\w:-]*)\s*>/.exec(html.slice(lt, lt + 200));
    if (close) {
      const tag = close[1]!.toLowerCase();
      let at = stack.length - 1;
      while (at > 0 && stack[at]!.tag !== tag) at -= 1;
      if (at > 0) stack.length = at;
      i = lt + close[0].length;
      continue;
    }
    const open = /^<([a-zA-Z][\w:-]*)/.exec(html.slice(lt, lt + 100));
    if (!open) {
      addText("<");
      i = lt + 1;
      continue;
    }
    // Find the end of the tag, skipping '>' inside quoted attribute values.
    let j = lt + open[0].length;
    let quote: string | null = null;
    while (j < html.length) {
      const ch = html[j]!;
      if (quote) {
        if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === ">") break;
      j += 1;
    }
    const tag = open[1]!.toLowerCase();
    const inner = html.slice(lt + open[0].length, j);
    const selfClosing = inner.trimEnd().endsWith("/");
    const implied = IMPLIED_CLOSE[tag];
    if (implied) {
      // Close an implied element only within the nearest list/table/select container.
      for (let k = stack.length - 1; k > 0; k -= 1) {
        const t = stack[k]!.tag;
        if (implied.includes(t)) {
          stack.length = k;
          break;
        }
        if (["ul", "ol", "table", "tbody", "thead", "select", "dl", "div", "form", "body"].includes(t)) break;
      }
    }
    const element: HtmlElement = {
      type: "element",
      tag,
      attrs: parseAttrs(selfClosing ? inner.replace(/\/\s*$/, "") : inner),
      children: [],
      parent: top(),
    };
    top().children.push(element);
    i = j + 1;
    if (VOID.has(tag) || selfClosing) continue;
    if (RAW_TEXT.has(tag)) {
      const endRe = new RegExp(`</\\s*${tag}\\s*>`, "i");
      const rest = html.slice(i);
      const m = endRe.exec(rest);
      const raw = m ? rest.slice(0, m.index) : rest;
      if (raw !== "") {
        element.children.push({
          type: "text",
          text: tag === "textarea" || tag === "title" ? decodeEntities({ text: raw }) : raw,
          parent: element,
        });
      }
      i = m ? i + m.index + m[0].length : html.length;
      continue;
    }
    // Like Chrome's parser, elements past MAX_DEPTH become siblings rather than children, so the tree
    // (and every walk and every close tag's search of the open elements) stays bounded.
    if (stack.length < MAX_DEPTH) stack.push(element);
  }
  return root;
}

/** Every element under `root` in document order (root excluded). */
export function descendants(options: { root: HtmlElement }): HtmlElement[] {
  const out: HtmlElement[] = [];
  const stack: HtmlNode[] = [...options.root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== "element") continue;
    out.push(node);
    for (let k = node.children.length - 1; k >= 0; k -= 1) stack.push(node.children[k]!);
  }
  return out;
}

/** DOM textContent: every descendant text, scripts included, unchanged. */
export function textContent(options: { node: HtmlNode }): string {
  // An explicit stack: a page may nest elements 100 000 deep, past what recursion survives.
  const parts: string[] = [];
  const stack: HtmlNode[] = [options.node];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "text") parts.push(node.text);
    else for (let k = node.children.length - 1; k >= 0; k -= 1) stack.push(node.children[k]!);
  }
  return parts.join("");
}

const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "option",
  "p",
  "section",
  "table",
  "tr",
  "ul",
]);
const HIDDEN = new Set(["script", "style", "template", "noscript", "head", "title", "meta", "link"]);

/**
 * An approximation of innerText: visible text with whitespace collapsed, hidden content (scripts,
 * styles, `hidden` elements) left out, and line breaks around block elements.
 */
export function innerText(options: { node: HtmlNode }): string {
  const parts: string[] = [];
  // An explicit stack (deep pages); a string on it is text to emit after an element's children.
  const stack: (HtmlNode | string)[] = [options.node];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === "string") {
      parts.push(node);
      continue;
    }
    if (node.type === "text") {
      parts.push(node.text.replace(/\s+/g, " "));
      continue;
    }
    if (HIDDEN.has(node.tag) || "hidden" in node.attrs || node.attrs.type === "hidden") continue;
    const block = BLOCK.has(node.tag);
    if (block) parts.push("\n");
    const after = `${block ? "\n" : ""}${node.tag === "td" || node.tag === "th" ? "\t" : ""}`;
    if (after !== "") stack.push(after);
    for (let k = node.children.length - 1; k >= 0; k -= 1) stack.push(node.children[k]!);
  }
  return parts
    .join("")
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

/** The `<body>` element, or the document itself when the markup has none. */
export function documentBody(options: { root: HtmlElement }): HtmlElement {
  return descendants({ root: options.root }).find((e) => e.tag === "body") ?? options.root;
}

/** Whether a string is markup rather than plain page text. */
export function looksLikeHtml(options: { text: string }): boolean {
  return /<\/?[a-zA-Z][\w:-]*(\s[^<>]*)?\/?>/.test(options.text);
}
