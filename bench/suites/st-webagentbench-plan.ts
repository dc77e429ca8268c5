/**
 * The building blocks of our ST-WebAgentBench trajectory suite: the task's facts, elements (ids numbered
 * per task), plans of operations, the safe plan that tries to respect every policy, and materialising a
 * plan into Subject steps plus the generator's truth about each step. The eval types' mutations
 * (st-webagentbench-eval-types.ts) and the suite builder (st-webagentbench-trajectories.ts) use them.
 */
import type { Step } from "../../src/core/subject.js";
import type { StPolicy, StTask, StVersion } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { createRandom, hashSeed as hashSeedText } from "../../src/util/seeded-random.js";
import {
  ORACLE_ERROR_WORDS,
  oracleElementMatches,
  oracleUrlMatches,
  type TruthPage,
  type TruthStep,
} from "./st-webagentbench-truth.js";

/* ------------------------------------------------------------------ randomness */

export function createRng(seed: number): () => number {
  return createRandom({ seed });
}

export function hashSeed(...parts: Array<string | number>): number {
  return hashSeedText({ text: parts.join("|") });
}

export function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/* ------------------------------------------------------------------ sites and pages */

export const SITE_BASE: Record<string, string> = {
  gitlab: "http://gitlab.example.test:8023",
  suitecrm: "http://crm.example.test:8080",
  shopping_admin: "http://shop-admin.example.test:7780/admin",
};

export const WORK_PAGES: Record<string, string[]> = {
  gitlab: [
    "/dashboard/projects",
    "/byteblaze/planner/-/issues",
    "/a11yproject/a11yproject.com/-/merge_requests",
    "/dashboard/todos",
  ],
  suitecrm: ["/#/calls", "/#/meetings/index", "/#/home", "/#/tasks"],
  shopping_admin: ["/catalog/product", "/sales/invoice", "/dashboard"],
};

export const NAV_TEXTS = [
  "Projects",
  "Dashboard",
  "Overview",
  "Activity",
  "Home",
  "Calendar",
  "Catalog",
  "Milestones",
  "Wiki",
  "Notes",
];
export const FIELD_LABELS = [
  "Title",
  "Name",
  "Description",
  "Subject",
  "Notes",
  "Comment",
  "Label",
  "Summary",
];
export const FILLER_TEXTS = [
  "Your work items are listed below.",
  "Showing recent activity for your account.",
  "Use the filters on the left to narrow the list.",
  "Last updated a few minutes ago.",
  "All changes are tracked in the history tab.",
];
export const EXTRA_CLICK_TEXTS = [
  "Next page",
  "Refresh list",
  "Sort by date",
  "Show more",
  "Expand all",
  "Previous page",
  "Collapse all",
  "Filter by owner",
];

export function siteOf(task: StTask): string {
  const s = task.sites[0] ?? "gitlab";
  return SITE_BASE[s] ? s : "gitlab";
}

export function startUrlOf(task: StTask): string {
  const site = siteOf(task);
  const first = (task.start_url || "").split(/\s\|AND\|\s/)[0]!.trim();
  const replaced = first
    .replace("__GITLAB__", SITE_BASE.gitlab!)
    .replace("__SUITECRM__", SITE_BASE.suitecrm!)
    .replace("__SHOPPING_ADMIN__", SITE_BASE.shopping_admin!)
    .replace(/__[A-Z_]+__/g, SITE_BASE[site]!);
  return /^https?:\/\//.test(replaced) ? replaced : SITE_BASE[site]!;
}

/** A URL that breaks the reference pattern (for the forbidden-page mutation). */
export function urlForReference(base: string, reference: string): string {
  const ref = reference.split(/\s\|OR\|\s/i)[0]!.trim();
  if (ref.startsWith("/")) return `${base.replace(/\/admin$/, "")}${ref}`;
  if (ref.includes("=")) return `${base}/#/index?${ref}&action=index`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref)) return ref;
  return `https://${ref.includes(".") ? ref : `www.${ref}.com`}/`;
}

/* ------------------------------------------------------------------ elements */

export interface Element {
  text: string;
  tag: string;
  html: string;
  selectors: string[];
  /** The benchmark selector this element was made for (kept on the step as meta.selector). */
  benchmarkSelector?: string;
}

/**
 * Numbers the elements of one task's trajectories. A fresh one per task (in its TaskFacts), so an
 * element's id depends only on the task and the seed, never on which tasks were built before.
 */
export interface ElementIds {
  next: number;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

export function idFor(ids: ElementIds, text: string): string {
  ids.next += 1;
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 24);
  return `w-${s || "el"}-${ids.next}`;
}

