/**
 * `querySelector` over the small HTML tree: the CSS subset web-benchmark locators use — type, `#id`,
 * `.class`, attribute tests (`[a]`, `=`, `^=`, `$=`, `*=`, `~=`, `|=`, quoted or not), `:checked`,
 * `:disabled`, `:first-child`, `:last-child`, the descendant and child combinators, and selector
 * lists. An unsupported selector is reported as such (null), not guessed at.
 */
import { descendants, type HtmlElement } from "./html-dom.js";

interface AttrTest {
  name: string;
  op: "" | "=" | "^=" | "$=" | "*=" | "~=" | "|=";
  value: string;
  insensitive: boolean;
}

interface Compound {
  tag: string | null;
  ids: string[];
  classes: string[];
  attrs: AttrTest[];
  pseudos: string[];
}

interface Complex {
  /** Compounds left to right; combinators[i] joins compounds[i] and compounds[i + 1]. */
  compounds: Compound[];
  combinators: Array<" " | ">">;
}

const PSEUDOS = new Set(["checked", "disabled", "enabled", "first-child", "last-child", "selected"]);

function parseCompound(text: string, start: number): { compound: Compound; end: number } | null {
  const c: Compound = { tag: null, ids: [], classes: [], attrs: [], pseudos: [] };
  let i = start;
  const ident = /^-?[A-Za-z_\u00a0-\uffff][\w\u00a0-\uffff-]*/;
  const tag = /^(\*|[A-Za-z][\w-]*)/.exec(text.slice(i));
  if (tag) {
    c.tag = tag[1] === "*" ? null : tag[1]!.toLowerCase();
    i += tag[0].length;
  }
  let any = Boolean(tag);
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "#" || ch === ".") {
      const m = ident.exec(text.slice(i + 1));
      if (!m) return null;
      (ch === "#" ? c.ids : c.classes).push(m[0]);
      i += 1 + m[0].length;
    } else if (ch === "[") {
      const m = /^\[\s*([\w:-]+)\s*(?:([~|^$*]?=)\s*(?:"([^"]*)"|'([^']*)'|([^\s\]]+))\s*(i)?\s*)?\]/.exec(
        text.slice(i),
      );
      if (!m) return null;
      c.attrs.push({
        name: m[1]!.toLowerCase(),
        op: (m[2] ?? "") as AttrTest["op"],
        value: m[3] ?? m[4] ?? m[5] ?? "",
        insensitive: m[6] === "i",
      });
      i += m[0].length;
    } else if (ch === ":") {
      const m = /^:([\w-]+)/.exec(text.slice(i));
      if (!m || !PSEUDOS.has(m[1]!)) return null;
      c.pseudos.push(m[1]!);
      i += m[0].length;
    } else break;
    any = true;
  }
  return any ? { compound: c, end: i } : null;
}

/** Parses a selector list; null when it uses anything outside the supported subset. */
export function parseSelector(options: { selector: string }): Complex[] | null {
  const text = options.selector.trim();
  const out: Complex[] = [];
  let i = 0;
  let current: Complex = { compounds: [], combinators: [] };
  let pending: " " | ">" | null = null;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (current.compounds.length > 0 && pending === null) pending = " ";
      i += 1;
      continue;
    }
    if (ch === ">") {
      if (current.compounds.length === 0) return null;
      pending = ">";
      i += 1;
      continue;
    }
    if (ch === ",") {
      if (current.compounds.length === 0) return null;
      out.push(current);
      current = { compounds: [], combinators: [] };
      pending = null;
      i += 1;
      continue;
    }
    const parsed = parseCompound(text, i);
    if (!parsed) return null;
    if (current.compounds.length > 0) current.combinators.push(pending ?? " ");
    current.compounds.push(parsed.compound);
    pending = null;
    i = parsed.end;
  }
  if (current.compounds.length === 0) return null;
  out.push(current);
  return out;
}

/** The option a `<select>` shows: the last one marked selected, else the first enabled one. */
export function selectedOption(options: { select: HtmlElement }): HtmlElement | null {
  const opts = descendants({ root: options.select }).filter((e) => e.tag === "option");
  const marked = opts.filter((o) => "selected" in o.attrs);
  if (marked.length > 0) return marked[marked.length - 1]!;
  return opts.find((o) => !("disabled" in o.attrs)) ?? null;
}

