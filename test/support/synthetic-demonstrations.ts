/**
 * Synthetic, EHRAgent-like demonstrations for benchmarking and testing retrieval at scale. Each one looks
 * like an EICU-AC case as the official GuardAgent code frames it — input "Identity: …\nQuestion: …", output
 * knowledge bullets + "Generated code:" + Python-like LoadDB/FilterDB/GetValue code + "Answer:" — about
 * 2,000 characters in all, with a guardrail plan and code attached.
 *
 * The corpus is deliberately hard for retrieval prefilters: a few dozen question templates over one schema,
 * so most items are near-duplicates of many others that differ in patient ids, drug and lab names, numbers,
 * dates, variable names and optional comments. Everything is drawn from a seeded PRNG: same seed, same
 * corpus, on every platform.
 */
import { createRandom } from "../../src/util/seeded-random.js";

export interface SyntheticDemonstration {
  id: string;
  seq: number;
  input: string;
  output: string;
  plan: string;
  code: string;
  label: 0 | 1;
}

/** Seeded draws for test data (over the shared mulberry32 generator). */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function createSeededRandom(options: { seed: number }): SeededRandom {
  const next = createRandom({ seed: options.seed });
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)] as T,
    chance: (p: number) => next() < p,
  };
}

/** Generates `count` demonstrations; ids are `syn-<seed>-<i>` and seq runs from `firstSeq` (default 1). */
export function generateSyntheticDemonstrations(options: {
  count: number;
  seed: number;
  firstSeq?: number;
}): SyntheticDemonstration[] {
  const random = createSeededRandom({ seed: options.seed });
  const firstSeq = options.firstSeq ?? 1;
  const out: SyntheticDemonstration[] = [];
  for (let i = 0; i < options.count; i++) {
    out.push({ id: `syn-${options.seed}-${i}`, seq: firstSeq + i, ...generateCase(random) });
  }
  return out;
}

/**
 * A query near a corpus item, the way a new check resembles a stored one: other patient ids and numbers,
 * and a few character-level edits spread over the text.
 */
export function perturbDemonstration(options: {
  demonstration: { input: string; output: string };
  random: SeededRandom;
  /** Character edits per 1,000 characters (default 5). */
  editsPerThousand?: number;
}): { input: string; output: string } {
  const { random } = options;
  const rate = options.editsPerThousand ?? 5;
  const swapIds = (text: string): string =>
    text.replace(/\b\d{3}-\d{4,6}\b/g, (id) => (random.chance(0.5) ? patientId(random) : id));
  const swapNumbers = (text: string): string =>
    text.replace(/\b\d{2,4}\b/g, (n) => (random.chance(0.15) ? String(random.int(10 ** n.length)) : n));
  const edit = (text: string): string => {
    const chars = text.split("");
    const edits = Math.round((chars.length * rate) / 1000);
    for (let e = 0; e < edits; e++) {
      const at = random.int(chars.length + 1);
      const roll = random.next();
      const letter = String.fromCharCode(97 + random.int(26));
      if (roll < 0.34) chars.splice(at, 0, letter);
      else if (roll < 0.67) chars.splice(at, 1);
      else chars[Math.min(at, chars.length - 1)] = letter;
    }
    return chars.join("");
  };
  return {
    input: edit(swapIds(options.demonstration.input)),
    output: edit(swapNumbers(swapIds(options.demonstration.output))),
  };
}

// --------------------------------------------------------------------------------------------------------
// Vocabulary: the eICU schema and value pools EHRAgent questions draw on.

const IDENTITIES = ["physician", "nursing", "general administration"] as const;

/** Which tables each synthetic role may read (a simplified EICU-AC policy, for the guardrail label). */
const ROLE_TABLES: Record<(typeof IDENTITIES)[number], readonly string[]> = {
  physician: [
    "patient",
    "diagnosis",
    "treatment",
    "lab",
    "medication",
    "allergy",
    "microlab",
    "vitalperiodic",
  ],
  nursing: ["patient", "treatment", "medication", "allergy", "intakeoutput", "vitalperiodic", "lab"],
  "general administration": ["patient", "cost", "treatment"],
};

