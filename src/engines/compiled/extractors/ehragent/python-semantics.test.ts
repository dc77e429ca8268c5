import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractEhrAgentAccess } from "./extract.js";
import { formatStrSpec, percentStrConversion, pythonStrRepr } from "./py-format.js";

const lines = (...code: string[]) => code.join("\n");

/** The columns of `lab` the code reads, when the extraction is certain (else "undetermined"). */
function labColumns(...code: string[]): string[] | "undetermined" {
  const result = extractEhrAgentAccess({ code: lines(...code) });
  if (result.confidence !== "high") return "undetermined";
  return result.tables.lab ?? [];
}

/** The read CPython makes must be reported (a superset is fine), or the extraction is undetermined. */
function expectCovers(code: string[], column: string): void {
  const got = labColumns(...code);
  if (got !== "undetermined") expect(got, code.join("\n")).toContain(column);
}

describe("Python semantics the interpreter follows (each case a bypass of issue 9)", () => {
  it("global and nonlocal writes", () => {
    expect(
      labColumns(
        "c = 'labname'",
        "def f():",
        "    global c",
        "    c = 'labresult'",
        "f()",
        "answer = GetValue(LoadDB('lab'), c)",
      ),
    ).toContain("labresult");
    expect(
      labColumns(
        "def f():",
        "    c = 'labname'",
        "    def g():",
        "        nonlocal c",
        "        c = 'labresult'",
        "    g()",
        "    return c",
        "answer = GetValue(LoadDB('lab'), f())",
      ),
    ).toContain("labresult");
  });

  it("a comprehension inside a branch reads the branch's variables", () => {
    expect(
      labColumns(
        "c = 'labname'",
        "import random",
        "if random.random() > 0.5:",
        "    c = 'labresult'",
        "    x = [GetValue(LoadDB('lab'), c) for _ in [1]]",
      ),
    ).toEqual(["labresult"]);
  });

  it("in-place mutation of lists and dicts", () => {
    const cases: [string[], string][] = [
      [
        ["cols = ['labresult', 'labname']", "cols.reverse()", "answer = GetValue(LoadDB('lab'), cols[1])"],
        "labresult",
      ],
      [
        [
          "cols = ['labname', 'labresult']",
          "cols.remove('labname')",
          "answer = GetValue(LoadDB('lab'), cols[0])",
        ],
        "labresult",
      ],
      [
        ["cols = ['labname', 'labresult']", "del cols[0]", "answer = GetValue(LoadDB('lab'), cols[0])"],
        "labresult",
      ],
      [
        ["cols = ['labname', 'labresult']", "cols.pop(0)", "answer = GetValue(LoadDB('lab'), cols[0])"],
        "labresult",
      ],
      [
        ["cols = ['labname']", "cols[0] = 'labresult'", "answer = GetValue(LoadDB('lab'), cols[0])"],
        "labresult",
      ],
      [
        [
          "cols = ['labname']",
          "cols.sort()",
          "cols.insert(0, 'labresult')",
          "answer = GetValue(LoadDB('lab'), cols[0])",
        ],
        "labresult",
      ],
      [
        ["a = ['labname']", "b = a", "b += ['labresult']", "answer = GetValue(LoadDB('lab'), a[-1])"],
        "labresult",
      ],
      [
        ["d = {'k': 'labname'}", "d['k'] = 'labresult'", "answer = GetValue(LoadDB('lab'), d['k'])"],
        "labresult",
      ],
      [
        ["d = {'k': 'labname'}", "d.update(k='labresult')", "answer = GetValue(LoadDB('lab'), d['k'])"],
        "labresult",
      ],
      [
        ["d = {'k': 'labname'}", "d.update({'k': 'labresult'})", "answer = GetValue(LoadDB('lab'), d['k'])"],
        "labresult",
      ],
      [
        ["d = {'k': 'labname'}", "d.pop('k')", "answer = GetValue(LoadDB('lab'), d.get('k', 'labresult'))"],
        "labresult",
      ],
      [["d = {}", "d.setdefault('k', 'labresult')", "answer = GetValue(LoadDB('lab'), d['k'])"], "labresult"],
    ];
    for (const [code, column] of cases) expectCovers(code, column);
  });

  it("duplicate dict keys keep the last value", () => {
    expect(labColumns("answer = GetValue(LoadDB('lab'), {'k': 'labname', 'k': 'labresult'}['k'])")).toEqual([
      "labresult",
    ]);
    expect(
      labColumns("answer = GetValue(LoadDB('lab'), {**{'k': 'labname'}, 'k': 'labresult'}['k'])"),
    ).toEqual(["labresult"]);
  });

  it("break, continue and else on loops", () => {
    expect(
      labColumns(
        "for v in ['labname', 'labresult', 'labid']:",
        "    if v == 'labresult':",
        "        break",
        "answer = GetValue(LoadDB('lab'), v)",
      ),
    ).toEqual(expect.arrayContaining(["labname", "labresult", "labid"]));
    expect(
      labColumns(
        "r = 'labname'",
        "for v in ['labresult', 'labname']:",
        "    if v != 'labresult':",
        "        continue",
        "    r = v",
        "answer = GetValue(LoadDB('lab'), r)",
      ),
    ).toContain("labresult");
    // The else block does not run when the loop is left by break.
    expect(
      labColumns(
        "c = 'labname'",
        "while True:",
        "    c = 'labresult'",
        "    break",
        "else:",
        "    c = 'labid'",
        "answer = GetValue(LoadDB('lab'), c)",
      ),
    ).toContain("labresult");
    // A list changed in place by one pass is seen by the next (the loop runs until nothing changes).
    expectCovers(
      [
        "cols = ['labname']",
        "for x in GetValue(LoadDB('patient'), 'age, list'):",
        "    GetValue(LoadDB('lab'), cols[-1])",
        "    cols.append('labresult')",
      ],
      "labresult",
    );
    // A loop whose variable changes on every pass widens to unknown: undetermined, not a guess.
    expect(
      labColumns("c = 'lab'", "for x in range(n):", "    c = c + 'x'", "answer = GetValue(LoadDB('lab'), c)"),
    ).toBe("undetermined");
  });

  it("string formatting with format specs, conversions and printf flags", () => {
    expect(labColumns("answer = GetValue(LoadDB('lab'), '{:.9}'.format('labresulttime'))")).toEqual([
      "labresult",
    ]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), '{0:.9s}'.format('labresulttime'))")).toEqual([
      "labresult",
    ]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), '%.9s' % 'labresulttime')")).toEqual(["labresult"]);
    expect(labColumns("x = 'labresulttime'", "answer = GetValue(LoadDB('lab'), f'{x:.9}')")).toEqual([
      "labresult",
    ]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), format('labresulttime', '.9'))")).toEqual([
      "labresult",
    ]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), 'ge'.rjust(3, 'l') + 'bname')")).toBe("undetermined");
    expect(labColumns("answer = GetValue(LoadDB('lab'), 'labname'.rjust(9, 'x').strip('x'))")).toEqual([
      "labname",
    ]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), 'xxlabidxx'.strip('x'))")).toEqual(["labid"]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), 'labname'.center(10, '*').strip('*'))")).toEqual([
      "labname",
    ]);
    expect(labColumns("answer = GetValue(LoadDB('lab'), 'labXname'.replace('X', '', 1))")).toBe(
      "undetermined",
    );
    // `!r` quotes: the column name is not "labname" but "'labname'", which names no column.
    expect(labColumns("answer = GetValue(LoadDB('lab'), '{!r}'.format('labname'))")).toBe("undetermined");
  });

  it("identifiers are NFKC-normalised as Python does", () => {
    expect(labColumns("answer = ＧｅｔＶａｌｕｅ(ＬｏａｄＤＢ('lab'), 'labresult')")).toEqual(["labresult"]);
    expect(labColumns("ｃｏｌ = 'labresult'", "answer = GetValue(LoadDB('lab'), col)")).toEqual([
      "labresult",
    ]);
  });

  it("SQLite identifier quoting and table reads with no column", () => {
    const sql = (query: string) =>
      extractEhrAgentAccess({ code: `answer = SQLInterpreter(${JSON.stringify(query)})` });
    expect(sql('select "age" from patient').tables).toEqual({ patient: ["age"] });
    expect(sql("select `age` from patient").tables).toEqual({ patient: ["age"] });
    expect(sql('select labname from lab where labname = "labresult"').tables.lab).toContain("labresult");
    // A double-quoted text that names no column is a string in SQLite: the table is still read.
    expect(sql('select "nocolumn" from patient').tables).toEqual({ patient: [] });
    expect(sql("select [age] from patient").confidence).toBe("low");
    // SQL functions outside SQLite's built-ins may reach outside the database (readfile, load_extension).
    expect(sql("select readfile('/data/eicu/diagnosis.csv')").confidence).toBe("low");
    expect(sql("select load_extension('x')").confidence).toBe("low");
    expect(sql("select strftime('%Y', labresulttime) from lab").confidence).toBe("high");
    expect(sql("select count(*) from diagnosis").tables).toEqual({ diagnosis: [] });
    expect(sql("select 1 from diagnosis").tables).toEqual({ diagnosis: [] });
  });
});

