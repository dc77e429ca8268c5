import { describe, expect, it } from "vitest";
import { EICU_SCHEMA } from "./schema.js";
import { extractSqlAccess, renderSqlWithHoles } from "./sql-access.js";
import { hole } from "./sym-string.js";

function reads(sql: string | Parameters<typeof extractSqlAccess>[0]["sql"]) {
  const access = extractSqlAccess({ sql, schema: EICU_SCHEMA });
  return {
    reads: access.reads.map((r) => `${r.table}.${r.column}`).sort(),
    unresolved: access.unresolved,
    errors: access.errors,
  };
}

describe("extractSqlAccess", () => {
  it("reads qualified columns through nested subqueries", () => {
    const sql =
      "select count( distinct patient.uniquepid ) from patient where patient.patientunitstayid in " +
      "( select lab.patientunitstayid from lab where lab.labname = 'magnesium' and " +
      "datetime(lab.labresulttime,'start of year') = datetime(current_time,'start of year','-1 year') )";
    expect(reads(sql)).toEqual({
      reads: [
        "lab.labname",
        "lab.labresulttime",
        "lab.patientunitstayid",
        "patient.patientunitstayid",
        "patient.uniquepid",
      ],
      unresolved: [],
      errors: [],
    });
  });

  it("resolves aliases and unqualified columns through the schema, table by table", () => {
    const sql =
      "select p.age, labresult from patient as p join lab l on p.patientunitstayid = l.patientunitstayid " +
      "where labname = 'bun' order by l.labresulttime desc limit 1";
    expect(reads(sql).reads).toEqual([
      "lab.labname",
      "lab.labresult",
      "lab.labresulttime",
      "lab.patientunitstayid",
      "patient.age",
      "patient.patientunitstayid",
    ]);
  });

  it("attributes a column name shared by two tables to the table it is read from", () => {
    const sql =
      "select drugname from medication where patientunitstayid in (select patientunitstayid from patient where uniquepid = '1')";
    expect(reads(sql).reads).toEqual([
      "medication.drugname",
      "medication.patientunitstayid",
      "patient.patientunitstayid",
      "patient.uniquepid",
    ]);
    // drugname exists in allergy and medication; only medication is in scope.
    expect(reads("select distinct allergy.drugname from allergy").reads).toEqual(["allergy.drugname"]);
  });

  it("reports an ambiguous unqualified column and counts every candidate", () => {
    const result = reads("select patientunitstayid from patient, lab");
    expect(result.reads).toEqual(["lab.patientunitstayid", "patient.patientunitstayid"]);
    expect(result.unresolved[0]).toMatch(/ambiguous/);
    expect(
      reads("select patientunitstayid from patient join lab using (patientunitstayid)").unresolved,
    ).toEqual([]);
  });

  it("traces derived tables, CTEs and correlated subqueries", () => {
    expect(reads("select t1.c from (select drugname as c from medication) t1 order by c").reads).toEqual([
      "medication.drugname",
    ]);
    expect(reads("with x as (select labname from lab) select labname from x").reads).toEqual(["lab.labname"]);
    expect(
      reads(
        "select uniquepid from patient where exists (select 1 from cost where cost.uniquepid = patient.uniquepid and cost > 5)",
      ).reads,
    ).toEqual(["cost.cost", "cost.uniquepid", "patient.uniquepid"]);
  });

  it("expands * to the columns of the tables in scope", () => {
    expect(reads("select * from allergy").reads).toEqual([
      "allergy.allergyid",
      "allergy.allergyname",
      "allergy.allergytime",
      "allergy.drugname",
      "allergy.patientunitstayid",
    ]);
    expect(reads("select count(*) from allergy").reads).toEqual([]);
  });

  it("parses EHRSQL window functions (dense_rank() over (...))", () => {
    const sql =
      "select t1.drugname from ( select medication.drugname, dense_rank() over ( order by count(*) desc ) as c1 " +
      "from medication where strftime('%Y',medication.drugstarttime) >= '2103' group by medication.drugname ) as t1 where t1.c1 <= 3";
    expect(reads(sql)).toEqual({
      reads: ["medication.drugname", "medication.drugstarttime"],
      unresolved: [],
      errors: [],
    });
  });

  it("reports unknown tables and columns", () => {
    expect(reads("select foo from patient").unresolved).toEqual([
      'SQL column "foo" matches no table in scope',
    ]);
    expect(reads("select x from nowhere").unresolved[0]).toMatch(/not in the schema/);
    expect(reads("select patient.bogus from patient").unresolved[0]).toMatch(/not a column of patient/);
  });

  it("renders holes by position: in quotes as text, after operators as numbers, else as names", () => {
    expect(
      renderSqlWithHoles({ sql: ["select a from t where b = '", hole("v"), "' and c = ", hole("n")] }),
    ).toBe("select a from t where b = 'warden_hole' and c = 0");
    const value = reads(["select labresult from lab where patientunitstayid = ", hole("id")]);
    expect(value).toEqual({ reads: ["lab.labresult", "lab.patientunitstayid"], unresolved: [], errors: [] });
    const column = reads(["select ", hole("col"), " from lab"]);
    expect(column.unresolved).toEqual(["SQL names a column that is only known at run time"]);
  });

  it("falls back to a scan when the SQL does not parse", () => {
    const result = reads("select lab.labname, labresult frm lab whre ((");
    expect(result.errors[0]).toMatch(/could not be parsed/);
    expect(result.reads).toEqual(["lab.labname", "lab.labresult"]);
  });
});
