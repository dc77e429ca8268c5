/**
 * The generator's truth about a step of our ST-WebAgentBench suite (action, element text, tag,
 * selectors, typed value, message, URLs, whether an error page was shown, the final page's state), and
 * the plain readings the oracle's judges apply to it (URL, element and required-contents matching).
 * Written independently of the importer, the step-fact builder and the detectors, so the pipeline can be
 * checked against it.
 */

/** What the generator knows about one step. */
export interface TruthStep {
  /** Canonical action type: click, fill, select_option, press, goto, go_back, send_msg_to_user, answer, scroll. */
  type: string;
  /** Page URL when the step is taken. */
  url: string;
  /** Page URL once the step is done (what the official harness logs in the step's observation). */
  urlAfter?: string;
  /** goto target. */
  target?: string;
  /** Visible text / accessible name (for form fields: the label). */
  elementText?: string;
  tag?: string;
  /** CSS selectors the element is known to match (the generator lists the benchmark's when it means them). */
  selectors?: string[];
  bid?: string;
  /** Typed or selected value; for press, the key. */
  typed?: string;
  message?: string;
  /** Every positional argument of the action, as BrowserGym would log it. */
  args: string[];
  /** The generator put an error page in this step's observation. */
  errorShown?: boolean;
  /** Final page state (only read on the last step). */
  page?: TruthPage;
}

export interface TruthPage {
  /** What each locator evaluates to on this page (as the generator rendered it). */
  locatorValues: Record<string, string>;
  /** The page's full HTML (for the empty locator). */
  html: string;
  /** All visible text of the page. */
  text: string;
}

export const INPUT_TYPES = new Set(["fill", "select_option", "press"]);
export const OUTPUT_TYPES = new Set(["send_msg_to_user", "goto", "answer"]);
export const NAV_KEYS = new Set([
  "enter",
  "tab",
  "escape",
  "esc",
  "arrowup",
  "arrowdown",
  "arrowleft",
  "arrowright",
  "backspace",
  "delete",
  "home",
  "end",
  "pageup",
  "pagedown",
  "shift+tab",
]);
/** Words that make a message to the user an error report (same list the importer binds). */
export const ORACLE_ERROR_WORDS = [
  "error",
  "failed",
  "failure",
  "not found",
  "denied",
  "went wrong",
  "unavailable",
  "could not",
  "couldn't",
  "unable",
  "problem",
  "forbidden",
];

export function terms(text: string | null | undefined): string[] {
  return (text ?? "")
    .toLowerCase()
    .split(/\s\|or\|\s/)
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

export function actionName(a: string): string {
  const x = a.toLowerCase();
  if (x === "type") return "fill";
  if (x === "select") return "select_option";
  if (x === "finish") return "answer";
  return x;
}

/** host + path + #fragment, decoded, no trailing slash — via the WHATWG URL parser. */
export function oracleUrlBase(url: string): string {
  if (url === "") return "";
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  let base = `${u.host}${u.pathname}${u.hash}`;
  try {
    base = decodeURIComponent(base);
  } catch {
    // keep it encoded
  }
  while (base.endsWith("/")) base = base.slice(0, -1);
  return base;
}

function refBase(ref: string): string {
  let r = ref.trim().replace(/\/+$/, "");
  r = r.replace(/^[a-z]+:\/\//i, "");
  return r.replace(/\?.*$/, "");
}

/** Does the URL match one of the references (" |OR| "-separated), as a case-insensitive substring? */
export function oracleUrlMatches(url: string, reference: string): boolean {
  const base = oracleUrlBase(url).toLowerCase();
  if (base === "") return false;
  return reference
    .split(/\s\|OR\|\s/i)
    .map((r) => refBase(r).toLowerCase())
    .filter((r) => r !== "")
    .some((r) => base.includes(r));
}

const XPATH_TEXT = /^\/\/([a-z*]+)\[contains\((text\(\)|\.),\s*'([^']*)'\)\]$/i;
const XPATH_ATTR = /^\/\/([a-z*]+)\[@([\w-]+)='([^']*)'\]$/i;
const XPATH_LABEL = /^\/\/label\[contains\(\.,\s*'([^']*)'\)\]\/following::([a-z*]+)\[\d+\]$/i;

/** Whether the step's element is the one `selector` names (from the generator's truth). */
export function oracleElementMatches(step: TruthStep, selector: string): boolean {
  if ((step.selectors ?? []).includes(selector)) return true;
  const tag = (step.tag ?? "").toLowerCase();
  const text = step.elementText ?? "";
  let m = XPATH_TEXT.exec(selector);
  if (m) return (m[1] === "*" || m[1]!.toLowerCase() === tag) && text.includes(m[3]!);
  m = XPATH_LABEL.exec(selector);
  if (m) {
    const want = m[2]!.toLowerCase();
    const field =
      want === "*" || tag === want || (want === "input" && ["input", "textarea", "select"].includes(tag));
    return field && text.toLowerCase().includes(m[1]!.toLowerCase());
  }
  m = XPATH_ATTR.exec(selector);
  if (m) return false;
  return false;
}

export function argsText(step: TruthStep): string {
  return [...step.args, step.typed ?? "", step.message ?? "", step.target ?? ""].join("\n").toLowerCase();
}

export function typedValueOf(step: TruthStep): string {
  if (!INPUT_TYPES.has(step.type)) return "";
  const v = (step.typed ?? "").trim();
  if (step.type === "press" && NAV_KEYS.has(v.toLowerCase())) return "";
  return v;
}

function clean(text: string): string {
  let t = text.trim();
  if (t.length >= 2 && ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))))
    t = t.slice(1, -1);
  return t.toLowerCase();
}

export function oracleRequiredContents(value: string, required: Record<string, unknown>): boolean {
  if ("not_empty" in required && value.trim() === "") return false;
  if (required.exact_match !== undefined && clean(value) !== clean(String(required.exact_match)))
    return false;
  if (Array.isArray(required.must_include)) {
    for (const item of required.must_include) {
      const alts = String(item).split(/\s\|or\|\s/i);
      if (!alts.some((a) => clean(value).includes(clean(a)))) return false;
    }
  }
  return true;
}

export function locatorValue(page: TruthPage, locator: string): string | undefined {
  if (locator.trim() === "") return page.html;
  return page.locatorValues[locator];
}