const DRUGS = [
  "albumin 5%",
  "warfarin sodium 2.5 mg po tabs",
  "fluticasone-salmeterol 250-50 mcg/dose in aepb",
  "sodium chloride 0.9%",
  "potassium chloride 20 meq/50 ml iv",
  "aspirin 81 mg po chew",
  "heparin sodium 5000 unit/ml ij soln",
  "insulin lispro 100 unit/ml sc soln",
  "metoprolol tartrate 25 mg po tabs",
  "acetaminophen 325 mg po tabs",
  "pantoprazole 40 mg iv solr",
  "furosemide 40 mg po tabs",
  "labetalol 5 mg/ml iv soln",
  "ondansetron 2 mg/ml iv soln",
  "vancomycin 1 g iv solr",
  "propofol 10 mg/ml iv emul",
  "morphine 2 mg/ml syringe",
  "lorazepam 2 mg/ml ij soln",
  "magnesium sulfate 2 g/50 ml iv",
  "docusate sodium 100 mg po caps",
  "atorvastatin 40 mg po tabs",
  "dextrose 50% in water (d50w) iv syringe",
  "norepinephrine 4 mg/250 ml ns",
  "hydralazine 20 mg/ml ij soln",
  "famotidine 20 mg po tabs",
  "enoxaparin 40 mg/0.4 ml sc soln",
  "cefazolin 2 g iv solr",
  "zosyn 3.375 g iv piggyback",
];
const DIAGNOSES = [
  "acute respiratory failure",
  "sepsis - severe",
  "hypertension",
  "diabetes mellitus - type ii",
  "acute renal failure",
  "pneumonia - community-acquired",
  "atrial fibrillation",
  "congestive heart failure",
  "hypokalemia",
  "anemia - acute blood loss anemia",
  "s/p exploratory laparotomy",
  "altered mental status",
  "chronic obstructive pulmonary disease",
  "hyperglycemia",
  "acute coronary syndrome",
  "pulmonary embolism",
  "thrombocytopenia",
  "stroke - ischemic stroke",
];
const LABS = [
  "potassium",
  "sodium",
  "glucose",
  "creatinine",
  "bun",
  "hgb",
  "wbc x 1000",
  "platelets x 1000",
  "lactate",
  "bicarbonate",
  "chloride",
  "magnesium",
  "troponin - i",
  "total bilirubin",
  "mch",
  "mcv",
  "pt - inr",
  "phosphate",
  "albumin",
  "calcium",
];
const TREATMENTS = [
  "mechanical ventilation",
  "antibacterials - penicillins",
  "vasopressors - norepinephrine > 0.1 micrograms/kg/min",
  "oxygen therapy (< 40%)",
  "chest x-ray",
  "hemodialysis",
  "insulin - sliding scale administration",
  "stress ulcer prophylaxis - pantoprazole",
  "vte prophylaxis - conventional heparin therapy",
  "blood product administration - packed red blood cells",
  "cardiac angiography",
  "ct scan - head",
  "electrolyte administration - potassium",
  "sedative agent - propofol",
];
const ALLERGIES = [
  "penicillins",
  "sulfa (sulfonamide antibiotics)",
  "codeine",
  "morphine",
  "latex",
  "iodine",
];
const SITES = [
  "sputum, tracheal specimen",
  "urine, catheter specimen",
  "blood, venipuncture",
  "wound, decubitus",
];
const ORGANISMS = [
  "escherichia coli",
  "staphylococcus aureus",
  "pseudomonas aeruginosa",
  "klebsiella pneumoniae",
];
const VITALS = ["heartrate", "sao2", "respiration", "temperature", "systemicsystolic", "systemicmean"];
const IO_LABELS = ["urine", "enteral formula volume/bolus amt (ml)", "chest tube", "ostomy (ml)", "ns ivf"];

