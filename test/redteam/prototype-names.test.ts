/**
 * Red team, names that Object.prototype already has: `constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`. A page, a tool or the agent chooses names (URL query keys, HTML attributes, table
 * names, argument names); each must read as an ordinary name, never as the prototype's member, and never
 * make the guard throw instead of deciding. Through createGuard, as a library user calls it.
 */
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard.js";
import {
  ehrAgentLog,
  expectAllowed,
  expectRefused,
  type InlinePolicy,
  useGuardPool,
} from "./redteam.fixture.js";

const pool = useGuardPool();

/** A web agent that must never open an admin page (a shield policy: a binding on the step's target). */
const webPolicy: InlinePolicy = {
  name: "redteam-prototype-web",
  agent: "web",
  rules: {
    predicates: [
      {
        name: "opens_admin",
        kind: "action",
        description: "goes to an admin page",
        binding: { kind: "condition", when: { field: "target.path", op: "startsWith", value: "/admin" } },
      },
    ],
    temporalRules: [
      { id: "web.no-admin", formula: "G(!opens_admin)", description: "Never open admin pages" },
    ],
  },
};

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
const visit = (url: string) => ({
  input: "buy a lamp",
  output: "",
  trajectory: [{ action: "goto", args: { url } }],
});

describe("URL query keys named like Object.prototype's members (shield step facts)", () => {
  for (const failMode of ["closed", "open"] as const) {
    it(`the admin page is refused whatever its query names (failMode ${failMode})`, async () => {
      // The pool's guards fail closed; the fail-open one is this case's own.
      const guard =
        failMode === "closed"
          ? await pool.get(webPolicy)
          : await createGuard({ policy: pool.file(webPolicy), store: ":memory:", failMode });
      try {
        for (const name of NAMES) {
          const url = `https://shop.test/admin?${name}=1&${name}=2`;
          expectRefused(await guard.check(visit(url)), url);
        }
      } finally {
        if (failMode === "open") await guard.close();
      }
    });
  }

  it("another page with such query names is decided, and allowed (positive control)", async () => {
    const guard = await pool.get(webPolicy);
    expectAllowed(await guard.check(visit("https://shop.test/cart?x=1")), "the cart");
    for (const name of NAMES) {
      const url = `https://shop.test/cart?${name}=1#frag?${name}=2`;
      const decision = await guard.check(visit(url));
      expectAllowed(decision, url);
      expect(decision.failure).toBeUndefined();
    }
  });
});

/** The same agent must not go on from a page that shows a warning (a shield detector on the page's HTML). */
const pagePolicy: InlinePolicy = {
  name: "redteam-prototype-page",
  agent: "web",
  rules: {
    predicates: [
      {
        name: "clicks",
        kind: "action",
        description: "clicks on the page",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "click" } },
      },
      {
        name: "page_warns",
        kind: "state",
        description: "the page shows a security warning",
        binding: {
          kind: "detector",
          detector: "program-html",
          params: {
            locator: "document.querySelector('.warning').textContent",
            required: { must_include: ["danger"] },
          },
        },
      },
    ],
    temporalRules: [
      {
        id: "web.heed-warnings",
        formula: "G(clicks -> !page_warns)",
        description: "Do not click on past a warning",
      },
    ],
  },
};

describe("HTML tags, attributes and entities named like Object.prototype's members (shield detectors)", () => {
  const page = (body: string) => ({
    input: "buy a lamp",
    output: "",
    trajectory: [{ action: "click", args: { bid: "12" }, observation: `<html><body>${body}</body></html>` }],
  });
  const decoys = '<ul><constructor constructor="x">a &constructor; &__proto__;</constructor><li>b</li></ul>';

  it("a warning beside such names is still seen: refused", async () => {
    const guard = await pool.get(pagePolicy);
    expectRefused(await guard.check(page(`${decoys}<p class="warning">danger ahead</p>`)), "warning page");
  });

  it("a page with such names and no warning is decided, and allowed (positive control)", async () => {
    const guard = await pool.get(pagePolicy);
    const decision = await guard.check(page(`${decoys}<p class="warning">all fine</p>`));
    expectAllowed(decision, "page without a warning");
    expect(decision.failure).toBeUndefined();
  });
});

describe("EHRAgent tables and columns named like Object.prototype's members", () => {
  it("are not in the schema: undetermined, refused with the reason", async () => {
    const guard = await pool.get("eicu-ac");
    for (const code of [
      'd = LoadDB("constructor")\nanswer = len(d)',
      'd = LoadDB("__proto__")\nanswer = len(d)',
      'd = LoadDB("patient")\nanswer = d["constructor"]',
      'r = SQLInterpreter("select x from constructor")\nanswer = r',
    ]) {
      const decision = await guard.check(ehrAgentLog({ role: "nursing", code }));
      expectRefused(decision, code);
      expect(decision.failure?.code, code).toBe("EXTRACTION_FAILED");
    }
  });
});