describe("py-format: CPython's text formatting", () => {
  it("formats text with [[fill]align][width][.precision][s] and refuses the rest", () => {
    expect(formatStrSpec({ text: "labresulttime", spec: ".9" })).toBe("labresult");
    expect(formatStrSpec({ text: "ab", spec: ">5" })).toBe("   ab");
    expect(formatStrSpec({ text: "ab", spec: "*^6" })).toBe("**ab**");
    expect(formatStrSpec({ text: "ab", spec: "^5" })).toBe(" ab  ");
    expect(formatStrSpec({ text: "ab", spec: "5" })).toBe("ab   ");
    expect(formatStrSpec({ text: "ab", spec: "05" })).toBeNull();
    expect(formatStrSpec({ text: "ab", spec: "+" })).toBeNull();
    expect(formatStrSpec({ text: "ab", spec: "d" })).toBeNull();
    expect(percentStrConversion({ text: "labresulttime", flags: "-", width: "12", precision: "3" })).toBe(
      "lab         ",
    );
  });

  it("quotes like repr()", () => {
    expect(pythonStrRepr({ text: "age" })).toBe("'age'");
    expect(pythonStrRepr({ text: "it's" })).toBe(`"it's"`);
    expect(pythonStrRepr({ text: `it's "x"` })).toBe(`'it\\'s "x"'`);
    expect(pythonStrRepr({ text: "a\nb\\" })).toBe("'a\\nb\\\\'");
    expect(pythonStrRepr({ text: "\u0001" })).toBe("'\\x01'");
    expect(pythonStrRepr({ text: "é", ascii: true })).toBeNull();
  });

  it("precision never lengthens and width never shortens the text", () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(40), fc.nat(40), (text, width, precision) => {
        const out = formatStrSpec({ text, spec: `${width}.${precision}` });
        if (String(width).startsWith("0")) return;
        expect(out).not.toBeNull();
        const cut = [...text].slice(0, precision).join("");
        expect(out!.startsWith(cut)).toBe(true);
        expect([...out!].length).toBe(Math.max(width, [...cut].length));
      }),
    );
  });
});