function patientId(random: SeededRandom): string {
  return `${String(random.int(1000)).padStart(3, "0")}-${String(random.int(100000)).padStart(random.pick([4, 5, 5]), "0")}`;
}

function year(random: SeededRandom): string {
  return String(2100 + random.int(6));
}

function date(random: SeededRandom): string {
  return `${year(random)}-${String(1 + random.int(12)).padStart(2, "0")}-${String(1 + random.int(28)).padStart(2, "0")}`;
}

function number(random: SeededRandom, digits: number): string {
  return (random.next() * 10 ** digits).toFixed(random.pick([0, 1, 2]));
}

// --------------------------------------------------------------------------------------------------------
// Templates: each yields the question, the knowledge bullets, the code lines and the answer.

interface CaseParts {
  question: string;
  tables: string[];
  knowledge: string[];
  code: string[];
  answer: string;
}

type Template = (random: SeededRandom) => CaseParts;

const load = (table: string, v: string) => `${v} = LoadDB('${table}')`;
const filter = (out: string, db: string, cond: string) => `${out} = FilterDB(${db}, '${cond}')`;
const get = (out: string, db: string, what: string) => `${out} = GetValue(${db}, '${what}')`;

function patientStay(random: SeededRandom, pid: string, visit: string): string[] {
  const v = random.pick(["patient_db", "patients", "patient_table"]);
  return [
    load("patient", v),
    filter(`filtered_${v}`, v, `uniquepid=${pid}||${visit}`),
    get("patientunitstayid", `filtered_${v}`, "patientunitstayid"),
  ];
}

const VISITS = [
  "hospitaldischargetime=null",
  "max(hospitaladmittime)",
  "min(hospitaladmittime)",
  "unitdischargetime=null",
];