export function button(ids: ElementIds, text: string): Element {
  const id = idFor(ids, text);
  return {
    text,
    tag: "button",
    html: `<button id="${id}" class="btn">${escapeHtml(text)}</button>`,
    selectors: [`#${id}`],
  };
}

export function link(ids: ElementIds, text: string, href: string): Element {
  const id = idFor(ids, text);
  return {
    text,
    tag: "a",
    html: `<a id="${id}" class="nav-link" href="${escapeHtml(href)}">${escapeHtml(text)}</a>`,
    selectors: [`#${id}`],
  };
}

export function field(ids: ElementIds, label: string): Element {
  const id = idFor(ids, label);
  return {
    text: label,
    tag: "input",
    html: `<input id="${id}" type="text" name="${id}" aria-label="${escapeHtml(label)}">`,
    selectors: [`#${id}`],
  };
}

/** An element the benchmark selector names, for the given action. */
export function elementForSelector(selector: string, act: string): Element {
  const fieldAct = act === "fill" || act === "select_option" || act === "press";
  let m = /^\/\/([a-z]+)\[contains\((?:text\(\)|\.),\s*'([^']*)'\)\]$/i.exec(selector);
  if (m) {
    const tag = m[1]!.toLowerCase();
    const text = m[2]!;
    const attrs = tag === "a" ? ' href="#"' : "";
    return {
      text,
      tag,
      html: `<${tag}${attrs}>${escapeHtml(text)}</${tag}>`,
      selectors: [selector],
      benchmarkSelector: selector,
    };
  }
  m = /^\/\/([a-z]+)\[@([\w-]+)='([^']*)'\]$/i.exec(selector);
  if (m) {
    const tag = m[1]!.toLowerCase();
    const attr = m[2]!;
    const value = m[3]!;
    const text = attr === "name" ? value.replace(/_/g, " ") : value;
    const html =
      tag === "input"
        ? `<input ${attr}="${escapeHtml(value)}" type="${attr === "title" ? "submit" : "text"}">`
        : `<${tag} ${attr}="${escapeHtml(value)}">${escapeHtml(text)}</${tag}>`;
    return { text, tag, html, selectors: [selector], benchmarkSelector: selector };
  }
  m = /^\/\/label\[contains\(\.,\s*'([^']*)'\)\]\/following::([a-z]+)\[\d+\]$/i.exec(selector);
  if (m) {
    const tag = m[2]!.toLowerCase();
    const text = m[1]!;
    const html = tag === "input" ? `<input type="text">` : `<${tag}>Select</${tag}>`;
    return { text, tag, html, selectors: [selector], benchmarkSelector: selector };
  }
  if (selector === "[type='password']") {
    return {
      text: "Password",
      tag: "input",
      html: `<input type="password" name="password">`,
      selectors: [selector],
      benchmarkSelector: selector,
    };
  }
  m = /^#([\w-]+)$/.exec(selector);
  if (m) {
    const id = m[1]!;
    const text = id
      .replace(/[_-]+/g, " ")
      .replace(/^(issuable|project|milestone|group)\s/, "")
      .trim();
    const html = fieldAct
      ? `<input id="${id}" type="text">`
      : `<button id="${id}">${escapeHtml(text)}</button>`;
    return {
      text,
      tag: fieldAct ? "input" : "button",
      html,
      selectors: [selector],
      benchmarkSelector: selector,
    };
  }
  m = /^\.([\w-]+)$/.exec(selector);
  if (m) {
    const cls = m[1]!;
    const text = cls.replace(/^js-/, "").replace(/[_-]+/g, " ");
    const html = fieldAct
      ? `<input class="${cls}" type="text">`
      : `<button class="${cls}">${escapeHtml(text)}</button>`;
    return {
      text,
      tag: fieldAct ? "input" : "button",
      html,
      selectors: [selector],
      benchmarkSelector: selector,
    };
  }
  return {
    text: selector,
    tag: fieldAct ? "input" : "button",
    html: "",
    selectors: [selector],
    benchmarkSelector: selector,
  };
}

/* ------------------------------------------------------------------ plans */

export type Op =
  | { kind: "click"; el: Element; to?: string; errorAfter?: boolean; tagged?: string; group?: string }
  | { kind: "fill"; el: Element; value: string; tagged?: string; group?: string }
  | { kind: "select"; el: Element; value: string; tagged?: string; group?: string }
  | { kind: "press"; el: Element; key: string; tagged?: string }
  | { kind: "goto"; to: string; tagged?: string }
  | { kind: "back"; tagged?: string }
  | { kind: "scroll"; tagged?: string }
  | { kind: "msg"; text: string; tagged?: string }
  | { kind: "answer"; text: string };

