import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractEhrAgentAccess } from "./extract.js";
import { EICU_SCHEMA } from "./schema.js";

const lines = (...code: string[]) => code.join("\n");
const extract = (...code: string[]) => extractEhrAgentAccess({ code: lines(...code) });

describe("extractEhrAgentAccess: the toolbox", () => {
  it("reads FilterDB conditions and GetValue columns, keeping each handle's table", () => {
    const result = extract(
      "patient_db = LoadDB('patient')",
      "filtered_patient_db = FilterDB(patient_db, 'uniquepid=030-51920||max(hospitaladmittime)')",
      "patientunitstayid = GetValue(filtered_patient_db, 'patientunitstayid')",
      "lab_db = LoadDB('lab')",
      "filtered_lab_db = FilterDB(lab_db, 'patientunitstayid={}||labname=bun'.format(patientunitstayid))",
      "answer = GetValue(filtered_lab_db, 'labresult, max')",
    );
    expect(result).toEqual({
      tables: {
        lab: ["labname", "labresult", "patientunitstayid"],
        patient: ["hospitaladmittime", "patientunitstayid", "uniquepid"],
      },
      wholeTables: [],
      tablesRead: ["lab", "patient"],
      confidence: "high",
      unresolved: [],
      errors: [],
    });
  });

  it("resolves conditions built with format, f-strings, % and concatenation", () => {
    const result = extract(
      "d = Calendar('-1 year')",
      "db = LoadDB('medication')",
      "col = 'drugname'",
      "a = FilterDB(db, '{}={}||{c}>{}'.format(col, d, d, c='drugstarttime'))",
      "b = FilterDB(db, '{0}={1}||{0}!={1}'.format('dosage', d))",
      "c = FilterDB(db, f'routeadmin={d}||{col.upper()}=x')",
      "e = FilterDB(db, 'drugstoptime<%s||%s=%d' % (d, 'patientunitstayid', 3))",
      "f = FilterDB(db, 'medicationid=' + str(d) + '||' + 'patient' + 'unitstayid' + '>' + d)",
    );
    expect(result.tables).toEqual({
      medication: [
        "dosage",
        "drugname",
        "drugstarttime",
        "drugstoptime",
        "medicationid",
        "patientunitstayid",
        "routeadmin",
      ],
    });
    expect(result.confidence).toBe("high");
  });

  it("follows values through variables, aliases, branches, loops and functions", () => {
    const result = extract(
      "def load(name):",
      "    return LoadDB(name)",
      "def column_of(db, column):",
      "    return GetValue(db, column + ', list')",
      "source = load('lab')",
      "alias = source",
      "import random",
      "flag = random.random() > 0.5",
      "if flag:",
      "    handle = alias",
      "else:",
      "    handle = load('treatment')",
      "ids = column_of(handle, 'patientunitstayid')",
      "names = column_of(handle, 'labname')",
      "for col in ['treatmentname', 'treatmenttime']:",
      "    GetValue(handle, col)",
    );
    expect(result.tables).toEqual({
      lab: ["labname", "patientunitstayid"],
      treatment: ["patientunitstayid", "treatmentname", "treatmenttime"],
    });
    expect(result.confidence).toBe("high");
  });

  it("attributes the same column name to the table it is read from", () => {
    const result = extract(
      "p = FilterDB(LoadDB('patient'), 'uniquepid=1')",
      "ids = GetValue(p, 'patientunitstayid, list')",
      "m = FilterDB(LoadDB('medication'), 'patientunitstayid in {}'.format(ids))",
      "answer = GetValue(m, 'drugname')",
    );
    expect(result.tables).toEqual({
      medication: ["drugname", "patientunitstayid"],
      patient: ["patientunitstayid", "uniquepid"],
    });
  });

  it("reads SQLInterpreter queries, including the bracket notation and formatted SQL", () => {
    const result = extract(
      "pid = '002-1'",
      "n = SQLInterpreter(\"select count(*) from patient p join lab on p.patientunitstayid = lab.patientunitstayid where p.uniquepid = '{}'\".format(pid))",
      "answer = SQLInterpreter[select max(cost) from cost where cost.uniquepid = '002-1']",
    );
    expect(result.tables).toEqual({
      cost: ["cost", "uniquepid"],
      lab: ["patientunitstayid"],
      patient: ["patientunitstayid", "uniquepid"],
    });
    expect(result.confidence).toBe("high");
  });

  it("reads nothing for Calculate and Calendar", () => {
    expect(extract("x = Calendar('-1 year')", "answer = Calculate('1+2')")).toEqual({
      tables: {},
      wholeTables: [],
      tablesRead: [],
      confidence: "high",
      unresolved: [],
      errors: [],
    });
  });
});

