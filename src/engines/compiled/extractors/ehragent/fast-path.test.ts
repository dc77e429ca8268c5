/**
 * The fast path against the general path (tokenizer, parser, abstract interpreter): on every program
 * the fast path answers, its answer must be exactly the general path's. Generated EHRAgent-style
 * programs (fast-check), random edits of them, hand-picked edge cases and, when the data is present,
 * every code block of the EICU-AC logs with variants.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractEhrAgentAccess, extractEhrAgentAccessGeneral } from "./extract.js";
import { fastEhrAgentAccess } from "./fast-path.js";
import { parseEhrAgentLog } from "./log.js";
import { EICU_SCHEMA, normalizeSchema } from "./schema.js";

const general = (code: string) => extractEhrAgentAccessGeneral({ code, schema: EICU_SCHEMA });
const fast = (code: string) => fastEhrAgentAccess({ code, schema: EICU_SCHEMA });

/**
 * The fast path's answer, when it gives one, is the general path's, and extractEhrAgentAccess returns it;
 * returns whether it gave one. (When it gives none, extractEhrAgentAccess is the general path itself.
 * Two runs of the general path are not compared: the text of an "internal analysis error" it reports,
 * e.g. for LoadDB('constructor'), can change once V8 optimises the code.)
 */
function agrees(code: string): boolean {
  const quick = fast(code);
  if (quick === null) return false;
  const slow = general(code);
  // extractEhrAgentAccess answers code with nothing but white space before the fast path runs.
  if (/\S/.test(code)) expect(quick, code).toEqual(slow);
  expect(extractEhrAgentAccess({ code, schema: EICU_SCHEMA }), code).toEqual(slow);
  return true;
}

// ------------------------------------------------------------------------------ a generator of programs

/** Variable names, with a few that stress binding: builtins, toolbox functions, keywords, constants. */
const variable = fc.oneof(
  {
    weight: 24,
    arbitrary: fc.constantFrom("db", "patient_db", "filtered_db", "pid", "x", "y", "rows", "answer"),
  },
  { weight: 1, arbitrary: fc.constantFrom("id", "len", "LoadDB", "True", "None", "if", "sum", "str") },
);
/** The table argument of FilterDB and GetValue: mostly the prelude's table handles. */
const tableVariable = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("db", "patient_db", "filtered_db") },
  { weight: 1, arbitrary: variable },
);
const table = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.constantFrom("patient", "lab", "medication", "diagnosis", "cost", "treatment"),
  },
  { weight: 1, arbitrary: fc.constantFrom("Lab", " lab ", "nosuch", "constructor", "") },
);
const column = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.constantFrom(
      "patientunitstayid",
      "uniquepid",
      "labname",
      "labresult",
      "drugname",
      "cost",
      "hospitaladmittime",
      "diagnosisname",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom("LabName", "nosuch", "age", "x1", "") },
);
const operator = fc.constantFrom("=", ">", "<=", "!=", " like ", " in ", "==", "<>", "");
const conditionPart = fc
  .oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(
        column,
        operator,
        fc.constantFrom("1", "a b", "{}", "2105-01-01", "x=y", "{{}}", "{0}", "{1}", "}", "{", "{}{}"),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom("max(", "min(", "MAX( ", "count("), column, fc.constant(")")),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom("{}", " ", "datetime("), column, fc.constantFrom(")", "=3")),
    },
  )
  .map((parts) => parts.join(""));
const condition = fc.array(conditionPart, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("||"));
const getValueArgument = fc
  .tuple(column, fc.constantFrom("", ", list", ", max", ", sum", "{}", " , min", "count("))
  .map(([c, rest]) => c + rest);
const quote = fc.constantFrom("'", '"');
/** A string argument: literal, .format of names, or an f-string with a field. */
const text = (body: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(quote, body).map(([q, b]) => `${q}${b.replaceAll(q, "")}${q}`) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(body, fc.array(variable, { minLength: 1, maxLength: 2 }))
        .map(([b, args]) => `'${b.replaceAll("'", "")}'.format(${args.join(", ")})`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(body, variable)
        .map(([b, v]) => `f'${b.replaceAll("'", "").replaceAll("{}", `{${v}}`)}'`),
    },
    { weight: 1, arbitrary: fc.tuple(body, variable).map(([b, v]) => `'${b.replaceAll("'", "")}' + ${v}`) },
  );