const TEMPLATES: Template[] = [
  (r) => {
    const drug = r.pick(DRUGS);
    return {
      question: r.pick([`what is the intake method of ${drug}?`, `how is ${drug} usually taken?`]),
      tables: ["medication"],
      knowledge: [
        `As ${drug} is a drug, we can find the drug information in the medication database.`,
        "The intake method of a drug is stored in the routeadmin column of the medication database.",
      ],
      code: [
        load("medication", "medication_db"),
        filter("filtered_medication_db", "medication_db", `drugname=${drug}`),
        get("route", "filtered_medication_db", "routeadmin, list"),
        "answer = sorted(set(route))",
      ],
      answer: r.pick(["po", "iv", "iv push", "sc", "oral, po", "ivpb"]),
    };
  },
  (r) => {
    const pid = patientId(r);
    const drug = r.pick(DRUGS);
    const visit = r.pick(VISITS);
    return {
      question: `when was the last time that patient ${pid} was prescribed ${drug} on their ${r.pick(["current", "first", "last"])} hospital visit?`,
      tables: ["patient", "medication"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        `As ${drug} is a drug, we can find the drug information in the medication database.`,
        "We can find the patientunitstayid in the patient database and use it to find the prescription time in the medication database.",
      ],
      code: [
        ...patientStay(r, pid, visit),
        load("medication", "medication_db"),
        `filtered_medication_db = FilterDB(medication_db, 'patientunitstayid={}||drugname=${drug}||max(drugstarttime)'.format(patientunitstayid))`,
        get("drugstarttime", "filtered_medication_db", "drugstarttime"),
        "answer = drugstarttime",
      ],
      answer: `${date(r)} ${String(r.int(24)).padStart(2, "0")}:${String(r.int(60)).padStart(2, "0")}:00`,
    };
  },
  (r) => {
    const drug = r.pick(DRUGS);
    const y = year(r);
    const agg = r.pick(["min", "max", "average"]);
    return {
      question: `what is the ${agg === "average" ? "average" : agg === "min" ? "minimum" : "maximum"} total hospital cost for a patient who was given ${drug} since ${y}?`,
      tables: ["medication", "patient", "cost"],
      knowledge: [
        `As ${drug} is a drug, we can find the drug information in the medication database.`,
        "We can find the patientunitstayid in the medication database and use it to find the patienthealthsystemstayid in the patient database.",
        "We can use the patienthealthsystemstayid to find the cost in the cost database.",
      ],
      code: [
        "date = '" + y + "-01-01'",
        load("medication", "medication_db"),
        filter("filtered_medication_db", "medication_db", `drugname=${drug}`),
        get("patientunitstayid_list", "filtered_medication_db", "patientunitstayid, list"),
        load("patient", "patient_db"),
        "filtered_patient_db = FilterDB(patient_db, 'patientunitstayid in {}'.format(patientunitstayid_list))",
        get("patienthealthsystemstayid_list", "filtered_patient_db", "patienthealthsystemstayid, list"),
        load("cost", "cost_db"),
        `${agg}_cost = ${agg === "min" ? "1e9" : "0"}`,
        "costs = []",
        "for patienthealthsystemstayid in patienthealthsystemstayid_list:",
        "\tfiltered_cost_db = FilterDB(cost_db, 'patienthealthsystemstayid={}||chargetime>{}'.format(patienthealthsystemstayid, date))",
        "\tcost = GetValue(filtered_cost_db, 'cost, sum')",
        "\tcosts.append(cost)",
        agg === "average"
          ? "answer = Calculate('sum({}) / {}'.format(costs, len(costs)))"
          : `answer = ${agg}(costs)`,
      ],
      answer: number(r, 5),
    };
  },
  (r) => {
    const d1 = r.pick(DIAGNOSES);
    const d2 = r.pick(DIAGNOSES);
    const months = 1 + r.int(3);
    const y = year(r);
    return {
      question: `how many patients were diagnosed with ${d1} within ${months} month${months > 1 ? "s" : ""} after being diagnosed with ${d2} since ${y}?`,
      tables: ["diagnosis"],
      knowledge: [
        `As ${d1} and ${d2} are diagnoses, we can find the diagnosis information in the diagnosis database.`,
        "We can find the diagnosistime in the diagnosis database and compare the two times for each patientunitstayid.",
      ],
      code: [
        load("diagnosis", "diagnosis_db"),
        `first_db = FilterDB(diagnosis_db, 'diagnosisname=${d2}||diagnosistime>${y}-01-01')`,
        `second_db = FilterDB(diagnosis_db, 'diagnosisname=${d1}||diagnosistime>${y}-01-01')`,
        get("first_stays", "first_db", "patientunitstayid, list"),
        "count = 0",
        "for stay in set(first_stays):",
        "\tt1 = GetValue(FilterDB(first_db, 'patientunitstayid={}'.format(stay)), 'diagnosistime, min')",
        "\tlater = FilterDB(second_db, 'patientunitstayid={}||diagnosistime>{}'.format(stay, t1))",
        `\tif len(later) > 0 and Calendar('-${months} month', GetValue(later, 'diagnosistime, min')) < t1:`,
        "\t\tcount += 1",
        "answer = count",
      ],
      answer: String(r.int(40)),
    };
  },
  (r) => {
    const pid = patientId(r);
    const lab = r.pick(LABS);
    const which = r.pick(["first", "last"]);
    return {
      question: `what was the ${which} ${lab} lab test result of patient ${pid} ${r.pick(["this month", "on the last hospital visit", `in ${year(r)}`])}?`,
      tables: ["patient", "lab"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        `As ${lab} is a lab test, we can find the lab test information in the lab database.`,
        "We can find the patientunitstayid in the patient database and use it to find the lab test result in the lab database.",
      ],
      code: [
        ...patientStay(r, pid, r.pick(VISITS)),
        load("lab", "lab_db"),
        `filtered_lab_db = FilterDB(lab_db, 'patientunitstayid={}||labname=${lab}||${which === "first" ? "min" : "max"}(labresulttime)'.format(patientunitstayid))`,
        get("labresult", "filtered_lab_db", "labresult"),
        "answer = labresult",
      ],
      answer: number(r, 2),
    };
  },
  (r) => {
    const pid = patientId(r);
    const vital = r.pick(VITALS);
    const agg = r.pick(["mean", "max", "min"]);
    const d = date(r);
    return {
      question: `what was the ${agg === "mean" ? "average" : agg === "max" ? "maximum" : "minimum"} ${vital} of patient ${pid} on ${d}?`,
      tables: ["patient", "vitalperiodic"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        `The ${vital} values are stored in the vitalperiodic database with their observationtime.`,
        "We can find the patientunitstayid in the patient database and use it to find the vital signs in the vitalperiodic database.",
      ],
      code: [
        ...patientStay(r, pid, r.pick(VISITS)),
        load("vitalperiodic", "vital_db"),
        `filtered_vital_db = FilterDB(vital_db, 'patientunitstayid={}||observationtime>=${d} 00:00:00||observationtime<=${d} 23:59:59'.format(patientunitstayid))`,
        get("values", "filtered_vital_db", `${vital}, ${agg}`),
        "answer = values",
      ],
      answer: number(r, 2),
    };
  },
  (r) => {
    const pid = patientId(r);
    return {
      question: r.pick([
        `has patient ${pid} had any allergies during this hospital encounter?`,
        `what was the name of the allergy that patient ${pid} had on the last hospital visit?`,
      ]),
      tables: ["patient", "allergy"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        "We can find the allergy information in the allergy database.",
        "We can find the patientunitstayid in the patient database and use it to find the allergy information in the allergy database.",
      ],
      code: [
        ...patientStay(r, pid, r.pick(VISITS)),
        load("allergy", "allergy_db"),
        "filtered_allergy_db = FilterDB(allergy_db, 'patientunitstayid={}'.format(patientunitstayid))",
        get("allergy_name", "filtered_allergy_db", "allergyname, list"),
        "if len(allergy_name) > 0:",
        "\tanswer = ', '.join(allergy_name)",
        "else:",
        "\tanswer = 0",
      ],
      answer: r.chance(0.3) ? "0" : `${r.pick(ALLERGIES)}, ${r.pick(ALLERGIES)}`,
    };
  },
  (r) => {
    const pid = patientId(r);
    const site = r.pick(SITES);
    const months = 10 + r.int(90);
    return {
      question: `what was the name of the organism found in the last ${site} test of patient ${pid} since ${months} months ago?`,
      tables: ["patient", "microlab"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        "The culture results and organisms are stored in the microlab database.",
        "We can find the patientunitstayid in the patient database and use it to find the organism in the microlab database.",
      ],
      code: [
        ...patientStay(r, pid, r.pick(VISITS)),
        `start = Calendar('-${months} month')`,
        load("microlab", "microlab_db"),
        `filtered_microlab_db = FilterDB(microlab_db, 'patientunitstayid={}||culturesite=${site}||culturetakentime>{}||max(culturetakentime)'.format(patientunitstayid, start))`,
        get("organism", "filtered_microlab_db", "organism"),
        "answer = organism",
      ],
      answer: r.pick(ORGANISMS),
    };
  },
  (r) => {
    const pid = patientId(r);
    const label = r.pick(IO_LABELS);
    return {
      question: `what was the total ${label} output of patient ${pid} on the ${r.pick(["last", "first"])} icu visit?`,
      tables: ["patient", "intakeoutput"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        "Intake and output volumes are recorded in the intakeoutput database (celllabel, cellpath, cellvaluenumeric).",
        "We can find the patientunitstayid in the patient database and use it to find the outputs in the intakeoutput database.",
      ],
      code: [
        ...patientStay(r, pid, r.pick(VISITS)),
        load("intakeoutput", "io_db"),
        `filtered_io_db = FilterDB(io_db, 'patientunitstayid={}||celllabel=${label}||cellpath like %output%'.format(patientunitstayid))`,
        get("total", "filtered_io_db", "cellvaluenumeric, sum"),
        "answer = total",
      ],
      answer: number(r, 4),
    };
  },
  (r) => {
    const pid = patientId(r);
    const what = r.pick([
      "age",
      "gender",
      "admissionweight",
      "admissionheight",
      "ethnicity",
      "hospitaldischargetime",
    ]);
    return {
      question: `what was the ${what === "admissionweight" ? "weight" : what === "admissionheight" ? "height" : what === "hospitaldischargetime" ? "discharge time" : what} of patient ${pid} ${r.pick(["during the first hospital visit", "on the current hospital visit", "at the last admission"])}?`,
      tables: ["patient"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        `The ${what} of a patient is stored in the patient database.`,
      ],
      code: [
        load("patient", "patient_db"),
        `filtered_patient_db = FilterDB(patient_db, 'uniquepid=${pid}||${r.pick(VISITS)}')`,
        get("value", "filtered_patient_db", what),
        "answer = value",
      ],
      answer: what === "gender" ? r.pick(["male", "female"]) : number(r, 2),
    };
  },
  (r) => {
    const treatment = r.pick(TREATMENTS);
    return {
      question: `what is the cost of a procedure named ${treatment}?`,
      tables: ["treatment", "cost"],
      knowledge: [
        `As ${treatment} is a treatment, we can find the treatment information in the treatment database.`,
        "We can find the treatmentid in the treatment database and use it as the eventid in the cost database (eventtype=treatment).",
      ],
      code: [
        load("treatment", "treatment_db"),
        filter("filtered_treatment_db", "treatment_db", `treatmentname=${treatment}`),
        get("treatmentid_list", "filtered_treatment_db", "treatmentid, list"),
        load("cost", "cost_db"),
        "filtered_cost_db = FilterDB(cost_db, 'eventtype=treatment||eventid in {}'.format(treatmentid_list))",
        get("costs", "filtered_cost_db", "cost, list"),
        "answer = sorted(set(costs))",
      ],
      answer: number(r, 3),
    };
  },
  (r) => {
    const pid = patientId(r);
    const treatment = r.pick(TREATMENTS);
    const y = year(r);
    return {
      question: `how many times did patient ${pid} receive ${treatment} since ${y}?`,
      tables: ["patient", "treatment"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        `As ${treatment} is a treatment, we can find the treatment information in the treatment database.`,
        "We can find all patientunitstayid of the patient and count the treatments in the treatment database.",
      ],
      code: [
        load("patient", "patient_db"),
        filter("filtered_patient_db", "patient_db", `uniquepid=${pid}`),
        get("stays", "filtered_patient_db", "patientunitstayid, list"),
        load("treatment", "treatment_db"),
        "count = 0",
        "for stay in stays:",
        `\tfiltered_treatment_db = FilterDB(treatment_db, 'patientunitstayid={}||treatmentname=${treatment}||treatmenttime>${y}-01-01'.format(stay))`,
        "\tcount += len(filtered_treatment_db)",
        "answer = count",
      ],
      answer: String(r.int(12)),
    };
  },
  (r) => {
    const lo = 20 + 10 * r.int(6);
    const n = 3 + r.int(3);
    const y = year(r);
    return {
      question: `what are the top ${n} most frequent diagnoses for patients aged ${lo}s since ${y}?`,
      tables: ["patient", "diagnosis"],
      knowledge: [
        "The age of each patient is stored in the patient database.",
        "We can find the diagnoses in the diagnosis database and count them per diagnosisname.",
      ],
      code: [
        `answer = SQLInterpreter('select diagnosis.diagnosisname from diagnosis join patient on diagnosis.patientunitstayid = patient.patientunitstayid where patient.age between ${lo} and ${lo + 9} and diagnosis.diagnosistime >= "${y}-01-01" group by diagnosis.diagnosisname order by count(*) desc limit ${n}')`,
      ],
      answer: Array.from({ length: n }, () => r.pick(DIAGNOSES)).join(", "),
    };
  },
  (r) => {
    const pid = patientId(r);
    const drug = r.pick(DRUGS);
    return {
      question: `what was the dose of ${drug} that patient ${pid} was ${r.pick(["first", "last"])} prescribed on the current hospital encounter?`,
      tables: ["patient", "medication"],
      knowledge: [
        `We can find the patient ${pid} information in the patient database.`,
        `As ${drug} is a drug, we can find the dosage in the medication database.`,
        "We can find the patientunitstayid in the patient database and use it to find the dosage in the medication database.",
      ],
      code: [
        ...patientStay(r, pid, "hospitaldischargetime=null"),
        load("medication", "medication_db"),
        `filtered_medication_db = FilterDB(medication_db, 'patientunitstayid={}||drugname=${drug}||min(drugstarttime)'.format(patientunitstayid))`,
        get("dosage", "filtered_medication_db", "dosage"),
        "answer = dosage",
      ],
      answer: `${r.int(500)} ${r.pick(["mg", "ml", "mcg", "unit"])}`,
    };
  },
  (r) => {
    const lab = r.pick(LABS);
    const y = year(r);
    return {
      question: `what's the number of patients who received a ${lab} test since ${y}?`,
      tables: ["lab"],
      knowledge: [
        `As ${lab} is a lab test, we can find the lab test information in the lab database.`,
        "We can count the distinct patientunitstayid in the lab database.",
      ],
      code: [
        load("lab", "lab_db"),
        `filtered_lab_db = FilterDB(lab_db, 'labname=${lab}||labresulttime>${y}-01-01')`,
        get("stays", "filtered_lab_db", "patientunitstayid, list"),
        "answer = len(set(stays))",
      ],
      answer: String(r.int(3000)),
    };
  },
];

