/**
 * Evaluates the page locators web benchmarks write (ST-WebAgentBench's `program_html`) against an HTML
 * observation, without a browser: a tiny reader for the expression shapes they use —
 * `document.querySelector(sel)` / `?.` chains ending in `.value`, `.checked`, `.textContent`,
 * `.innerText`, `.selectedIndex`, `.getAttribute(x)`, string `.substring/.slice/.trim/.toLowerCase`,
 * `document.body.innerText`, `||` fallbacks, string literals — plus the XPath shapes
 * `//tag[contains(., 'text')]/following::tag[n]` and `//tag[@attr='v']`, and the empty locator (the
 * whole page). Anything else is "unsupported" rather than approximated; nothing is ever executed.
 */
import { parseSelector, querySelector, selectedOption } from "./css-select.js";
import {
  descendants,
  documentBody,
  type HtmlElement,
  innerText,
  parseHtml,
  textContent,
} from "./html-dom.js";

export type LocatorResult = { ok: true; value: string } | { ok: false; reason: string };

type JsValue = string | number | boolean | null | undefined | HtmlElement | Array<HtmlElement>;

/** A shape this reader does not evaluate (a plain object: no stack trace to capture on hot paths). */
class Unsupported {
  constructor(readonly message: string) {}
}

/** Every property or method this reader knows; anything else is unsupported, whatever it is read on. */
const KNOWN_MEMBERS = new Set([
  "body",
  "documentElement",
  "querySelector",
  "getAttribute",
  "hasAttribute",
  "value",
  "checked",
  "selected",
  "disabled",
  "textContent",
  "innerText",
  "selectedIndex",
  "id",
  "className",
  "title",
  "href",
  "placeholder",
  "length",
  "substring",
  "slice",
  "trim",
  "toLowerCase",
  "toUpperCase",
  "includes",
  "toString",
]);
/** A JavaScript TypeError (property of null): the benchmark's evaluator then reads "". */
class NullAccess {
  constructor(readonly message: string) {}
}

interface Token {
  kind: "ident" | "string" | "number" | "punct";
  text: string;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === "`") {
      let j = i + 1;
      let out = "";
      while (j < source.length && source[j] !== ch) {
        if (source[j] === "\\" && j + 1 < source.length) {
          out += source[j + 1];
          j += 2;
        } else {
          out += source[j];
          j += 1;
        }
      }
      if (j >= source.length) throw new Unsupported("unterminated string");
      if (ch === "`" && out.includes("${")) throw new Unsupported("template literal with substitutions");
      tokens.push({ kind: "string", text: out });
      i = j + 1;
      continue;
    }
    const num = /^\d+/.exec(source.slice(i));
    if (num) {
      tokens.push({ kind: "number", text: num[0] });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_$][\w$]*/.exec(source.slice(i));
    if (id) {
      tokens.push({ kind: "ident", text: id[0] });
      i += id[0].length;
      continue;
    }
    const punct = ["?.", "||", "(", ")", ",", ".", ";"].find((p) => source.startsWith(p, i));
    if (!punct) throw new Unsupported(`unexpected character '${ch}'`);
    tokens.push({ kind: "punct", text: punct });
    i += punct.length;
  }
  return tokens;
}

function elementValue(e: HtmlElement): string | undefined {
  if (e.tag === "input") return e.attrs.value ?? "";
  if (e.tag === "textarea") return textContent({ node: e });
  if (e.tag === "select") {
    const opt = selectedOption({ select: e });
    return opt ? (opt.attrs.value ?? textContent({ node: opt }).trim()) : "";
  }
  if (e.tag === "option") return e.attrs.value ?? textContent({ node: e }).trim();
  if (e.tag === "button" || e.tag === "output" || e.tag === "li") return e.attrs.value ?? "";
  return undefined;
}

function isElement(v: JsValue): v is HtmlElement {
  return typeof v === "object" && v !== null && !Array.isArray(v) && v.type === "element";
}

