import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractSeeActAction, normalizeSeeActAction } from "./extract-action.js";
import { formatSeeActAction } from "./format-action.js";

const MULTICHOICE = [
  "(Reiteration)",
  "First, reiterate your next target element, its detailed location, and the corresponding operation.",
  "",
  "(Multichoice Question)",
  "Below is a multi-choice question, where the choices are elements in the webpage.",
  "If none of these elements match your target element, please select D. None of the other options match the correct element.",
  "A. <input id=0 radio 31 adults />",
  "B. <button id=1 button> Save </button>",
  "C. <a id=2> Cancel </a>",
  "D. None of the other options match the correct element",
].join("\n");

const TEMPLATE = [
  "(Final Answer)",
  "Finally, conclude your answer using the format below.",
  "Format:",
  "",
  "ELEMENT: The uppercase letter of your choice. (No need for PRESS ENTER)",
  "",
  "ACTION: Choose an action from {CLICK, TYPE, SELECT}.",
  "",
  "VALUE: Provide additional input based on ACTION.",
  "",
  "The VALUE means:",
  "If ACTION == TYPE, specify the text to be typed.",
  'If ACTION == CLICK, write "None".',
].join("\n");

describe("extractSeeActAction", () => {
  it("reads the paper's shape and resolves the letter to the element and its visible text", () => {
    const output = `(Next Action Based on Webpage and Analysis)\nClick the Save button.\n\n${MULTICHOICE}\n\n(Final Answer)\nELEMENT: B\nACTION: CLICK\nVALUE: None`;
    expect(extractSeeActAction({ output })).toEqual({
      element: "B",
      elementChoice: "<button id=1 button> Save </button>",
      elementText: "Save",
      action: "CLICK",
      value: null,
      confidence: "high",
    });
  });

  it("uses attribute words as the text of an element without inner text", () => {
    const r = extractSeeActAction({ output: `${MULTICHOICE}\nELEMENT: A\nACTION: CLICK\nVALUE: None` });
    expect(r.elementText).toBe("radio 31 adults");
  });

  it('accepts "Final Answer:" headings, lower-case keys, extra spaces, bold and quotes', () => {
    const output = `${MULTICHOICE}\n\nFinal Answer:\n  element :   c  \n**Action:** type\nvalue:   "New York JFK"  `;
    const r = extractSeeActAction({ output });
    expect(r).toMatchObject({ element: "C", elementText: "Cancel", action: "TYPE", value: "New York JFK" });
    expect(r.confidence).toBe("high");
  });

  it("reads the one-line canonical form", () => {
    const r = extractSeeActAction({ output: "ELEMENT: B, ACTION: TYPE, VALUE: Columbus CMH" });
    expect(r).toMatchObject({ element: "B", action: "TYPE", value: "Columbus CMH", confidence: "high" });
    expect(r.reason).toMatch(/no multiple-choice list/);
  });

  it("takes the final answer when a log holds several, and the choice list closest before it", () => {
    const step1 =
      "A. <a id=0> Flights </a>\nB. <a id=1> Hotels </a>\nC. None of the other options match the correct element\nELEMENT: A\nACTION: CLICK\nVALUE: None";
    const step2 =
      "A. <input id=4 text where to? />\nB. <button id=5> Search </button>\nC. None of the other options match the correct element\nELEMENT: A\nACTION: TYPE\nVALUE: Lisbon";
    const r = extractSeeActAction({ output: `${step1}\n\nNext step\n\n${step2}` });
    expect(r).toMatchObject({ element: "A", action: "TYPE", value: "Lisbon", elementText: "text where to?" });
    expect(r.reason).toMatch(/last of 2 answers/);
  });

  it("skips the instruction template that precedes the answer", () => {
    const r = extractSeeActAction({
      output: `${MULTICHOICE}\n\n${TEMPLATE}\n\nELEMENT: B\nACTION: CLICK\nVALUE: None`,
    });
    expect(r).toMatchObject({ element: "B", action: "CLICK", value: null, confidence: "high" });
  });

  it("does not take the template for an answer when the answer is missing", () => {
    const r = extractSeeActAction({ output: `${MULTICHOICE}\n\n${TEMPLATE}` });
    expect(r.confidence).toBe("low");
    expect(r.action).not.toBe("CLICK");
  });

  it("gives low confidence and says why when parts are missing", () => {
    const noElement = extractSeeActAction({ output: "ACTION: CLICK\nVALUE: None" });
    expect(noElement).toMatchObject({ element: null, action: "CLICK", confidence: "low" });
    expect(noElement.reason).toMatch(/ELEMENT is missing/);
    const noAction = extractSeeActAction({ output: "ELEMENT: B" });
    expect(noAction).toMatchObject({ element: "B", action: null, confidence: "low" });
    const typeWithoutValue = extractSeeActAction({ output: "ELEMENT: B\nACTION: TYPE\nVALUE: None" });
    expect(typeWithoutValue.confidence).toBe("medium");
    expect(typeWithoutValue.reason).toMatch(/TYPE without a VALUE/);
  });

  it("flags letters that are not listed and the none-of-the-above option", () => {
    const unlisted = extractSeeActAction({
      output: `${MULTICHOICE}\nELEMENT: F\nACTION: CLICK\nVALUE: None`,
    });
    expect(unlisted).toMatchObject({ element: "F", elementChoice: null, confidence: "medium" });
    const none = extractSeeActAction({ output: `${MULTICHOICE}\nELEMENT: D\nACTION: CLICK\nVALUE: None` });
    expect(none.confidence).toBe("medium");
    expect(none.reason).toMatch(/none of the other options/);
  });

  it("keeps a described element as text", () => {
    const r = extractSeeActAction({
      output: "ELEMENT: The 'Search flights' button\nACTION: CLICK\nVALUE: None",
    });
    expect(r).toMatchObject({
      element: "The 'Search flights' button",
      elementText: "The 'Search flights' button",
    });
  });

  it("uses a choice list given separately", () => {
    const r = extractSeeActAction({ output: "ELEMENT: C\nACTION: CLICK\nVALUE: None", choices: MULTICHOICE });
    expect(r.elementText).toBe("Cancel");
  });

  it("answers none for text without an answer and for non-text", () => {
    expect(extractSeeActAction({ output: "The page shows a list of cars." }).confidence).toBe("none");
    expect(extractSeeActAction({ output: "" }).confidence).toBe("none");
    expect(extractSeeActAction({ output: 42 }).confidence).toBe("none");
    expect(extractSeeActAction({ output: null }).reason).toMatch(/not text/);
  });

  it("normalises action spellings", () => {
    expect(normalizeSeeActAction({ action: "press_enter" })).toEqual({ action: "PRESS ENTER", known: true });
    expect(normalizeSeeActAction({ action: "Click." })).toEqual({ action: "CLICK", known: true });
    expect(normalizeSeeActAction({ action: "CLICK on the Save button" })).toEqual({
      action: "CLICK",
      known: true,
    });
    expect(normalizeSeeActAction({ action: "drag" })).toEqual({ action: "DRAG", known: false });
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const r = extractSeeActAction({ output: s });
        expect(["high", "medium", "low", "none"]).toContain(r.confidence);
      }),
    );
  });

  it("reads back what formatSeeActAction writes", () => {
    const letter = fc.constantFrom("A", "B", "C", "Q", "AB");
    const action = fc.constantFrom("CLICK", "TYPE", "SELECT", "PRESS ENTER", "HOVER");
    const value = fc.option(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .$-]{0,20}[A-Za-z0-9]$/), {
      nil: null,
    });
    fc.assert(
      fc.property(letter, action, value, (element, act, val) => {
        fc.pre(val === null || !/^(none|null|n\/a|na|nil)$/i.test(val));
        const r = extractSeeActAction({ output: formatSeeActAction({ element, action: act, value: val }) });
        expect([r.element, r.action, r.value]).toEqual([element, act, val]);
      }),
    );
  });
});