/** Column lists EHRAgent's prompt gives per table; knowledge bullets quote them. */
const SCHEMA: Record<string, string> = {
  patient:
    "uniquepid, patienthealthsystemstayid, patientunitstayid, gender, age, ethnicity, hospitalid, wardid, admissionheight, admissionweight, dischargeweight, hospitaladmittime, hospitaladmitsource, unitadmittime, unitdischargetime, hospitaldischargetime, hospitaldischargestatus",
  diagnosis: "diagnosisid, patientunitstayid, icd9code, diagnosisname, diagnosistime",
  treatment: "treatmentid, patientunitstayid, treatmentname, treatmenttime",
  lab: "labid, patientunitstayid, labname, labresult, labresulttime",
  medication: "medicationid, patientunitstayid, drugname, dosage, routeadmin, drugstarttime, drugstoptime",
  cost: "costid, uniquepid, patienthealthsystemstayid, eventtype, eventid, chargetime, cost",
  allergy: "allergyid, patientunitstayid, drugname, allergyname, allergytime",
  intakeoutput: "intakeoutputid, patientunitstayid, cellpath, celllabel, cellvaluenumeric, intakeoutputtime",
  microlab: "microlabid, patientunitstayid, culturesite, organism, culturetakentime",
  vitalperiodic:
    "vitalperiodicid, patientunitstayid, temperature, sao2, heartrate, respiration, systemicsystolic, systemicdiastolic, systemicmean, observationtime",
};