describe("extractEhrAgentAccess: pandas-style access on toolbox results", () => {
  it("reads subscripts, attributes, indexers and method arguments", () => {
    const result = extract(
      "db = FilterDB(LoadDB('lab'), 'labname=bun')",
      "a = db['labresult'].values[0]",
      "b = db.labresulttime.max()",
      "c = db[['labid', 'labname']]",
      "d = db.loc[db['patientunitstayid'] > 1, 'labresult']",
      "e = db.sort_values(by='labresulttime').iloc[0]['labid']",
      "n = len(db)",
      "if db.empty: pass",
    );
    expect(result.tables).toEqual({
      lab: ["labid", "labname", "labresult", "labresulttime", "patientunitstayid"],
    });
    expect(result.confidence).toBe("high");
  });

  it("reads row fields in loops, iterrows, comprehensions and callbacks", () => {
    const result = extract(
      "from datetime import datetime",
      "rows = FilterDB(LoadDB('microlab'), 'patientunitstayid=1')",
      "for index, row in rows.iterrows():",
      "    t = datetime.strptime(row['culturetakentime'], '%Y-%m-%d')",
      "for r in rows:",
      "    if 'organism' in r:",
      "        x = r.get('organism')",
      "sites = [r['culturesite'] for r in rows if r.microlabid > 3]",
      "kept = []",
      "kept.extend(FilterDB(LoadDB('allergy'), 'allergyname=x'))",
      "best = sorted(kept, key=lambda item: item['allergytime'])",
    );
    expect(result.tables).toEqual({
      allergy: ["allergyname", "allergytime"],
      microlab: ["culturesite", "culturetakentime", "microlabid", "organism", "patientunitstayid"],
    });
  });

  it("counts every column of a DataFrame that is printed or returned as the answer", () => {
    const printed = extract("db = LoadDB('treatment')", "print(FilterDB(db, 'treatmentid=1'))");
    expect(printed.tables.treatment).toEqual([...EICU_SCHEMA.treatment!].sort());
    expect(printed.wholeTables).toEqual(["treatment"]);
    const answered = extract("answer = FilterDB(LoadDB('allergy'), 'allergyid=1')");
    expect(answered.tables.allergy).toEqual([...EICU_SCHEMA.allergy!].sort());
    expect(extract("n = SQLInterpreter('select * from cost')").wholeTables).toEqual(["cost"]);
    expect(extract("answer = len(FilterDB(LoadDB('allergy'), 'allergyid=1'))").tables).toEqual({
      allergy: ["allergyid"],
    });
  });

  it("merges state across try/except and while loops", () => {
    const result = extract(
      "db = LoadDB('vitalperiodic')",
      "try:",
      "    v = FilterDB(db, 'sao2>90')",
      "except Exception as err:",
      "    v = FilterDB(db, 'heartrate>100')",
      "i = 0",
      "while i < 3:",
      "    GetValue(v, 'observationtime')",
      "    i += 1",
    );
    expect(result.tables).toEqual({ vitalperiodic: ["heartrate", "observationtime", "sao2"] });
  });

  it("starts an except handler from every state the try body may raise in, loop passes included", () => {
    const result = extract(
      "db = LoadDB('vitalperiodic')",
      "t = 'sao2'",
      "try:",
      "    for i in GetValue(db, 'observationtime, list'):",
      "        t = 'heartrate'",
      "        x = int(i)",
      "        t = 'temperature'",
      "    c = 'respiration'",
      "    x = 1",
      "except Exception:",
      "    GetValue(db, t)",
      "    GetValue(db, c)",
    );
    expect(result.tables).toEqual({
      vitalperiodic: ["heartrate", "observationtime", "respiration", "sao2", "temperature"],
    });
  });
});