function enclosingSelect(element: HtmlElement): HtmlElement | null {
  for (let p = element.parent; p; p = p.parent) if (p.tag === "select") return p;
  return null;
}

function elementChildren(element: HtmlElement | null): HtmlElement[] {
  return element ? (element.children.filter((c) => c.type === "element") as HtmlElement[]) : [];
}

function attrMatches(element: HtmlElement, test: AttrTest): boolean {
  const raw = element.attrs[test.name];
  if (raw === undefined) return false;
  const actual = test.insensitive ? raw.toLowerCase() : raw;
  const want = test.insensitive ? test.value.toLowerCase() : test.value;
  switch (test.op) {
    case "":
      return true;
    case "=":
      return actual === want;
    case "^=":
      return want !== "" && actual.startsWith(want);
    case "$=":
      return want !== "" && actual.endsWith(want);
    case "*=":
      return want !== "" && actual.includes(want);
    case "~=":
      return actual.split(/\s+/).includes(want);
    case "|=":
      return actual === want || actual.startsWith(`${want}-`);
  }
}

function pseudoMatches(element: HtmlElement, pseudo: string): boolean {
  switch (pseudo) {
    case "checked":
    case "selected":
      if (element.tag === "option") {
        const select = enclosingSelect(element);
        return select ? selectedOption({ select }) === element : "selected" in element.attrs;
      }
      return element.tag === "input" && "checked" in element.attrs;
    case "disabled":
      return "disabled" in element.attrs;
    case "enabled":
      return !("disabled" in element.attrs);
    case "first-child":
      return elementChildren(element.parent)[0] === element;
    case "last-child": {
      const siblings = elementChildren(element.parent);
      return siblings[siblings.length - 1] === element;
    }
    default:
      return false;
  }
}

function compoundMatches(element: HtmlElement, c: Compound): boolean {
  if (c.tag !== null && element.tag !== c.tag) return false;
  for (const id of c.ids) if (element.attrs.id !== id) return false;
  if (c.classes.length > 0) {
    const classes = (element.attrs.class ?? "").split(/\s+/);
    for (const cls of c.classes) if (!classes.includes(cls)) return false;
  }
  for (const a of c.attrs) if (!attrMatches(element, a)) return false;
  for (const p of c.pseudos) if (!pseudoMatches(element, p)) return false;
  return true;
}

function complexMatches(element: HtmlElement, complex: Complex, at: number): boolean {
  if (!compoundMatches(element, complex.compounds[at]!)) return false;
  if (at === 0) return true;
  const combinator = complex.combinators[at - 1];
  if (combinator === ">") {
    const parent = element.parent;
    return parent !== null && parent.tag !== "#document" && complexMatches(parent, complex, at - 1);
  }
  for (let p = element.parent; p && p.tag !== "#document"; p = p.parent) {
    if (complexMatches(p, complex, at - 1)) return true;
  }
  return false;
}

/**
 * Every element matching the selector, in document order; null when the selector is outside the
 * supported subset.
 */
export function querySelectorAll(options: { root: HtmlElement; selector: string }): HtmlElement[] | null {
  const parsed = parseSelector({ selector: options.selector });
  if (!parsed) return null;
  return descendants({ root: options.root }).filter((e) =>
    parsed.some((complex) => complexMatches(e, complex, complex.compounds.length - 1)),
  );
}

/** The first matching element (undefined when none; null when the selector is unsupported). */
export function querySelector(options: {
  root: HtmlElement;
  selector: string;
}): HtmlElement | undefined | null {
  const all = querySelectorAll(options);
  if (all === null) return null;
  return all[0];
}

/**
 * Whether `element` itself matches the selector (null when unsupported). Ancestors are whatever the
 * element's tree holds, so a selector with combinators on a lone element snippet can only fail.
 */
export function elementMatches(options: { element: HtmlElement; selector: string }): boolean | null {
  const parsed = parseSelector({ selector: options.selector });
  if (!parsed) return null;
  return parsed.some((complex) => complexMatches(options.element, complex, complex.compounds.length - 1));
}

/** Whether the selector uses a descendant or child combinator (needs the element's ancestors). */
export function selectorHasCombinator(options: { selector: string }): boolean {
  const parsed = parseSelector({ selector: options.selector });
  return parsed?.some((complex) => complex.compounds.length > 1) ?? false;
}
