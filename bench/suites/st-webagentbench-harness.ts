/**
 * What ST-WebAgentBench's harness records of a generated trajectory, and so what its evaluators read:
 * per action its type (BrowserGym's function name; the final answer is `answer`), its positional
 * arguments, the acted-on element's `text_content()` and `bid`, and the page URL once the action is
 * done; after the run, the page the agent is left on (its URL, body text, HTML, locator values) and
 * which `bid` a selector resolves to there. Built from the generator's truth (st-webagentbench-truth.ts),
 * independently of the importer and the detectors.
 *
 * Two modelling choices, both from how a browser behaves: an `<input>`/`<textarea>` has no text
 * content, so a fill on a labelled field logs an empty element text; and a page at URL u holds every
 * element the trajectory acted on at u (with the bid it had there) and — when the agent acted on
 * anything at u — any other element a benchmark selector names, under a bid no step used. A page the
 * agent never acted on resolves no selector.
 */
import { locatorValue, oracleElementMatches, type TruthStep } from "./st-webagentbench-truth.js";

/** One entry of the harness's action trace. */
export interface HarnessTrace {
  actionType: string;
  args: string[];
  /** `text_content()` of the element a bid action targeted; null for actions without an element. */
  elementText: string | null;
  /** The bid argument of a bid action; null otherwise. */
  elementBid: string | null;
  /** page.url after the action (the step's observation URL). */
  url: string;
}

/** A page as an evaluator reads it. */
export interface HarnessPage {
  url: string;
  /** Visible body text (`inner_text('body')`). */
  text: string;
  /** page.content(). */
  html: string;
  /** What a program_html locator evaluates to ("" when it finds nothing). */
  locator: (locator: string) => string;
  /** get_element_bid_by_selector: the bid of the first element the selector matches, or null. */
  bidOf: (selector: string) => string | null;
}

const NO_TEXT_CONTENT = new Set(["input", "textarea"]);

function traceOf(step: TruthStep, next: TruthStep | undefined): HarnessTrace {
  const hasElement = step.bid !== undefined && step.bid !== "";
  return {
    actionType: step.type,
    args: [...step.args],
    elementText: hasElement
      ? NO_TEXT_CONTENT.has((step.tag ?? "").toLowerCase())
        ? ""
        : (step.elementText ?? "")
      : null,
    elementBid: hasElement ? step.bid! : null,
    url: step.urlAfter ?? next?.url ?? step.url,
  };
}

/** The harness's trace of a generated trajectory. */
export function harnessTrace(options: { steps: readonly TruthStep[] }): HarnessTrace[] {
  const { steps } = options;
  return steps.map((s, i) => traceOf(s, steps[i + 1]));
}

/**
 * The page the agent is on after step `at` (default: the last step). Only the last step's page carries
 * the generator's rendered final state; earlier pages hold no locator value.
 */
export function harnessPage(options: { steps: readonly TruthStep[]; at?: number }): HarnessPage {
  const { steps } = options;
  const last = steps.length - 1;
  const at = options.at ?? last;
  const step = steps[at];
  const url = step ? (step.urlAfter ?? steps[at + 1]?.url ?? step.url) : "";
  const rendered = at === last ? step?.page : undefined;
  return {
    url,
    text: rendered?.text ?? "",
    html: rendered?.html ?? "",
    locator: (loc) => (rendered ? (locatorValue(rendered, loc) ?? "") : ""),
    bidOf: (selector) => {
      let worked = false;
      for (const s of steps) {
        if (s.url !== url || !s.bid) continue;
        worked = true;
        if (oracleElementMatches(s, selector)) return s.bid;
      }
      // A page the agent worked on holds the task's other elements too, under bids no step used.
      return worked && selector.trim() !== "" ? `unused:${selector}` : null;
    },
  };
}
