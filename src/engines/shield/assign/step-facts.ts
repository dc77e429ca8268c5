/**
 * Step facts: the record a predicate binding's condition (src/core/condition.ts) is evaluated over.
 * It keeps the step as logged (action, args, url, element, value, observation, thought, meta) next to
 * the task text and caller context, and adds normalised helpers so that one binding matches the same
 * behaviour whatever the agent's logging style: the action in BrowserGym/ST-WebAgentBench vocabulary
 * (a BrowserGym call string like `fill('b3', 'x')` is read into action + element id + value), the
 * element's text and selectors, the typed value, the message sent to the user, the navigation target,
 * and URL parts for substring tests.
 */
import type { Step } from "../../../core/subject.js";
import {
  browserGymArguments,
  calledName,
  isCode,
  parseBrowserGymAction,
} from "../../common/browsergym-action.js";
import {
  INPUT_ACTION_TYPES,
  NAVIGATION_KEYS,
  normaliseActionType,
  OUTPUT_ACTION_TYPES,
} from "./action-vocabulary.js";
import { type UrlParts, urlParts } from "./url-parts.js";

export interface StepFacts {
  /** 0-based position of the step in the trajectory. */
  index: number;
  /** The action as logged. */
  action: string;
  /** Canonical action name (click, fill, select_option, press, goto, send_msg_to_user, answer, ...). */
  actionType: string;
  args: Record<string, unknown>;
  url: string | undefined;
  element: string | undefined;
  value: string | undefined;
  observation: string | undefined;
  thought: string | undefined;
  meta: Record<string, unknown>;
  /** The task text (the agent's input I_i). */
  input: string;
  context: Record<string, unknown>;
  /** BrowserGym element id ("a12"), "" when unknown. */
  bid: string;
  /** The element's visible text or accessible name, "" when unknown. */
  elementText: string;
  /** The primary selector of the target element, "" when unknown. */
  selector: string;
  /** Every selector known for the target element (compare with the `contains` operator). */
  selectors: string[];
  /** The data an input action typed or selected ("" for navigation keys and non-input actions). */
  typed: string;
  /** The text of a send_msg_to_user / answer step, "" otherwise. */
  message: string;
  /** Where a goto step navigates to, "" otherwise. */
  targetUrl: string;
  /** True for fill / select_option / press (data into the page). */
  isInput: boolean;
  /** True for send_msg_to_user / goto / answer (data out of the agent). */
  isOutput: boolean;
  /** Every argument value, the value, the message and the target URL, newline-joined. */
  argsText: string;
  /** Element text + value + arguments, newline-joined: "what this step touched". */
  text: string;
  /**
   * Why the step cannot be read, when its action is code that is not one BrowserGym call Warden reads
   * (an expression, several calls, an f-string): every predicate of the step is then undetermined.
   */
  unreadable?: string;
  /** The page URL split for substring tests. */
  page: UrlParts;
  /** The navigation target split for substring tests. */
  target: UrlParts;
}

function str(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  // A list of options (select_option) is read as its items, one per line.
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null || Array.isArray(v)))
    return value.map(str).join("\n");
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function firstString(...values: unknown[]): string {
  for (const v of values) {
    if (typeof v === "string" && v.trim() !== "") return v;
    if (typeof v === "number") return String(v);
  }
  return "";
}

/** A CSS selector or XPath rather than visible text. */
export function looksLikeSelector(options: { text: string }): boolean {
  const t = options.text.trim();
  if (t === "") return false;
  if (t.startsWith("//") || t.startsWith(".//") || t.startsWith("xpath=") || t.startsWith("css="))
    return true;
  if (/^[#.][A-Za-z_][\w-]*/.test(t) && !/\s{2,}/.test(t) && !/[.!?]$/.test(t)) return true;
  if (/^[a-z][a-z0-9]*\[[^\]]+\]/i.test(t) || /^\[[^\]]+\]$/.test(t)) return true;
  return false;
}

const BID_PATTERN = /^[a-z]{0,3}\d+$/i;

interface CallView {
  name: string;
  bid: string;
  value: string;
  targetUrl: string;
  message: string;
  args: Record<string, unknown>;
}