describe("extractEhrAgentAccess: what it cannot know", () => {
  it("is low confidence when a condition's column comes from an unknown value", () => {
    const result = extract(
      "db = LoadDB('lab')",
      "col = input()",
      "x = FilterDB(db, '{}=3||labname=x'.format(col))",
    );
    expect(result.tables).toEqual({ lab: ["labname"] });
    expect(result.confidence).toBe("low");
    expect(result.unresolved.join(" ")).toMatch(/only known at run time/);
  });

  it("is low confidence for unknown tables, unknown columns and non-table databases", () => {
    expect(extract("FilterDB(LoadDB('bogus'), 'a=1')").confidence).toBe("low");
    const unknownColumn = extract("GetValue(LoadDB('lab'), 'labvalue')");
    // LoadDB('lab') reads the table; no column of it is named.
    expect(unknownColumn.tables).toEqual({ lab: [] });
    expect(unknownColumn.unresolved).toEqual(['GetValue reads "labvalue", which is not a column of lab']);
    const notATable = extract("GetValue(undefined_db, 'labresult')");
    expect(notATable.confidence).toBe("low");
    expect(notATable.tables).toEqual({ lab: ["labresult"] });
  });

  it("treats names of Object.prototype's members as the unknown tables and columns they are", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const result = extract(
        `db = LoadDB('${name}')`,
        `x = FilterDB(db, '${name}=1')`,
        `answer = GetValue(x, '${name}')`,
        `rows = SQLInterpreter('select ${name} from ${name}')`,
      );
      expect(result.errors).toEqual([]);
      expect(result.confidence).toBe("low");
      expect(result.tables).toEqual({});
      expect(result.unresolved.join(" ")).toMatch(/not in the schema/);
    }
    // A caller's schema may itself name such a table: it is then a table like any other.
    const own = extractEhrAgentAccess({
      code: lines("db = LoadDB('constructor')", "answer = GetValue(db, 'name')"),
      schema: { constructor: ["name", "id"] },
    });
    expect(own.confidence).toBe("high");
    expect(own.tables).toEqual({ constructor: ["name"] });
  });

  it("never throws: bad input and unparseable code give low confidence with the error", () => {
    const broken = extract("x = FilterDB(db, 'a=1'");
    expect(broken.confidence).toBe("low");
    expect(broken.errors[0]).toMatch(/syntax error at line 1/);
    for (const bad of [
      undefined,
      null,
      42,
      { code: 7 },
      { code: "" },
      { code: "x = 1", schema: { lab: "x" } },
    ]) {
      const result = extractEhrAgentAccess(bad as never);
      expect(result.confidence).toBe("low");
      expect(result.errors.length).toBeGreaterThan(0);
    }
    fc.assert(
      fc.property(fc.string(), (code) => {
        const result = extractEhrAgentAccess({ code });
        expect(["high", "low"]).toContain(result.confidence);
      }),
      { numRuns: 200 },
    );
  });

  it("counts reads in functions it never saw called, and says so", () => {
    const method = extract(
      "class Helper:",
      "    def labs(self, pid):",
      "        return GetValue(FilterDB(LoadDB('lab'), 'patientunitstayid={}'.format(pid)), 'labresult')",
      "answer = Helper().labs(3)",
    );
    expect(method.tables).toEqual({ lab: ["labresult", "patientunitstayid"] });
    expect(method.confidence).toBe("low");
    expect(method.unresolved).toContain(
      "function labs is never called directly; the reads in its body are counted",
    );
    const harmless = extract(
      "def fmt(v):",
      "    return str(v)",
      "answer = GetValue(LoadDB('lab'), 'labname')",
    );
    expect(harmless.confidence).toBe("high");
  });

  it("handles conditions joined from a list, module-qualified tools, and flags dynamic code", () => {
    const joined = extract(
      "conds = []",
      "conds.append('labname=bun')",
      "conds.append('labresult>{}'.format(Calendar('-1 day')))",
      "answer = len(FilterDB(LoadDB('lab'), '||'.join(conds)))",
    );
    expect(joined).toMatchObject({ tables: { lab: ["labname", "labresult"] }, confidence: "high" });
    expect(extract("import tools", "answer = tools.GetValue(tools.LoadDB('lab'), 'labname')").tables).toEqual(
      {
        lab: ["labname"],
      },
    );
    const dynamic = extract("exec(\"GetValue(LoadDB('lab'), 'labname')\")");
    expect(dynamic.confidence).toBe("low");
    expect(dynamic.unresolved[0]).toMatch(/the builtin "exec" \(line 1\)/);
  });

  it("stops runaway analyses within a budget", () => {
    // Two known elements per level: every combination is followed, 2^17 of them.
    const nested = Array.from({ length: 17 }, (_, i) => `${"    ".repeat(i)}for v${i} in xs:`).join("\n");
    const result = extract("xs = [1, 2]", nested, `${"    ".repeat(17)}GetValue(LoadDB('lab'), 'labname')`);
    expect(result.confidence).toBe("low");
    expect(result.errors.join(" ")).toMatch(/budget/);
  });

  it("accepts a caller's schema", () => {
    const result = extractEhrAgentAccess({
      code: "GetValue(FilterDB(LoadDB('Orders'), 'Customer=3'), 'total, sum')",
      schema: { orders: ["customer", "total"] },
    });
    expect(result).toEqual({
      tables: { orders: ["customer", "total"] },
      wholeTables: [],
      tablesRead: ["orders"],
      confidence: "high",
      unresolved: [],
      errors: [],
    });
  });
});