export interface PageState {
  /** Element key (see elementKey) -> the locator that renders it and its value on the final page. */
  values: Map<string, { locator: string; value: string }>;
  /** Free text on the final page. */
  text: string[];
}

export interface Plan {
  ops: Op[];
  final: PageState;
}

export interface TaskFacts {
  task: StTask;
  version: StVersion;
  site: string;
  base: string;
  start: string;
  work: string;
  avoid: string[];
  values: string[];
  askTerms: string[][];
  /** Every locator the task's page checks read. */
  locators: string[];
  /** Element ids for this task's trajectories. */
  ids: ElementIds;
}

export function lower(s: string): string {
  return s.toLowerCase();
}

export function splitTerms(text: string | null | undefined): string[] {
  return (text ?? "")
    .toLowerCase()
    .split(/\s\|or\|\s/)
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

export function evalType(p: StPolicy): string {
  return p.eval.eval_types[0]!;
}

export function safeText(facts: TaskFacts, candidates: readonly string[], rng: () => number): string {
  const ok = candidates.filter((c) => !facts.avoid.some((a) => lower(c).includes(a) || a.includes(lower(c))));
  return ok.length > 0 ? pick(rng, ok) : `Item ${Math.floor(rng() * 90) + 10}`;
}

export function analyse(task: StTask, version: StVersion): TaskFacts {
  const site = siteOf(task);
  const base = SITE_BASE[site]!;
  const start = startUrlOf(task);
  const forbiddenRefs = task.policies
    .filter((p) => evalType(p) === "is_url_match" && (p.eval.check_absence ?? true))
    .map((p) => p.eval.reference_url ?? "");
  const work =
    WORK_PAGES[site]!.map((path) => `${base}${path}`).find(
      (u) => !forbiddenRefs.some((r) => oracleUrlMatches(u, r)),
    ) ?? `${base}/work-${task.task_id}`;
  const avoid = new Set<string>();
  const askTerms: string[][] = [];
  for (const p of task.policies) {
    const t = evalType(p);
    if (t === "element_action_match" || t === "is_ask_the_user")
      for (const x of splitTerms(p.eval.must_include)) avoid.add(x);
    if (t === "is_ask_the_user" && p.policy_template_id !== "missing_params")
      askTerms.push(splitTerms(p.eval.must_include));
    if (t === "is_sensitive_data" && p.eval.sensitive_data) avoid.add(lower(p.eval.sensitive_data.trim()));
    if (t === "is_action_count") {
      for (const s of p.eval.element_selectors ?? []) {
        const m = /'([^']*)'\)?\]$/.exec(s);
        if (m) avoid.add(lower(m[1]!));
      }
    }
  }
  for (const w of ORACLE_ERROR_WORDS) avoid.add(w);
  // Values the agent may type: the task's only_fill lists when it has one, else the task's own values.
  const onlyFill = task.policies
    .filter((p) => evalType(p) === "is_input_hallucination")
    .map((p) => p.eval.only_fill ?? []);
  let values: string[];
  if (onlyFill.length > 0) {
    const sets = onlyFill.map((l) => new Set(l.map((v) => v.trim().toLowerCase())));
    values = onlyFill[0]!
      .map((v) => v.trim())
      .filter((v) => v !== "" && sets.every((s) => s.has(v.toLowerCase())));
  } else {
    values = Object.values(task.instantiation_dict ?? {})
      .filter((v): v is string => typeof v === "string" && v.trim() !== "")
      .map((v) => v.trim());
  }
  const avoidList = [...avoid].filter((a) => a !== "");
  const typable = values.filter(
    (v) => !avoidList.some((a) => lower(v).includes(a)) && !["enter", "tab"].includes(lower(v)),
  );
  return {
    task,
    version,
    site,
    base,
    start,
    work,
    ids: { next: 0 },
    avoid: avoidList,
    values:
      typable.length > 0
        ? typable
        : values.length > 0
          ? values
          : onlyFill.length > 0
            ? []
            : ["Quarterly planning"],
    askTerms,
    locators: task.policies
      .filter((p) => evalType(p) === "is_program_html")
      .flatMap((p) => htmlTargets(p).map((t) => t.locator ?? "")),
  };
}

/* ------------------------------------------------------------------ final page rendering */

export interface LocatorShape {
  selector: string;
  prop: string;
}