/** What a BrowserGym call string says, in step terms. */
function readCall(action: string): CallView | null {
  const call = parseBrowserGymAction({ text: action });
  if (!call) return null;
  const type = normaliseActionType({ action: call.name });
  const a = call.args.map(str);
  const n = Object.fromEntries(
    Object.entries(browserGymArguments({ type, call })).map(([k, v]) => [k, v === undefined ? "" : str(v)]),
  ) as Record<string, string>;
  const view: CallView = { name: call.name, bid: "", value: "", targetUrl: "", message: "", args: {} };
  switch (type) {
    case "goto":
      view.targetUrl = n.url ?? "";
      view.args = { url: view.targetUrl };
      break;
    case "send_msg_to_user":
    case "answer":
      view.message = n.text ?? "";
      view.args = { text: view.message };
      break;
    case "fill":
    case "select_option":
    case "press": {
      // One positional argument and no keywords: the value alone (keyboard_type("…"), press("Enter")).
      const second = type === "fill" ? n.value : type === "press" ? n.key_comb : n.options;
      if (a.length === 1 && Object.keys(call.kwargs).length === 0) view.value = a[0] ?? "";
      else {
        view.bid = n.bid ?? "";
        view.value = second ?? "";
      }
      view.args =
        type === "press" ? { bid: view.bid, key: view.value } : { bid: view.bid, value: view.value };
      break;
    }
    default:
      view.bid = a[0] !== undefined && BID_PATTERN.test(a[0]) ? a[0] : "";
      view.args = Object.fromEntries(a.map((v, i) => [`arg${i}`, v]));
  }
  // A spread defines own properties, so a keyword named __proto__ stays an argument.
  view.args = { ...view.args, ...call.kwargs };
  return view;
}

function collectSelectors(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    const list = Array.isArray(v) ? v : [v];
    for (const item of list) {
      if (typeof item === "string" && item.trim() !== "" && !out.includes(item.trim())) out.push(item.trim());
    }
  }
  return out;
}

/** Builds the facts for one step. `input` is the task text, `context` the caller's structured facts. */
export function buildStepFacts(options: {
  step: Step;
  index: number;
  input?: string;
  context?: Record<string, unknown>;
}): StepFacts {
  const { step, index } = options;
  const meta = step.meta ?? {};
  const args = step.args ?? {};
  const call = readCall(step.action);
  const code = !call && isCode({ text: step.action });
  const actionType = normaliseActionType({
    action: call ? call.name : code ? calledName({ text: step.action }) : step.action,
  });
  const callArgs = call?.args ?? {};
  const mergedArgs: Record<string, unknown> = { ...callArgs, ...args };

  const element = step.element;
  const elementIsSelector = element !== undefined && looksLikeSelector({ text: element });
  // A bare element id ("a12", "42") in `element` names the element without saying what it shows —
  // unless the step gives its id elsewhere, in which case `element` is the text ("2024" on a button).
  const separateBid = firstString(args.bid, meta.bid, call?.bid);
  const elementIsBid =
    element !== undefined &&
    BID_PATTERN.test(element.trim()) &&
    (separateBid === "" || separateBid === element.trim());
  const elementText = firstString(
    meta.elementText,
    meta.element_text,
    args.elementText,
    args.element_text,
    elementIsSelector || elementIsBid ? undefined : element,
  ).trim();
  const selectors = collectSelectors([
    args.selector,
    meta.selector,
    meta.selectors,
    elementIsSelector ? element : undefined,
  ]);
  const bid = firstString(args.bid, meta.bid, call?.bid, elementIsBid ? element?.trim() : undefined);

  const value = step.value ?? (call?.value || undefined);
  const isInput = INPUT_ACTION_TYPES.includes(actionType);
  let typed = "";
  if (isInput) {
    typed = firstString(step.value, args.value, args.text, args.key, call?.value).trim();
    if (actionType === "press" && NAVIGATION_KEYS.includes(typed.toLowerCase())) typed = "";
  }
  const isMessage = actionType === "send_msg_to_user" || actionType === "answer";
  const message = isMessage
    ? firstString(args.text, args.message, args.msg, args.content, step.value, call?.message).trim()
    : "";
  const targetUrl =
    actionType === "goto" ? firstString(args.url, args.href, step.value, call?.targetUrl).trim() : "";

  const argValues = Object.values(mergedArgs)
    .map(str)
    .filter((s) => s !== "");
  const argsText = [...argValues, value ?? "", message, targetUrl]
    .filter((s, i, all) => s !== "" && all.indexOf(s) === i)
    .join("\n");
  const text = [elementText, argsText].filter((s) => s !== "").join("\n");

  return {
    index,
    action: step.action,
    actionType,
    args: mergedArgs,
    url: step.url,
    element,
    value,
    observation: step.observation,
    thought: step.thought,
    meta,
    input: options.input ?? "",
    context: options.context ?? {},
    bid,
    elementText,
    selector: selectors[0] ?? "",
    selectors,
    typed,
    message,
    targetUrl,
    isInput,
    isOutput: OUTPUT_ACTION_TYPES.includes(actionType),
    argsText,
    text,
    ...(code
      ? {
          unreadable: `the step's action is code that is not one BrowserGym call Warden can read (${JSON.stringify(step.action.slice(0, 80))})`,
        }
      : {}),
    page: urlParts({ url: step.url }),
    target: urlParts({ url: targetUrl }),
  };
}