// ----------------------------------------------------------------- property: generated EHRAgent programs

const TABLES = Object.keys(EICU_SCHEMA);

interface Step {
  table: string;
  filterColumns: string[];
  valueColumn: string;
  style: number;
}

const stepArb: fc.Arbitrary<Step> = fc.constantFrom(...TABLES).chain((table) =>
  fc.record({
    table: fc.constant(table),
    filterColumns: fc.uniqueArray(fc.constantFrom(...EICU_SCHEMA[table]!), { minLength: 1, maxLength: 3 }),
    valueColumn: fc.constantFrom(...EICU_SCHEMA[table]!),
    style: fc.integer({ min: 0, max: 4 }),
  }),
);

function condition(step: Step): string {
  const cols = step.filterColumns;
  switch (step.style) {
    case 0:
      return `'${cols.map((c) => `${c}=1`).join("||")}'`;
    case 1:
      return `'${cols.map(() => "{}={}").join("||")}'.format(${cols.map((c) => `'${c}', x`).join(", ")})`;
    case 2:
      return `f'${cols.map((c) => `${c}>{x}`).join("||")}'`;
    case 3:
      return `'${cols.map((c) => `${c}<%s`).join("||")}' % (${cols.map(() => "x").join(", ")},)`;
    default:
      return cols.map((c) => `'${c} like ' + x`).join(" + '||' + ");
  }
}

describe("extractEhrAgentAccess (property)", () => {
  it("finds exactly the columns of generated programs", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 4 }), fc.boolean(), (steps, wrap) => {
        const code = ["x = Calendar('-1 year')"];
        const expected: Record<string, Set<string>> = {};
        steps.forEach((step, i) => {
          const indent = wrap ? "    " : "";
          if (wrap)
            code.push(`for item${i} in GetValue(LoadDB('${step.table}'), '${step.valueColumn}, list'):`);
          code.push(`${indent}db${i} = LoadDB('${step.table}')`);
          code.push(`${indent}f${i} = FilterDB(db${i}, ${condition(step)})`);
          code.push(`${indent}v${i} = GetValue(f${i}, '${step.valueColumn}, max')`);
          const set = expected[step.table] ?? new Set<string>();
          for (const column of [...step.filterColumns, step.valueColumn]) set.add(column);
          expected[step.table] = set;
        });
        const result = extractEhrAgentAccess({ code: code.join("\n") });
        expect(result.confidence).toBe("high");
        expect(result.tables).toEqual(
          Object.fromEntries(
            Object.entries(expected)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([table, set]) => [table, [...set].sort()]),
          ),
        );
      }),
      { numRuns: 150 },
    );
  });
});