export function firstOperand(locator: string): LocatorShape | null {
  const m =
    /^document\.querySelector\((['"])(.*?)\1\)\??\.(value|checked|textContent|selectedIndex|innerText)/.exec(
      locator.trim(),
    );
  return m ? { selector: m[2]!, prop: m[3]! } : null;
}

/** HTML for an element that makes `locator` evaluate to `value`; null when this locator shape is unknown. */
export function renderForLocator(locator: string, value: string): { html: string; text: string } | null {
  const trimmed = locator.trim();
  if (trimmed === "" || /^document\.body\.(innerText|textContent)/.test(trimmed)) {
    return { html: `<p class="note">${escapeHtml(value)}</p>`, text: value };
  }
  const label = /^\/\/label\[contains\(\.,\s*'([^']*)'\)\]\/following::input\[1\]$/.exec(trimmed);
  if (label) {
    return {
      html: `<div class="field"><label>${escapeHtml(label[1]!)}</label><input type="text" value="${escapeHtml(value)}"></div>`,
      text: label[1]!,
    };
  }
  const shape = firstOperand(trimmed);
  if (!shape) return null;
  const { selector, prop } = shape;
  const id = /^#([\w-]+)$/.exec(selector)?.[1];
  const nameAttr = /^(?:(input|select|textarea))?\[name='([^']+)'\]$/.exec(selector);
  const selectOpt = /^select\[name='([^']+)'\] option:checked$/.exec(selector);
  const detail = /^\.detail-view-field\[data-name='([^']+)'\] \.detail-view-value$/.exec(selector);
  if (prop === "checked" && id) {
    return { html: `<input type="checkbox" id="${id}"${value === "true" ? " checked" : ""}>`, text: "" };
  }
  if (prop === "selectedIndex" && id) {
    const n = Math.max(0, Number(value) || 0);
    const opts = Array.from(
      { length: Math.max(n + 1, 3) },
      (_, i) => `<option${i === n ? " selected" : ""}>Option ${i + 1}</option>`,
    );
    return { html: `<select id="${id}">${opts.join("")}</select>`, text: "" };
  }
  if (prop === "value" && id)
    return { html: `<input type="text" id="${id}" value="${escapeHtml(value)}">`, text: "" };
  if (prop === "value" && nameAttr) {
    return {
      html: `<input type="text" name="${escapeHtml(nameAttr[2]!)}" value="${escapeHtml(value)}">`,
      text: "",
    };
  }
  if (prop === "textContent" && selectOpt) {
    return {
      html: `<select name="${escapeHtml(selectOpt[1]!)}"><option value="">-- none --</option><option selected>${escapeHtml(value)}</option></select>`,
      text: value,
    };
  }
  if (prop === "textContent" && detail) {
    return {
      html: `<div class="detail-view-field" data-name="${escapeHtml(detail[1]!)}"><span class="detail-view-value">${escapeHtml(value)}</span></div>`,
      text: value,
    };
  }
  return renderGeneric(selector, prop, value);
}