class Evaluator {
  private pos = 0;
  /** A property read on null aborts the whole expression in JavaScript; reading goes on to check shape. */
  private failed: NullAccess | null = null;
  constructor(
    private readonly tokens: Token[],
    private readonly root: HtmlElement,
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private take(text?: string): Token {
    const t = this.tokens[this.pos];
    if (!t || (text !== undefined && t.text !== text)) throw new Unsupported(`expected ${text ?? "a token"}`);
    this.pos += 1;
    return t;
  }

  run(): JsValue {
    const value = this.orExpression();
    if (this.peek()?.text === ";") this.take(";");
    if (this.pos !== this.tokens.length) throw new Unsupported(`unexpected '${this.peek()?.text}'`);
    if (this.failed) throw this.failed;
    return value;
  }

  private orExpression(): JsValue {
    let value = this.primary();
    while (this.peek()?.text === "||") {
      this.take("||");
      // JavaScript's `||` keeps the first truthy operand; the right side still has to be read.
      const right = this.primary();
      if (!value) value = right;
    }
    return value;
  }

  private args(): JsValue[] {
    this.take("(");
    const out: JsValue[] = [];
    while (this.peek()?.text !== ")") {
      out.push(this.orExpression());
      if (this.peek()?.text === ",") this.take(",");
      else break;
    }
    this.take(")");
    return out;
  }

  private primary(): JsValue {
    const t = this.peek();
    if (!t) throw new Unsupported("empty expression");
    if (t.text === "(") {
      this.take("(");
      const v = this.orExpression();
      this.take(")");
      return this.chain(v);
    }
    if (t.kind === "string") {
      this.take();
      return this.chain(t.text);
    }
    if (t.kind === "number") {
      this.take();
      return Number(t.text);
    }
    if (t.kind === "ident" && t.text === "document") {
      this.take();
      return this.chain(this.root);
    }
    throw new Unsupported(`unsupported expression '${t.text}'`);
  }

  /** Member accesses and calls after a value; `?.` on null/undefined short-circuits the rest. */
  private chain(start: JsValue): JsValue {
    let value: JsValue = start;
    let shortCircuit = false;
    while (this.peek()?.text === "." || this.peek()?.text === "?.") {
      const optional = this.take().text === "?.";
      const name = this.take().text;
      const call = this.peek()?.text === "(" ? this.args() : null;
      // Checked before evaluating, so that a chain cut short by null still has to be readable.
      if (!KNOWN_MEMBERS.has(name)) throw new Unsupported(`unsupported member '${name}'`);
      if (name === "querySelector" && call && parseSelector({ selector: String(call[0] ?? "") }) === null) {
        throw new Unsupported(`unsupported selector '${String(call[0])}'`);
      }
      if (shortCircuit) continue;
      if (value === null || value === undefined) {
        if (!optional && !this.failed) this.failed = new NullAccess(`cannot read '${name}' of ${value}`);
        shortCircuit = true;
        value = undefined;
        continue;
      }
      value = this.member(value, name, call);
    }
    return value;
  }

  private member(value: JsValue, name: string, call: JsValue[] | null): JsValue {
    if (value === this.root && !call) {
      if (name === "body") return documentBody({ root: this.root });
      if (name === "documentElement")
        return descendants({ root: this.root }).find((e) => e.tag === "html") ?? this.root;
    }
    if (isElement(value)) {
      if (call) {
        if (name === "querySelector") {
          const found = querySelector({ root: value, selector: String(call[0] ?? "") });
          if (found === null) throw new Unsupported(`unsupported selector '${String(call[0])}'`);
          return found ?? null;
        }
        if (name === "getAttribute") return value.attrs[String(call[0] ?? "").toLowerCase()] ?? null;
        if (name === "hasAttribute") return String(call[0] ?? "").toLowerCase() in value.attrs;
        throw new Unsupported(`unsupported method '${name}'`);
      }
      switch (name) {
        case "value":
          return elementValue(value);
        case "checked":
          return value.tag === "input" ? "checked" in value.attrs : undefined;
        case "selected":
          return value.tag === "option" ? "selected" in value.attrs : undefined;
        case "disabled":
          return "disabled" in value.attrs;
        case "textContent":
          return textContent({ node: value });
        case "innerText":
          return innerText({ node: value });
        case "selectedIndex": {
          if (value.tag !== "select") return undefined;
          const opts = descendants({ root: value }).filter((e) => e.tag === "option");
          const chosen = selectedOption({ select: value });
          return chosen ? opts.indexOf(chosen) : -1;
        }
        case "id":
          return value.attrs.id ?? "";
        case "className":
          return value.attrs.class ?? "";
        case "title":
          return value.attrs.title ?? "";
        case "href":
          return value.attrs.href ?? "";
        case "placeholder":
          return value.attrs.placeholder ?? "";
        default:
          throw new Unsupported(`unsupported property '${name}'`);
      }
    }
    if (typeof value === "string") {
      if (name === "length" && !call) return value.length;
      if (!call) throw new Unsupported(`unsupported string property '${name}'`);
      const nums = call.map((c) => (typeof c === "number" ? c : Number(c)));
      switch (name) {
        case "substring": {
          const a = Math.max(0, nums[0] ?? 0);
          const b = call.length > 1 ? Math.max(0, nums[1]!) : value.length;
          return value.substring(Math.min(a, b), Math.max(a, b));
        }
        case "slice":
          return value.slice(nums[0], call.length > 1 ? nums[1] : undefined);
        case "trim":
          return value.trim();
        case "toLowerCase":
          return value.toLowerCase();
        case "toUpperCase":
          return value.toUpperCase();
        case "includes":
          return value.includes(String(call[0] ?? ""));
        default:
          throw new Unsupported(`unsupported string method '${name}'`);
      }
    }
    if (typeof value === "number" || typeof value === "boolean") {
      if (name === "toString" && call) return String(value);
    }
    throw new Unsupported(`unsupported access '${name}'`);
  }
}

function stringify(value: JsValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map((e) => textContent({ node: e })).join("");
  return textContent({ node: value });
}

/** `input_value()` of the element an XPath of a supported shape selects. */
function evaluateXPath(xpath: string, root: HtmlElement): LocatorResult {
  const all = descendants({ root });
  const containsText = (e: HtmlElement, text: string) => textContent({ node: e }).includes(text);
  const head =
    /^\.?\/\/([a-zA-Z*][\w-]*)\[\s*(?:contains\(\s*(\.|text\(\))\s*,\s*(['"])(.*?)\3\s*\)|@([\w:-]+)\s*=\s*(['"])(.*?)\6)\s*\]/.exec(
      xpath,
    );
  if (!head) return { ok: false, reason: `unsupported XPath '${xpath}'` };
  const tag = head[1]!.toLowerCase();
  const matchesHead = (e: HtmlElement): boolean => {
    if (tag !== "*" && e.tag !== tag) return false;
    if (head[4] !== undefined) {
      if (head[2] === "text()") {
        return e.children.some((c) => c.type === "text" && c.text.includes(head[4]!));
      }
      return containsText(e, head[4]);
    }
    return e.attrs[head[5]!.toLowerCase()] === head[7];
  };
  const anchor = all.find(matchesHead);
  const rest = xpath.slice(head[0].length);
  let target: HtmlElement | undefined;
  if (rest === "") target = anchor;
  else {
    const follow = /^\/following::([a-zA-Z*][\w-]*)\[(\d+)\]$/.exec(rest);
    if (!follow) return { ok: false, reason: `unsupported XPath step '${rest}'` };
    if (anchor) {
      const ftag = follow[1]!.toLowerCase();
      const n = Number(follow[2]);
      // following:: = after the anchor in document order and not inside it.
      const inside = new Set(descendants({ root: anchor }));
      const after = all
        .slice(all.indexOf(anchor) + 1)
        .filter((e) => !inside.has(e) && (ftag === "*" || e.tag === ftag));
      target = after[n - 1];
    }
  }
  if (!target) return { ok: true, value: "" };
  // Playwright's input_value() only works on form controls; on anything else it throws -> "".
  return { ok: true, value: elementValue(target) ?? "" };
}

const tokenCache = new Map<string, Token[]>();

/**
 * Evaluates a locator against an HTML document. `{ ok: false }` says why it cannot be evaluated here
 * (unsupported shape, helper functions of the benchmark that need a live site).
 */
export function evaluateLocator(options: {
  locator: string;
  html: string;
  root?: HtmlElement;
}): LocatorResult {
  const locator = options.locator.trim();
  if (locator === "") return { ok: true, value: options.html };
  if (locator.startsWith("func:")) {
    return { ok: false, reason: "benchmark helper functions (func:) query the live site" };
  }
  const root = options.root;
  if (!root) return { ok: false, reason: "no parsed document" };
  if (locator.startsWith("//") || locator.startsWith(".//")) return evaluateXPath(locator, root);
  if (!locator.startsWith("document.") && !locator.startsWith("[...document.")) {
    return {
      ok: false,
      reason: `locator '${locator}' is neither a document.* expression, an XPath nor func: (the benchmark's own evaluator rejects it as an unknown locator)`,
    };
  }
  try {
    let tokens = tokenCache.get(locator);
    if (!tokens) {
      tokens = tokenize(locator);
      if (tokenCache.size > 500) tokenCache.clear();
      tokenCache.set(locator, tokens);
    }
    return { ok: true, value: stringify(new Evaluator(tokens, root).run()) };
  } catch (error) {
    if (error instanceof NullAccess) return { ok: true, value: "" };
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Whether a locator has a shape this module can evaluate (checked on an empty page). */
export function checkLocator(options: { locator: string }): { ok: true } | { ok: false; reason: string } {
  const html = "<html><body></body></html>";
  const result = evaluateLocator({ locator: options.locator, html, root: parseHtml({ html }) });
  return result.ok ? { ok: true } : result;
}