const expression = fc.oneof(
  { weight: 3, arbitrary: table.map((t) => `LoadDB('${t}')`) },
  { weight: 3, arbitrary: fc.tuple(tableVariable, text(condition)).map(([d, c]) => `FilterDB(${d}, ${c})`) },
  {
    weight: 3,
    arbitrary: fc.tuple(tableVariable, text(getValueArgument)).map(([d, a]) => `GetValue(${d}, ${a})`),
  },
  { weight: 2, arbitrary: variable },
  { weight: 1, arbitrary: fc.constantFrom("0", "1", "-1", "2.5", "'text'", "''", "[]", "True", "None") },
  {
    weight: 1,
    arbitrary: fc
      .tuple(variable, fc.constantFrom(" + ", " - ", " > ", " == ", " and ", " or ", " % ", " * "), variable)
      .map((p) => p.join("")),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("len", "int", "float", "str", "max", "print", "isinstance", "Calendar", "strptime"),
        variable,
      )
      .map(([f, v]) => (f === "isinstance" ? `isinstance(${v}, str)` : `${f}(${v})`)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(variable, fc.constantFrom("empty", "year", "labname", "values", "iloc", "shape"))
      .map(([v, a]) => `${v}.${a}`),
  },
  { weight: 1, arbitrary: fc.tuple(variable, column).map(([v, c]) => `${v}['${c}']`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        variable,
        fc.constantFrom("tolist()", "iterrows()", "unique()", "isin(x)", "total_seconds()", "strip()"),
      )
      .map(([v, m]) => `${v}.${m}`),
  },
  { weight: 1, arbitrary: fc.tuple(variable, variable).map(([a, b]) => `datetime.strptime(${a}, ${b})`) },
  {
    weight: 1,
    arbitrary: fc.tuple(variable, fc.constantFrom("[0]", "[-1]", "[:7]", "['x']")).map(([v, s]) => v + s),
  },
);
/** Operators and calls whose results the fast path follows, on names and literals. */
const smallExpression = fc.oneof(
  fc.tuple(fc.constantFrom("-", "not ", "+"), variable).map(([op, v]) => op + v),
  fc
    .tuple(variable, fc.constantFrom(" ** 2", " is not None", " not in y", " < y < 3", " // 2", " in y"))
    .map((p) => p.join("")),
  fc
    .tuple(
      fc.constantFrom("int", "float", "str", "repr", "max", "min", "abs", "bool"),
      fc.constantFrom("'5'", "'x'", "2.5", "x", "x, y", ""),
    )
    .map(([f, a]) => `${f}(${a})`),
  fc.constantFrom(
    "(x)",
    "f'{{{x}}}'",
    "f'a{x}b{y}'",
    "str(db)",
    "db.labname",
    "db['labname'].values[0]",
    "db.labname.str.contains('a')",
    "db['labname'].tolist()",
    "db[x > 1]",
    "rows.labname",
    "rows['labname']",
    "len(db)",
    "db.empty",
    "x.year - 1",
    "'{}'.format(db)",
    "'{}'.format(rows)",
    "'a' * 3",
    "x + 'a'",
    "Calendar('-1 year') + 'x'",
    "db.itertuples()",
    "db['labname'].astype(int)",
    "db['labname'].unique()",
    "db['labname'].head()",
    "'{}'.format([])",
    "str([])",
    "max([])",
    "-5",
    "-(-2.5)",
    "Calculate('1+1')",
    "int('5') + 1",
    "f'{x}' + 'y'",
    "rows['{}'.format(x)]",
    "rows.name",
    "'{0}{1}{0}'.format(x, 'a')",
    "len(set(x) & set(y))",
    "x & y",
    "x < y & 1",
    "list(x)",
    "list([])",
    "tuple()",
    "set(db)",
    "reversed(rows)",
    "[] & db",
  ),
);

const simpleStatement = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(variable, smallExpression).map(([v, e]) => `${v} = ${e}`) },
  { weight: 8, arbitrary: fc.tuple(variable, expression).map(([v, e]) => `${v} = ${e}`) },
  {
    weight: 1,
    arbitrary: fc.tuple(variable, fc.constantFrom("+=", "-="), expression).map((p) => p.join(" ")),
  },
  { weight: 1, arbitrary: fc.tuple(variable, variable).map(([l, v]) => `${l}.append(${v})`) },
  { weight: 1, arbitrary: expression },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "pass",
      "break",
      "continue",
      "from datetime import datetime",
      "from os import path as p, sep",
      "import pandas as pd, numpy",
      "import os.path",
      "from collections import *",
      "# a comment",
      "",
    ),
  },
);