/** Open/close tags for one simple compound selector (tag, #id, .class, [attr='v']); null if not simple. */
export function tagsFor(
  compound: string,
  fallbackTag: string,
): { open: string; close: string; tag: string } | null {
  const m = /^([a-z][a-z0-9]*)?((?:[#.][\w-]+|\[[\w-]+=['"][^'"]*['"]\])*)$/i.exec(compound);
  if (!m || (m[1] === undefined && m[2] === "")) return null;
  const tag = (m[1] ?? fallbackTag).toLowerCase();
  const ids = [...m[2]!.matchAll(/#([\w-]+)/g)].map((x) => x[1]!);
  const classes = [...m[2]!.matchAll(/\.([\w-]+)/g)].map((x) => x[1]!);
  const attrs = [...m[2]!.matchAll(/\[([\w-]+)=['"]([^'"]*)['"]\]/g)].map(
    (x) => ` ${x[1]}="${escapeHtml(x[2]!)}"`,
  );
  const idAttr = ids.length > 0 ? ` id="${ids[0]}"` : "";
  const classAttr = classes.length > 0 ? ` class="${classes.join(" ")}"` : "";
  return { open: `<${tag}${idAttr}${classAttr}${attrs.join("")}`, close: `</${tag}>`, tag };
}

/** Any selector made of simple compounds joined by spaces: nested elements, the innermost holding the value. */
export function renderGeneric(
  selector: string,
  prop: string,
  value: string,
): { html: string; text: string } | null {
  const parts = selector.trim().split(/\s+/);
  const last = parts.pop()!;
  const outer = parts.map((c) => tagsFor(c, "div"));
  if (outer.some((o) => o === null)) return null;
  let inner: string;
  let text = "";
  if (prop === "checked") {
    const t = tagsFor(last, "input");
    if (t?.tag !== "input") return null;
    inner = `${t.open} type="checkbox"${value === "true" ? " checked" : ""}>`;
  } else if (prop === "value") {
    const t = tagsFor(last, "input");
    if (t?.tag !== "input") return null;
    inner = `${t.open} type="text" value="${escapeHtml(value)}">`;
  } else if (prop === "textContent" || prop === "innerText") {
    const t = tagsFor(last, "span");
    if (!t || ["input", "select", "option"].includes(t.tag)) return null;
    inner = `${t.open}>${escapeHtml(value)}${t.close}`;
    text = value;
  } else return null;
  const wrapped = outer.reduceRight((html, o) => `${o!.open}>${html}${o!.close}`, inner);
  return { html: wrapped, text };
}

/** A value for the locator's content that meets (`match`) or fails the required contents. */
export function valueFor(required: Record<string, unknown>, locator: string, match: boolean): string {
  const checked = firstOperand(locator)?.prop === "checked";
  if (checked) {
    const want = String(required.exact_match ?? "true").toLowerCase();
    return match ? want : want === "true" ? "false" : "true";
  }
  if (required.exact_match !== undefined) {
    const want = String(required.exact_match);
    if (match) return want;
    return want === ""
      ? "N/A"
      : /^\d+$/.test(want)
        ? String(Number(want) + 1)
        : `not ${want}`.replace(/^not\s*$/, "none");
  }
  if (Array.isArray(required.must_include)) {
    if (match) return required.must_include.map((x) => String(x).split(/\s\|or\|\s/i)[0]).join(" ");
    return "Unchanged";
  }
  // not_empty alone
  return match ? "2031-12-31" : "";
}

/* ------------------------------------------------------------------ materialisation */

export interface Materialised {
  truth: TruthStep[];
  steps: Step[];
}

export function messageArgs(text: string): string[] {
  return [text];
}

export function pageHtml(title: string, url: string, body: string): string {
  return `<html><head><title>${escapeHtml(title)}</title></head><body data-url="${escapeHtml(url)}"><nav><a href="/">Home</a></nav><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export const ERROR_MESSAGE = "500 Internal Server Error: something went wrong while saving your changes.";
/** The visible text of the error page (what a harness reading the page's body text sees). */
export const ERROR_PAGE_TEXT = `Home\nError\n${ERROR_MESSAGE}`;

export function errorHtml(url: string): string {
  return pageHtml("Error", url, `<div class="flash-alert" role="alert">${ERROR_MESSAGE}</div>`);
}

/**
 * The element a locator reads first: locators with the same first `querySelector(...).prop` read the same
 * element, so they must share one value on the page.
 */
export function elementKey(locator: string): string {
  const shape = firstOperand(locator);
  return shape ? `${shape.selector}|${shape.prop}` : locator.trim();
}

export function finalPageTruth(
  final: PageState,
  url: string,
  rng: () => number,
  locators: readonly string[],
): { html: string; page: TruthPage } {
  const pieces: string[] = [];
  const texts: string[] = [];
  const values: Record<string, string> = {};
  const rendered = new Map<string, string>();
  for (const [key, { locator, value }] of final.values) {
    const r = renderForLocator(locator, value);
    if (!r) continue;
    pieces.push(r.html);
    if (r.text) texts.push(r.text);
    rendered.set(key, value);
  }
  for (const locator of locators) {
    const v = rendered.get(elementKey(locator));
    if (v !== undefined) values[locator] = v;
  }
  for (const t of final.text) {
    pieces.push(`<p>${escapeHtml(t)}</p>`);
    texts.push(t);
  }
  const filler = pick(rng, FILLER_TEXTS);
  pieces.push(`<p>${escapeHtml(filler)}</p>`);
  texts.push(filler);
  const html = pageHtml("Summary", url, pieces.join(""));
  const text = ["Home", "Summary", ...texts].join("\n");
  // Locators that read the body text or the whole page see everything rendered.
  for (const locator of locators) {
    const t = locator.trim();
    if (t === "") values[locator] = html;
    const sub = /^document\.body\.(?:innerText|textContent)(?:\.substring\(0,\s*(\d+)\))?$/.exec(t);
    if (sub) values[locator] = sub[1] ? text.slice(0, Number(sub[1])) : text;
  }
  return { html, page: { locatorValues: values, html, text } };
}

export function bidFor(rng: () => number): string {
  return `${pick(rng, ["a", "b", "c"])}${Math.floor(rng() * 900) + 10}`;
}

export function quote(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

export function materialise(facts: TaskFacts, plan: Plan, rng: () => number): Materialised {
  const truth: TruthStep[] = [];
  const steps: Step[] = [];
  let url = facts.start;
  const history: string[] = [];
  let errorNext = false;
  const style = rng() < 0.35 ? "browsergym" : "structured";
  for (const [i, op] of plan.ops.entries()) {
    const isLast = i === plan.ops.length - 1;
    const title = url.includes("#")
      ? url
          .split("#")[1]!
          .replace(/[/?=&]+/g, " ")
          .trim() || "Home"
      : url.split("/").pop() || "Home";
    const el = "el" in op ? op.el : undefined;
    const body = `${el ? el.html || `<span>${escapeHtml(el.text)}</span>` : ""}<p>${escapeHtml(FILLER_TEXTS[i % FILLER_TEXTS.length]!)}</p>`;
    let observation = pageHtml(title, url, body);
    let errorShown = false;
    if (errorNext) {
      observation = errorHtml(url);
      errorShown = true;
      errorNext = false;
    }
    let page: TruthPage | undefined;
    if (isLast) {
      const f = finalPageTruth(plan.final, url, rng, facts.locators);
      observation = errorShown ? observation : f.html;
      page = errorShown ? { locatorValues: {}, html: observation, text: ERROR_PAGE_TEXT } : f.page;
      // An error banner left on the final page is an error shown at the last step.
      if (plan.final.text.includes(ERROR_MESSAGE)) errorShown = true;
    }
    const bid = el ? bidFor(rng) : "";
    const meta: Record<string, unknown> = {};
    if (el) {
      if (el.html) meta.elementHtml = el.html;
      meta.selector = el.benchmarkSelector ?? el.selectors[0];
    }
    const t: TruthStep = { type: "", url, args: [], errorShown, ...(page ? { page } : {}) };
    if (el) {
      t.elementText = el.text;
      t.tag = el.tag;
      t.selectors = el.selectors;
      t.bid = bid;
    }
    let step: Step;
    const bgStyle = style === "browsergym" || rng() < 0.15;
    switch (op.kind) {
      case "click":
        t.type = "click";
        t.args = [bid];
        step = bgStyle
          ? { action: `click(${quote(bid)})`, args: {}, element: el!.text, url, observation, meta }
          : { action: "click", args: { bid }, element: el!.text, url, observation, meta };
        if (op.to) {
          history.push(url);
          url = op.to;
        }
        if (op.errorAfter) errorNext = true;
        break;
      case "fill":
      case "select": {
        const type = op.kind === "fill" ? "fill" : "select_option";
        t.type = type;
        t.typed = op.value;
        t.args = [bid, op.value];
        const name =
          op.kind === "fill" ? (rng() < 0.2 ? "type" : "fill") : rng() < 0.3 ? "select" : "select_option";
        step = bgStyle
          ? {
              action: `${type}(${quote(bid)}, ${quote(op.value)})`,
              args: {},
              url,
              observation,
              meta: { ...meta, elementText: el!.text },
            }
          : { action: name, args: { bid }, element: el!.text, value: op.value, url, observation, meta };
        break;
      }
      case "press":
        t.type = "press";
        t.typed = op.key;
        t.args = [bid, op.key];
        step = {
          action: `press(${quote(bid)}, ${quote(op.key)})`,
          args: {},
          element: el!.text,
          url,
          observation,
          meta,
        };
        break;
      case "goto":
        t.type = "goto";
        t.target = op.to;
        t.args = [op.to];
        step = bgStyle
          ? { action: `goto(${quote(op.to)})`, args: {}, url, observation }
          : { action: rng() < 0.3 ? "navigate" : "goto", args: { url: op.to }, url, observation };
        history.push(url);
        url = op.to;
        break;
      case "back":
        t.type = "go_back";
        step = { action: "go_back()", args: {}, url, observation };
        url = history.pop() ?? facts.work;
        break;
      case "scroll":
        t.type = "scroll";
        t.args = ["0", "400"];
        step = { action: "scroll(0, 400)", args: {}, url, observation };
        break;
      case "msg":
        t.type = "send_msg_to_user";
        t.message = op.text;
        t.args = messageArgs(op.text);
        step = bgStyle
          ? { action: `send_msg_to_user(${quote(op.text)})`, args: {}, url, observation }
          : { action: "send_msg_to_user", args: { text: op.text }, url, observation };
        break;
      case "answer":
        t.type = "answer";
        t.message = op.text;
        t.args = [op.text];
        step = bgStyle
          ? { action: `answer(${quote(op.text)})`, args: {}, url, observation }
          : { action: rng() < 0.3 ? "finish" : "answer", args: { text: op.text }, url, observation };
        break;
    }
    t.urlAfter = url;
    truth.push(t);
    steps.push(step);
  }
  return { truth, steps };
}

/* ------------------------------------------------------------------ planning */

/**
 * Inserts a consent message before every op acting on an element that an ask-the-user policy names —
 * before the whole run when the op belongs to a contiguous group (a required sequence), so that asking
 * does not break the sequence.
 */
export function withConsent(facts: TaskFacts, ops: Op[]): Op[] {
  const out: Op[] = [];
  let i = 0;
  while (i < ops.length) {
    const first = ops[i]!;
    const group = "group" in first ? first.group : undefined;
    let j = i + 1;
    if (group !== undefined)
      while (j < ops.length && "group" in ops[j]! && (ops[j] as { group?: string }).group === group) j += 1;
    const block = ops.slice(i, j);
    const terms: string[] = [];
    for (const op of block) {
      if (!("el" in op)) continue;
      for (const ts of facts.askTerms) {
        const t = ts.find((x) => lower(op.el.text).includes(x));
        if (t && !terms.includes(t)) terms.push(t);
      }
    }
    if (terms.length > 0) {
      out.push({
        kind: "msg",
        text: `May I proceed with "${terms.join('", "')}" now? Please confirm before I continue.`,
        tagged: "consent",
      });
    }
    out.push(...block);
    i = j;
  }
  return out;
}

export function typedValue(facts: TaskFacts, rng: () => number): string | null {
  return facts.values.length > 0 ? pick(rng, facts.values) : null;
}

export function pickFrom<T>(items: readonly T[], rng: () => number): T {
  return pick(rng, items);
}

export function sequenceOps(
  facts: TaskFacts,
  policy: StPolicy,
  rng: () => number,
  order: "as-is" | "reversed" | "drop-last" | "interleaved",
): Op[] {
  const items = [...(policy.eval.action_sequence ?? [])];
  let chosen = items;
  if (order === "reversed") chosen = [...items].reverse();
  if (order === "drop-last") chosen = items.slice(0, -1);
  const ops: Op[] = [];
  const group = `seq-${policy.index}`;
  for (const [k, item] of chosen.entries()) {
    const act = item.action_type.toLowerCase();
    const selector = item.element_selector || item.action_selector;
    const el = selector
      ? elementForSelector(selector, act)
      : act === "fill"
        ? {
            ...field(facts.ids, item.element_text ?? "Field"),
            text: capitalise(item.element_text ?? "Field"),
          }
        : button(facts.ids, capitalise(item.element_text ?? "Button"));
    if (act === "fill") {
      const v = typedValue(facts, rng);
      ops.push({ kind: "fill", el, value: v ?? "", group });
    } else if (act === "select_option") {
      ops.push({ kind: "select", el, value: typedValue(facts, rng) ?? "", group });
    } else ops.push({ kind: "click", el, group });
    if (order === "interleaved" && k === 0)
      ops.push({ kind: "click", el: button(facts.ids, safeText(facts, EXTRA_CLICK_TEXTS, rng)) });
  }
  return ops;
}

export function capitalise(s: string): string {
  return s.length > 0 ? s[0]!.toUpperCase() + s.slice(1) : s;
}

export function countElement(facts: TaskFacts, policy: StPolicy, rng: () => number): Element {
  const act = (policy.eval.action_type ?? "click").toLowerCase();
  const sels = (policy.eval.element_selectors ?? []).filter((s) => s.trim() !== "");
  if (sels.length > 0 && !(facts.version === "v1" && policy.eval.global_count_less_than)) {
    return elementForSelector(sels[0]!, act);
  }
  return act === "fill"
    ? field(facts.ids, safeText(facts, FIELD_LABELS, rng))
    : button(facts.ids, safeText(facts, EXTRA_CLICK_TEXTS, rng));
}

export function countOp(el: Element, policy: StPolicy, facts: TaskFacts, rng: () => number): Op {
  const act = (policy.eval.action_type ?? "click").toLowerCase();
  if (act === "fill") return { kind: "fill", el, value: typedValue(facts, rng) ?? "" };
  return { kind: "click", el };
}

/** The plan that tries to respect every policy of the task. */
export function safePlan(
  facts: TaskFacts,
  rng: () => number,
  options: { askAction: boolean; fills: boolean },
): Plan {
  const { task } = facts;
  const ops: Op[] = [];
  const final: PageState = { values: new Map(), text: [] };
  // Clarifying questions first (missing_params policies).
  for (const p of task.policies) {
    if (evalType(p) === "is_ask_the_user" && p.policy_template_id === "missing_params") {
      // A keyword no consent-gated action names, so this question is not taken as consent for it.
      const keywords = splitTerms(p.eval.must_include);
      const overlaps = (k: string) =>
        facts.askTerms.some((ts) => ts.some((t) => t.includes(k) || k.includes(t)));
      const term = keywords.find((k) => !overlaps(k)) ?? keywords[0] ?? "details";
      ops.push({ kind: "msg", text: `Quick question (${term}): please give me the details first.` });
    }
  }
  if (rng() < 0.3) ops.push({ kind: "goto", to: facts.start });
  ops.push({
    kind: "click",
    el: link(facts.ids, safeText(facts, NAV_TEXTS, rng), facts.work),
    to: facts.work,
  });
  if (rng() < 0.3) ops.push({ kind: "scroll" });
  for (const p of task.policies) {
    if (evalType(p) === "is_url_match" && p.eval.check_absence === false) {
      ops.push(
        { kind: "goto", to: urlForReference(facts.base, p.eval.reference_url ?? "") },
        { kind: "back" },
      );
    }
  }
  if (options.fills) {
    const v = typedValue(facts, rng);
    if (v !== null)
      ops.push({ kind: "fill", el: field(facts.ids, safeText(facts, FIELD_LABELS, rng)), value: v });
  }
  for (const p of task.policies)
    if (evalType(p) === "is_sequence_match") ops.push(...sequenceOps(facts, p, rng, "as-is"));
  if (options.askAction) {
    const ask = task.policies.find(
      (p) => evalType(p) === "is_ask_the_user" && p.policy_template_id !== "missing_params",
    );
    const term = ask ? splitTerms(ask.eval.must_include)[0] : undefined;
    if (term) ops.push({ kind: "click", el: button(facts.ids, capitalise(term)) });
  }
  // Exact counts: add matching actions until the count is met (the oracle counts what is already there).
  for (const p of task.policies) {
    if (
      evalType(p) !== "is_action_count" ||
      p.eval.global_count === null ||
      p.eval.global_count === undefined
    )
      continue;
    if (
      facts.version === "latest" &&
      p.eval.global_count_less_than !== null &&
      p.eval.global_count_less_than !== undefined
    )
      continue;
    const el = countElement(facts, p, rng);
    const have = countMatches(facts, p, ops);
    for (let k = have; k < p.eval.global_count; k += 1) ops.push(countOp(el, p, facts, rng));
  }
  // Final page state: required states present, ruled-out states absent.
  for (const p of task.policies) {
    if (evalType(p) !== "is_program_html") continue;
    const forbidden = p.eval.check_absence ?? true;
    for (const t of htmlTargets(p)) {
      const locator = (t.locator ?? "").trim();
      if (locator === "" || /^document\.body/.test(locator)) {
        const want = valueFor(t.required_contents, locator, !forbidden);
        if (!forbidden) final.text.push(want);
        continue;
      }
      const key = elementKey(locator);
      if (final.values.has(key) && forbidden) continue;
      final.values.set(key, { locator, value: valueFor(t.required_contents, locator, !forbidden) });
    }
  }
  ops.push({ kind: "answer", text: `Done: ${task.intent}`.slice(0, 200) });
  return { ops: withConsent(facts, ops), final };
}

export function htmlTargets(
  p: StPolicy,
): Array<{ url: string; locator?: string | null; required_contents: Record<string, unknown> }> {
  const e = p.eval;
  if (e.program_html && e.program_html.length > 0) return e.program_html;
  if (e.url !== null && e.url !== undefined && e.required_contents)
    return [{ url: e.url, locator: e.locator ?? "", required_contents: e.required_contents }];
  return [];
}

export function truthOf(op: Op): TruthStep | null {
  if (!("el" in op)) return null;
  const type =
    op.kind === "click"
      ? "click"
      : op.kind === "fill"
        ? "fill"
        : op.kind === "select"
          ? "select_option"
          : "press";
  return { type, url: "", args: [], elementText: op.el.text, tag: op.el.tag, selectors: op.el.selectors };
}

export function countMatches(facts: TaskFacts, p: StPolicy, ops: Op[]): number {
  const act = (p.eval.action_type ?? "").toLowerCase();
  const sels = (p.eval.element_selectors ?? []).filter((s) => s.trim() !== "");
  let n = 0;
  for (const op of ops) {
    const t = truthOf(op);
    if (!t || t.type !== act) continue;
    if (sels.length === 0 || sels.some((s) => oracleElementMatches(t, s))) n += 1;
  }
  void facts;
  return n;
}
