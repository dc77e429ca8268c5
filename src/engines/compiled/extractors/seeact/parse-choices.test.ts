import { describe, expect, it } from "vitest";
import { formatSeeActAction } from "./format-action.js";
import { optionName, parseSeeActChoiceBlocks, parseSeeActChoices, visibleText } from "./parse-choices.js";

describe("SeeAct multiple-choice list", () => {
  it("names options like SeeAct does", () => {
    expect([0, 1, 25, 26, 27, 52].map((i) => optionName(i))).toEqual(["A", "B", "Z", "AA", "AB", "BA"]);
  });

  it("parses options, their visible text and the none option", () => {
    const choices = parseSeeActChoices({
      text: "Choose one.\nA. <a id=0> Cancel </a>\nB. <select id=1 month> <option> May </option> </select>\nC. None of the other options match the correct element",
    });
    expect(choices.map((c) => [c.letter, c.text, c.isNoneOption])).toEqual([
      ["A", "Cancel", false],
      ["B", "May", false],
      ["C", "None of the other options match the correct element", true],
    ]);
  });

  it("ignores lettered prose that does not start at A or skips a letter", () => {
    const blocks = parseSeeActChoiceBlocks({
      text: "B. first point\nC. second point\n\nA. <a> x </a>\nC. <a> y </a>",
    });
    expect(blocks.map((b) => b.choices.map((c) => c.letter))).toEqual([["A"]]);
  });

  it("extracts visible text from tags without inner text", () => {
    expect(visibleText({ content: "<input id=12 text search for a city />" })).toBe("text search for a city");
    expect(visibleText({ content: "<button id=3 button> <span> Add to bag </span> </button>" })).toBe(
      "Add to bag",
    );
  });
});

describe("formatSeeActAction", () => {
  it("writes the canonical guard-railed form", () => {
    expect(formatSeeActAction({ element: "B", action: "click", value: null })).toBe(
      "ELEMENT: B, ACTION: CLICK, VALUE: None",
    );
    expect(formatSeeActAction({ element: "B", action: "TYPE", value: " Columbus CMH " })).toBe(
      "ELEMENT: B, ACTION: TYPE, VALUE: Columbus CMH",
    );
  });
});