interface Block {
  header: string;
  body: Line[];
  tail?: { header: string; body: Line[] };
}
type Line = string | Block;

const line: fc.Arbitrary<Line> = fc.letrec<{ line: Line; block: Block }>((tie) => ({
  line: fc.oneof({ weight: 6, arbitrary: simpleStatement }, { weight: 1, arbitrary: tie("block") }),
  block: fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc
            .tuple(variable, fc.constantFrom(" > 0", " == 1", "", " in x"))
            .map(([v, t]) => `if len(${v})${t}:`),
          fc.array(tie("line"), { minLength: 1, maxLength: 3 }),
          fc.option(
            fc.tuple(
              fc.constantFrom("else:", "elif x:"),
              fc.array(tie("line"), { minLength: 1, maxLength: 2 }),
            ),
          ),
        )
        .map(([header, body, tail]) =>
          tail ? { header, body, tail: { header: tail[0], body: tail[1] } } : { header, body },
        ),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.tuple(variable, variable).map(([t, v]) => `for ${t} in ${v}:`),
            fc.tuple(variable, variable, variable).map(([a, b, v]) => `for ${a}, ${b} in ${v}:`),
            fc.tuple(variable, variable).map(([t, v]) => `for ${t} in ${v}.itertuples():`),
            fc.tuple(variable, variable, variable).map(([i, r, v]) => `for ${i}, ${r} in ${v}.iterrows():`),
          ),
          fc.array(tie("line"), { minLength: 1, maxLength: 3 }),
        )
        .map(([header, body]) => ({ header, body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.array(tie("line"), { minLength: 1, maxLength: 2 }),
          fc.constantFrom("except:", "except Exception as e:", "except ValueError:", "finally:"),
          fc.array(tie("line"), { minLength: 1, maxLength: 2 }),
        )
        .map(([body, handler, rest]) => ({ header: "try:", body, tail: { header: handler, body: rest } })),
    },
  ),
})).line;

function render(lines: readonly Line[], indent: string, unit: string): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (typeof l === "string") {
      out.push(indent + l);
      continue;
    }
    out.push(indent + l.header, ...render(l.body, indent + unit, unit));
    if (l.tail) out.push(indent + l.tail.header, ...render(l.tail.body, indent + unit, unit));
  }
  return out;
}

const program = fc
  .tuple(
    fc.array(line, { minLength: 1, maxLength: 8 }),
    fc.constantFrom("    ", "\t", "  "),
    fc.constantFrom("\n", "\r\n"),
    fc.option(fc.constantFrom("answer", "print(answer)", "x")),
  )
  .map(([lines, unit, newline, last]) => [...render(lines, "", unit), ...(last ? [last] : [])].join(newline));

/**
 * Programs of the shapes the fast path reads (and EHRAgent writes most): it should answer most of them,
 * so that the property holds the two paths to the same answers where the fast path actually answers.
 */
const handle = fc.constantFrom("db", "patient_db", "filtered_db");
const name = fc.constantFrom("db", "patient_db", "filtered_db", "pid", "x", "y", "answer");
const sharedColumn = fc.constantFrom("patientunitstayid", "PatientUnitStayId");
const usualStatement = fc.oneof(
  fc.tuple(name, fc.constantFrom("patient", "lab")).map(([v, t]) => `${v} = LoadDB('${t}')`),
  fc
    .tuple(
      name,
      handle,
      sharedColumn,
      fc.constantFrom("={}", ">{}", " in {}", "=3||max(patientunitstayid)"),
      name,
    )
    .map(([v, d, c, op, a]) => `${v} = FilterDB(${d}, '${c}${op}'.format(${a}))`),
  fc
    .tuple(name, handle, sharedColumn, fc.constantFrom("", ", list", ", max"))
    .map(([v, d, c, rest]) => `${v} = GetValue(${d}, '${c}${rest}')`),
  fc.tuple(name, name).map(([v, w]) => `${v} = ${w}`),
  fc
    .tuple(name, fc.constantFrom("0", "'text'", "[]", "len(x)", "x > 1", "x + 1", "datetime.now().year"))
    .map(([v, e]) => `${v} = ${e}`),
  fc.constantFrom("print(answer)", "answer += 1", "# note", ""),
);
const usualProgram = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: usualStatement.map((l) => [l]) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom("if len(x) > 0:", "for p in pid:", "for i, row in db.iterrows():", "try:"),
            fc.array(usualStatement, { minLength: 1, maxLength: 3 }),
          )
          .map(([header, body]) => [
            header,
            ...body.map((l) => `    ${l}`),
            ...(header === "try:" ? ["except:", "    pass"] : []),
          ]),
      },
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((blocks) => blocks.flat().join("\n"));

