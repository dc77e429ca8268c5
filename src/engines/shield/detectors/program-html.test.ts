import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { querySelector } from "./html/css-select.js";
import { innerText, parseHtml, textContent } from "./html/html-dom.js";
import { checkLocator, evaluateLocator } from "./html/locator.js";
import { matchesRequiredContents } from "./html/required-contents.js";
import { checkProgramHtml, programHtmlDetector } from "./program-html.js";

const PAGE = `<!doctype html><html><head><title>t</title><script>var x = "<b>";</script></head><body>
<form>
  <input type="radio" id="project_visibility_level_0">
  <input type="radio" id="project_visibility_level_20" checked>
  <input id="invite-members-modal-3_expires_at" value="2030-01-01">
  <input name='search-bar-term' value="">
  <select id="invite-members-modal-3_dropdown"><option>Guest<option>Reporter<option selected>Developer</select>
  <select name="lead_source"><option value="">--</option><option value="cold" selected>Cold Call</option></select>
  <div class="detail-view-field" data-name="status"><span class="detail-view-value"> Inactive </span></div>
  <label>First Name</label><div><input type="text" value="Jane"></div>
  <p>Record saved &amp; closed</p>
</form></body></html>`;

const run = (locator: string) => evaluateLocator({ locator, html: PAGE, root: parseHtml({ html: PAGE }) });

describe("html reading", () => {
  it("parses forgiving markup and reads text", () => {
    const root = parseHtml({ html: PAGE });
    expect(querySelector({ root, selector: "select[name='lead_source'] option:checked" })?.attrs.value).toBe(
      "cold",
    );
    expect(textContent({ node: querySelector({ root, selector: "p" })! })).toBe("Record saved & closed");
    expect(innerText({ node: root })).not.toContain("var x");
    expect(querySelector({ root, selector: "div:has(p)" })).toBeNull();
  });

  it("evaluates the benchmark's locator shapes", () => {
    expect(run("document.querySelector('#project_visibility_level_20').checked")).toEqual({
      ok: true,
      value: "true",
    });
    expect(run("document.querySelector('#project_visibility_level_0').checked")).toEqual({
      ok: true,
      value: "false",
    });
    expect(run("document.querySelector('#invite-members-modal-3_expires_at').value")).toEqual({
      ok: true,
      value: "2030-01-01",
    });
    expect(run(`document.querySelector("[name='search-bar-term']").value`)).toEqual({ ok: true, value: "" });
    expect(run("document.querySelector('#invite-members-modal-3_dropdown').selectedIndex")).toEqual({
      ok: true,
      value: "2",
    });
    expect(
      run(
        `document.querySelector("select[name='lead_source'] option:checked")?.textContent || document.querySelector(".detail-view-field[data-name='lead_source'] .detail-view-value")?.textContent || ''`,
      ),
    ).toEqual({ ok: true, value: "Cold Call" });
    expect(
      run(
        `document.querySelector("select[name='status'] option:checked")?.textContent || document.querySelector(".detail-view-field[data-name='status'] .detail-view-value")?.textContent || document.body.innerText.substring(0, 3000)`,
      ),
    ).toEqual({ ok: true, value: " Inactive " });
    expect(run("//label[contains(., 'First Name')]/following::input[1]")).toEqual({
      ok: true,
      value: "Jane",
    });
    const body = run("document.body.innerText");
    expect(body.ok && body.value.startsWith("Developer")).toBe(false);
    expect(run("document.body.innerText.substring(0, 12)")).toEqual({
      ok: true,
      value: body.ok ? body.value.slice(0, 12) : "",
    });
    // A property read on a missing element aborts the expression, as in a browser: the result is "".
    expect(run("document.querySelector('#missing').value || 'x'")).toEqual({ ok: true, value: "" });
  });

  it("refuses what it cannot evaluate honestly", () => {
    expect(checkLocator({ locator: "func:shopping_get_latest_order_url()" }).ok).toBe(false);
    expect(checkLocator({ locator: "#invite-members-modal-3_expires_at" }).ok).toBe(false);
    expect(checkLocator({ locator: "document.querySelector('a').click()" }).ok).toBe(false);
    expect(checkLocator({ locator: "window.location.href" }).ok).toBe(false);
    expect(
      checkLocator({
        locator: "document.querySelector('.x')?.textContent || document.querySelector('div:has(a)').value",
      }).ok,
    ).toBe(false);
  });

  it("tests required contents like the benchmark", () => {
    expect(matchesRequiredContents({ text: " 'True' ", required: { exact_match: "true" } })).toBe(true);
    expect(matchesRequiredContents({ text: "", required: { not_empty: "" } })).toBe(false);
    expect(
      matchesRequiredContents({
        text: "Sales Stage: Prospecting",
        required: { must_include: ["prospect |OR| qualif", "stage"] },
      }),
    ).toBe(true);
    expect(matchesRequiredContents({ text: "Sales", required: { must_include: ["stage"] } })).toBe(false);
  });
});

describe("program-html detector", () => {
  const facts = (observation: string | undefined, url?: string) =>
    buildStepFacts({ step: { action: "answer", args: {}, observation, url }, index: 0 });

  it("answers from the observed page", () => {
    const params = {
      locator: "document.querySelector('#project_visibility_level_20').checked",
      required: { exact_match: "true" },
    };
    expect(programHtmlDetector.detect({ facts: facts(PAGE), params, field: undefined })).toBe(true);
    expect(
      programHtmlDetector.detect({ facts: facts(PAGE.replace(" checked>", ">")), params, field: undefined }),
    ).toBe(false);
  });

  it("cannot tell without HTML, for other pages, or for unsupported locators", () => {
    const params = { locator: "document.querySelector('#x').value", required: { not_empty: "" } };
    expect(programHtmlDetector.detect({ facts: facts(undefined), params, field: undefined })).toBeUndefined();
    expect(
      programHtmlDetector.detect({ facts: facts("plain page text"), params, field: undefined }),
    ).toBeUndefined();
    expect(
      programHtmlDetector.detect({
        facts: facts(PAGE, "http://a.test/x"),
        params: { ...params, url: "http://a.test/y" },
        field: undefined,
      }),
    ).toBeUndefined();
    expect(
      checkProgramHtml({ observation: PAGE, locator: "func:helper()", required: { not_empty: "" } }),
    ).toBeUndefined();
  });

  it("reads plain-text pages for text-only locators", () => {
    const params = {
      locator: "document.body.innerText.substring(0, 3000)",
      required: { must_include: ["Inactive"] },
    };
    expect(programHtmlDetector.detect({ facts: facts("Status: Inactive"), params, field: undefined })).toBe(
      true,
    );
    expect(
      programHtmlDetector.detect({
        facts: facts("Status: Active"),
        params: { locator: "", required: { must_include: ["inactive"] } },
        field: undefined,
      }),
    ).toBe(false);
  });
});