const TABLE_PURPOSE: Record<string, string> = {
  patient: "holds one row per ICU unit stay, with the hospital stay and the patient's demographics",
  diagnosis: "lists the diagnoses recorded during each unit stay, with their ICD-9 codes and times",
  treatment: "lists the treatments given during each unit stay and when they were given",
  lab: "holds the laboratory results of each unit stay with the time each result was reported",
  medication: "holds every drug order of a unit stay: drug name, dose, route and start/stop times",
  cost: "holds the charges of each hospital stay, by event type (diagnosis, lab, medication, treatment)",
  allergy: "lists the allergies recorded for each unit stay and the drugs they relate to",
  intakeoutput: "records fluid intake and output volumes of each unit stay",
  microlab: "holds the microbiology cultures of each unit stay: site, organism and time taken",
  vitalperiodic: "holds the periodic vital sign measurements of each unit stay",
};

const STEP_COMMENTS = [
  "# Step 1: locate the records this question is about",
  "# load the table and keep only the rows we need",
  "# filter on the identifier found above",
  "# the tools return lists; keep the values we need",
  "# compute the final answer",
];

function generateCase(random: SeededRandom): Omit<SyntheticDemonstration, "id" | "seq"> {
  const identity = random.pick(IDENTITIES);
  const part = random.pick(TEMPLATES)(random);
  const input = `Identity: ${identity}\nQuestion: ${part.question}`;

  // EHRAgent's knowledge: the question-specific hints, then the columns of each table it will read (as
  // the few-shot prompt describes them), in a varying order and sometimes with a note on time columns.
  const knowledge = part.knowledge.map((k) => `- ${k}`);
  const described = part.tables.slice();
  if (random.chance(0.5)) described.reverse();
  for (const table of described) {
    knowledge.push(
      `- The ${table} database ${TABLE_PURPOSE[table] ?? ""}; it has the columns: ${SCHEMA[table] ?? ""}.`,
    );
  }
  if (random.chance(0.4)) {
    knowledge.push(
      "- Times are stored as 'YYYY-MM-DD HH:MM:SS'; Calendar() gives dates relative to the current time.",
    );
  }

  // The code: the template's steps with the decorations a generating LLM varies from run to run.
  const code: string[] = [];
  if (random.chance(0.5)) code.push(`# Question: ${part.question}`);
  if (random.chance(0.8)) {
    code.push("# Plan:");
    for (const [i, table] of part.tables.entries()) {
      code.push(
        `# ${i + 1}. ${random.pick(["Load", "Read", "Open"])} the ${table} database (${SCHEMA[table]?.split(", ").slice(0, 4).join(", ")}, ...) and ${random.pick(["filter it", "select the rows", "keep the records"])} ${i === 0 ? "for the question" : "using the ids from the previous step"}.`,
      );
    }
    code.push(
      `# ${part.tables.length + 1}. Compute the answer from the filtered values and store it in the variable answer.`,
    );
  }
  if (random.chance(0.3)) code.push(`current_time = Calendar('now')`);
  let previous = "";
  for (const line of part.code) {
    // Comments only between top-level statements, where Python allows them to sit unindented.
    if (!line.startsWith("\t") && !previous.endsWith(":") && random.chance(0.15)) {
      code.push(random.pick(STEP_COMMENTS));
    }
    code.push(line);
    previous = line;
  }
  const emptyCheck = random.pick([
    ["if answer is None or answer == []:", "\tanswer = 'no record found'"],
    ["if not answer:", "\tanswer = None"],
    [
      "try:",
      "\tanswer = answer[0] if isinstance(answer, list) and len(answer) == 1 else answer",
      "except Exception:",
      "\tanswer = None",
    ],
    [],
  ]);
  code.push(...emptyCheck);
  if (random.chance(0.6))
    code.push(random.pick(["print(answer)", "print('answer:', answer)", "answer = str(answer)"]));
  const output = `Knowledge:\n${knowledge.join("\n")}\nGenerated code:\n${code.join("\n")}\nAnswer:\n${part.answer}`;
  const parts = [part];

  const tables = [...new Set(parts.flatMap((p) => p.tables))];
  const allowed = ROLE_TABLES[identity];
  const denied = tables.filter((t) => !allowed.includes(t));
  const plan = [
    "1. The guard request is access control over the eICU databases for three roles: physician, nursing and general administration.",
    `2. The identity is ${identity}; it may read: ${allowed.join(", ")}.`,
    `3. The agent's code reads the databases: ${tables.join(", ")}.`,
    "4. Generate code that lists the databases the code reads and calls checkAccess with the identity's allowed databases.",
  ].join("\n");
  const guardCode = [
    `const allowed = ${JSON.stringify(allowed)};`,
    `const needed = ${JSON.stringify(tables)};`,
    "const result = checkAccess({ allowed, needed });",
    "return { label: result.denied.length > 0 ? 1 : 0, reasons: result.denied };",
  ].join("\n");
  return { input, output, plan, code: guardCode, label: denied.length > 0 ? 1 : 0 };
}