// A realistic start, so that generated programs often hold tables and columns worth reading.
const prelude =
  "patient_db = LoadDB('patient')\n" +
  "filtered_db = FilterDB(patient_db, 'uniquepid=027-1||max(hospitaladmittime)')\n" +
  "pid = GetValue(filtered_db, 'patientunitstayid')\n" +
  "db = LoadDB('lab')\n";

describe("fastEhrAgentAccess agrees with the general path", () => {
  it("on generated programs of the usual shapes (property)", () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(usualProgram, (code) => {
        runs++;
        if (agrees(prelude + code)) answered++;
      }),
      { numRuns: 2000 },
    );
    expect(answered / runs).toBeGreaterThan(0.5);
  });

  it("on generated EHRAgent-style programs (property)", () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(program, fc.boolean(), (code, withPrelude) => {
        runs++;
        if (agrees(withPrelude ? prelude + code : code)) answered++;
      }),
      { numRuns: 2500 },
    );
    // Real programs mix in statements the fast path leaves to the general path; still, it answers some.
    expect(answered / runs).toBeGreaterThan(0.1);
  });

  it("on random edits of generated programs (property)", () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.nat({ max: 3 }),
      fc.constantFrom(
        "",
        "'",
        '"',
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        ".",
        ":",
        "=",
        "+",
        "#",
        "\n",
        "\t",
        " ",
        "\\",
        "||",
        "x",
        "é",
        "\u00a0",
        "\uffff",
        "\u0000",
        "f'",
        "0",
      ),
    );
    fc.assert(
      fc.property(program, fc.array(edit, { minLength: 1, maxLength: 3 }), (code, edits) => {
        let text = prelude + code;
        for (const [at, remove, insert] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + remove);
        }
        agrees(text);
      }),
      { numRuns: 2500 },
    );
  });

  it("on hand-picked programs at the edges of what it reads", () => {
    const programs = [
      // Plain EHRAgent code, with format, f-strings, comments and a trailing expression.
      `${prelude}x = FilterDB(db, 'patientunitstayid={}||labname=bun'.format(pid))\nanswer = GetValue(x, 'labresult, max')`,
      `${prelude}x = FilterDB(db, f'patientunitstayid={pid}||labname=x')  # comment\nanswer = x`,
      `${prelude}answer = filtered_db\nanswer`,
      `${prelude}print(filtered_db)`,
      `${prelude}x = FilterDB(db, '{{}}{}={}'.format(pid, pid))`,
      `${prelude}x = FilterDB(db, '{0}=1'.format('labname'))`,
      `${prelude}x = FilterDB(db, '{name}=1'.format(pid))`,
      `${prelude}x = FilterDB(db, 'labname in {}'.format(pid))`,
      `${prelude}x = FilterDB(db, 'datetime(labresulttime) > 1')`,
      `${prelude}x = FilterDB(db, '  ||labname=1|| ||')`,
      `${prelude}x = FilterDB(db, '{}=1'.format(pid))`,
      `${prelude}x = GetValue(db, ' LabResult , max')`,
      `${prelude}x = GetValue(db, 'max(labresult)')`,
      `${prelude}x = GetValue(db, '{}'.format(pid))`,
      // Blocks: if/elif/else, loops, try, iterrows, rows and columns.
      `${prelude}if len(pid) > 0:\n    answer = 1\nelif pid:\n    answer = 'a'\nelse:\n    answer = filtered_db`,
      `${prelude}total = 0\nfor p in pid:\n    y = GetValue(FilterDB(db, 'patientunitstayid={}'.format(p)), 'labresult')\n    total += y\nanswer = total`,
      `${prelude}ids = []\nfor p in pid:\n\tids.append(GetValue(filtered_db, 'uniquepid'))\nanswer = ids`,
      `${prelude}for i, row in db.iterrows():\n    answer = row['labname']\nanswer = row`,
      `${prelude}for row in db:\n    x = row.labresult\n`,
      `${prelude}try:\n    x = FilterDB(db, 'labname=1')\nexcept Exception as e:\n    x = 0\nanswer = x`,
      `${prelude}v = db['labname'].values[0]\nanswer = v`,
      `${prelude}v = db.labname.str.contains('a')`,
      `${prelude}x = 'a' if pid else 'b'`,
      // Syntax the parser rejects, and shapes left to the general path.
      `${prelude}if x:\nanswer = 1`,
      `${prelude}  x = 1`,
      `${prelude}if x:\n    a = 1\n  b = 2`,
      `${prelude}x = 'unterminated`,
      `${prelude}x = (1,\n 2)`,
      `${prelude}def f():\n    return LoadDB('lab')\nanswer = f()`,
      `${prelude}LoadDB = 5\nx = LoadDB('lab')`,
      `${prelude}None = 1`,
      `${prelude}x = SQLInterpreter('select * from lab')`,
      `${prelude}x = {}\nx['a'] = FilterDB(db, 'labname=1')`,
      // The character that marks a hole inside the fast path (NUL), and other unusual ones, in the code.
      `${prelude}x = FilterDB(db, 'labname=\u0000')\nanswer = GetValue(x, 'labresult')`,
      `${prelude}x = FilterDB(db, 'labname=\uffff||patientunitstayid={}'.format(pid))`,
      `${prelude}x = GetValue(db, '\u0000labresult')`,
      `${prelude}x = '{}\u0000'.format(pid)\ny = FilterDB(db, x)`,
      "",
      "   \n\t",
      "# only a comment",
      "x = 1\r\ny = 2\r",
    ];
    let answered = 0;
    for (const code of programs) if (agrees(code)) answered++;
    expect(answered).toBeGreaterThan(programs.length / 2);
  });

  it("resolves names against a caller's schema as the general path does", () => {
    const schema = normalizeSchema({ schema: { Visits: ["VisitId", "Ward"], notes: ["text"] } });
    for (const code of [
      "v = LoadDB('visits')\nanswer = GetValue(FilterDB(v, 'ward=3'), 'visitid')",
      "v = LoadDB('Visits ')\nanswer = v",
      "v = LoadDB('lab')",
    ]) {
      const quick = fastEhrAgentAccess({ code, schema });
      const slow = extractEhrAgentAccessGeneral({ code, schema });
      if (quick !== null) expect(quick).toEqual(slow);
      expect(extractEhrAgentAccess({ code, schema })).toEqual(slow);
    }
  });

  it("answers the usual shapes itself", () => {
    expect(fast(`${prelude}answer = GetValue(filtered_db, 'gender')`)).toEqual({
      tables: { patient: ["gender", "hospitaladmittime", "patientunitstayid", "uniquepid"] },
      wholeTables: [],
      confidence: "high",
      unresolved: [],
      errors: [],
    });
    // And gives up, rather than guess, on what it does not model.
    expect(fast(`${prelude}x = sorted(pid, key=lambda v: v)`)).toBeNull();
    expect(fast(`${prelude}x = FilterDB(db, 'nosuch=1')`)).toBeNull();
  });
});

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");
const logDir = resolve(repoRoot, "../shared/datasets/eicu-ac/ehragent_logs");
const present = existsSync(logDir);

describe.skipIf(!present)(
  `fastEhrAgentAccess on the EICU-AC logs${present ? "" : ` (skipped: no data at ${logDir})`}`,
  () => {
    it("agrees with the general path on every code block and on variants of it", () => {
      let blocks = 0;
      let answered = 0;
      for (const file of readdirSync(logDir).sort()) {
        const log = parseEhrAgentLog({ text: readFileSync(join(logDir, file), "utf8") });
        for (const { code } of log.codeBlocks) {
          blocks++;
          if (agrees(code)) answered++;
          const lines = code.split("\n");
          for (let i = 1; i < lines.length; i += 3) agrees(lines.slice(0, i).join("\n"));
          agrees(code.replaceAll("'", '"'));
          agrees(code.replace(/^( {4})+/gm, (s) => "\t".repeat(s.length / 4)));
          agrees(`${code}\nprint(filtered_patient_db)`);
          agrees(code.replace(/\b(\w+_db)\b/g, "$1_2"));
        }
      }
      expect(blocks).toBeGreaterThan(100);
      expect(answered / blocks).toBeGreaterThan(0.5);
    });
  },
);
