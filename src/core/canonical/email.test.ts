import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalAddresses, splitAddressList } from "./email.js";

function addresses(value: unknown): string[] {
  const result = canonicalAddresses({ value });
  if (!result.ok) throw new Error(`undetermined: ${result.reason}`);
  return result.forms.map((f) => f.address);
}

function undetermined(value: unknown): string {
  const result = canonicalAddresses({ value });
  if (result.ok) throw new Error(`expected undetermined, got ${JSON.stringify(result.forms)}`);
  return result.reason;
}

describe("canonicalAddresses", () => {
  it.each([
    ['"Eve" <eve@evil.test>', ["eve@evil.test"]],
    ['"bob@good.com" <eve@evil.test>', ["eve@evil.test"]],
    ["bob@example.com, eve@evil.test", ["bob@example.com", "eve@evil.test"]],
    ["bob@example.com; eve@evil.test", ["bob@example.com", "eve@evil.test"]],
    ["a@example.com (comment)", ["a@example.com"]],
    ["a@example.com (comment, with eve@evil.test inside)", ["a@example.com"]],
    ["team: a@x.com, b@y.com;", ["a@x.com", "b@y.com"]],
    ["team: a@x.com, b@y.com;, c@z.com", ["a@x.com", "b@y.com", "c@z.com"]],
    ["team: a@x.com; c@z.com", ["a@x.com", "c@z.com"]],
    ["undisclosed-recipients:;", []],
    ["Bob@EXAMPLE.COM", ["bob@example.com"]],
    ["bob@example.com.evil.test", ["bob@example.com.evil.test"]],
    ["a@münchen.de", ["a@xn--mnchen-3ya.de"]],
    ["a@[192.0.2.1]", ["a@[192.0.2.1]"]],
    ['"bob"@x.com', ["bob@x.com"]],
    ['"bob smith"@x.com', ['"bob smith"@x.com']],
    ['"eve@evil.test"@good.com', ['"eve@evil.test"@good.com']],
    ["<@route.example:a@b.com>", ["a@b.com"]],
    ["a@b.com,,c@d.com, ", ["a@b.com", "c@d.com"]],
    ["", []],
    ["   ", []],
  ])("%j → %j", (value, expected) => {
    expect(addresses(value)).toEqual(expected);
  });

  it("records local part and domain separately", () => {
    expect(canonicalAddresses({ value: "Bob <Bob.Smith@Example.COM>" })).toEqual({
      ok: true,
      forms: [{ address: "bob.smith@example.com", local: "bob.smith", domain: "example.com" }],
    });
  });

  it("the domain of a quoted local part is the real one", () => {
    const result = canonicalAddresses({ value: '"eve@evil.test"@good.com' });
    expect(result.ok && result.forms[0]!.domain).toBe("good.com");
  });

  it("accepts an array of lists and removes duplicates", () => {
    expect(addresses(["a@x.com", "B@Y.COM; c@z.com", "a@X.com"])).toEqual(["a@x.com", "b@y.com", "c@z.com"]);
    expect(addresses([])).toEqual([]);
  });

  it.each([
    ["not an email"],
    ["bob@"],
    ["@example.com"],
    ["bob@good.com <eve@evil.test>"],
    ["team: a@x.com, b@y.com"],
    ['"unterminated@x.com'],
    ["a@x.com (unterminated"],
  ])("%j is undetermined", (value) => {
    expect(undetermined(value)).toMatch(/RFC 5322/);
  });

  it.each([[42], [null], [undefined], [{ to: "a@x.com" }], [["a@x.com", 1]]])("non-string %j", (value) => {
    expect(undetermined(value)).toMatch(/not a string/);
  });

  it("an over-long list or address is undetermined", () => {
    expect(undetermined("a@b.com, ".repeat(1000))).toMatch(/longer/);
    expect(undetermined(`${"a ".repeat(300)}<a@b.com>`)).toMatch(/longer/);
  });

  it("stays fast on pathological input", () => {
    const started = performance.now();
    canonicalAddresses({ value: `${"a(b)".repeat(120)},`.repeat(16) });
    canonicalAddresses({ value: `"${"a ".repeat(4000)}` });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("splitAddressList", () => {
  it("splits at top-level separators only", () => {
    expect(splitAddressList('"a, b" <a@x.com>, c@y.com (x; y); team: d@z.com, e@z.com;')).toEqual([
      '"a, b" <a@x.com>',
      " c@y.com (x; y)",
      " team: d@z.com, e@z.com;",
    ]);
  });
});

describe("canonicalAddresses properties", () => {
  const atom = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_+"), minLength: 1, maxLength: 6 });
  const domain = fc.array(atom, { minLength: 1, maxLength: 3 }).map((parts) => `${parts.join(".")}.test`);
  const address = fc.tuple(atom, domain).map(([local, d]) => `${local}@${d}`);
  const spelled = fc.tuple(address, fc.nat(4)).map(([a, style]) => {
    if (style === 1) return `"Some One" <${a}>`;
    if (style === 2) return `${a} (a comment)`;
    if (style === 3) return `Name <${a.toUpperCase()}>`;
    return a;
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: fc.constantFrom(...'ab@.,;:"()<>[]\\ é'), maxLength: 40 }),
          fc.anything(),
        ),
        (value) => {
          const result = canonicalAddresses({ value });
          if (!result.ok) expect(typeof result.reason).toBe("string");
        },
      ),
      { numRuns: 500 },
    );
  });

  it("finds every address of a list however it is spelled and separated", () => {
    fc.assert(
      fc.property(
        fc.array(spelled, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(", ", "; ", ","),
        (list, sep) => {
          const expected = [...new Set(list.map((s) => /[^\s<>"()]+@[^\s<>"()]+/.exec(s)![0].toLowerCase()))];
          expect(addresses(list.join(sep))).toEqual(expected);
          expect(addresses(list)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is idempotent: a canonical address canonicalises to itself", () => {
    fc.assert(
      fc.property(
        fc.oneof(spelled, fc.string({ unit: fc.constantFrom(...'ab@.,;:"() é\\'), maxLength: 30 })),
        (value) => {
          const result = canonicalAddresses({ value });
          if (!result.ok) return;
          for (const form of result.forms) expect(addresses(form.address)).toEqual([form.address]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
