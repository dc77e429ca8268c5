/**
 * `warden policy build` end to end: our own policy document (bench/fixtures/policy-docs), a real model
 * client talking to a loopback OpenAI-compatible server whose replies are scripted per request — with
 * an answer that does not fit the schema (re-asked by the model layer), a formula that does not parse
 * (re-asked by the builder), a refinement that splits a rule and a redundant predicate that is merged.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PolicySchema } from "../../core/policy.js";
import { atoms, parseLtl } from "../../engines/shield/ltl/index.js";
import { createShieldEngine } from "../../engines/shield/runtime/shield-engine.js";
import { verifyPolicy } from "../../policies/verify-policy.js";
import type { ModelServer, RespondArgs } from "../../testing/model-server-common.js";
import { startOpenAIServer } from "../../testing/openai-server.js";
import { registerPolicyBuildCommand } from "./policy-build.js";

const DOC = fileURLToPath(
  new URL("../../../bench/fixtures/policy-docs/harbor-office-agent.md", import.meta.url),
);
const isClick = { field: "actionType", op: "eq", value: "click" };

const POLICIES: Record<string, unknown[]> = {
  "§2.1": [
    {
      description: "Never type customer data into a form of an external website.",
      scope: "",
      reference: "2.1",
      definitions: [{ term: "external", definition: "outside harbor-analytics.test" }],
    },
  ],
  "§2.2": [
    {
      description:
        "Do not send customer data in a message to the user unless the task asked for that record.",
      scope: "",
      reference: "2.2",
    },
  ],
  "§3.1": [
    {
      description: "Ask the employee for confirmation before deleting any file, folder or ticket.",
      scope: "",
      reference: "3.1",
    },
  ],
  "§3.2": [{ description: "Never empty the trash of the shared drive.", scope: "", reference: "3.2" }],
  "§4": [
    {
      description: "Never paste a password, API key or access token into any field or message.",
      scope: "",
      reference: "4",
    },
  ],
  "§5": [
    {
      description: "Tell the employee about an error shown on a page before finishing.",
      scope: "",
      reference: "5",
    },
  ],
};

const deletes = {
  kind: "condition",
  when: { all: [isClick, { field: "elementText", op: "containsAny", value: ["delete", "remove"] }] },
};
const asksConfirmation = {
  name: "asks_confirmation",
  kind: "action",
  description: "asks the employee in the chat to confirm a deletion",
  binding: {
    kind: "condition",
    when: {
      all: [
        { field: "actionType", op: "eq", value: "send_msg_to_user" },
        { field: "message", op: "contains", value: "delete" },
      ],
    },
  },
};

const RULES: Record<string, unknown> = {
  "§2.1": {
    predicates: [
      {
        name: "types_customer_data",
        kind: "action",
        description: "types customer data (e-mail, phone, card) into a field",
        binding: {
          kind: "detector",
          detector: "pii",
          field: "typed",
          params: { when: { field: "isInput", op: "eq", value: true } },
        },
      },
      {
        name: "on_external_site",
        kind: "state",
        description: "the page is outside harbor-analytics.test",
        binding: {
          kind: "detector",
          detector: "url-scope",
          params: { allow: ["harbor-analytics.test", "*.harbor-analytics.test"] },
        },
      },
    ],
    rules: [
      {
        description: "Never type customer data on an external website",
        formula: "G !(types_customer_data & on_external_site)",
        type: "action",
        countermeasure: "Use the internal CRM form instead",
      },
    ],
  },
  "§3.1": {
    predicates: [
      {
        name: "deletes_item",
        kind: "action",
        description: "clicks a delete or remove button",
        binding: deletes,
      },
      asksConfirmation,
    ],
    rules: [
      {
        description: "Delete only after the employee confirmed",
        formula: "G(deletes_item -> Y(O(asks_confirmation)))",
        type: "action",
        effect: "ask",
        countermeasure: "Ask the employee to confirm first",
      },
    ],
  },
  "§3.2": {
    // deletes_file repeats deletes_item under another name (merged by redundancy pruning).
    predicates: [
      {
        name: "empties_trash",
        kind: "action",
        description: "clicks the button that empties the trash",
        binding: {
          kind: "condition",
          when: { all: [isClick, { field: "elementText", op: "contains", value: "empty trash" }] },
        },
      },
      {
        name: "deletes_file",
        kind: "action",
        description: "clicks a delete or remove button on a file",
        binding: deletes,
      },
    ],
    rules: [
      {
        description: "Never empty the trash",
        formula: "G !empties_trash",
        type: "action",
        countermeasure: "Leave the trash to the retention job",
      },
      {
        description: "Files are deleted only after confirmation",
        formula: "G(deletes_file -> Y(O(asks_confirmation)))",
        type: "action",
        effect: "ask",
        countermeasure: "Ask the employee to confirm first",
      },
    ],
  },
  "§4": {
    predicates: [
      {
        name: "enters_secret",
        kind: "action",
        description: "puts a credential somewhere",
        binding: { kind: "detector", detector: "secret", field: "text" },
      },
    ],
    rules: [
      {
        description: "Never paste credentials",
        formula: "G !enters_secret",
        type: "action",
        countermeasure: "Refer to the password manager instead",
      },
    ],
  },
  "§5": {
    predicates: [
      {
        name: "page_shows_error",
        kind: "state",
        description: "the page shows an error",
        binding: { kind: "detector", detector: "error-popup", field: "observation" },
      },
      {
        name: "reports_error",
        kind: "action",
        description: "tells the employee about an error",
        binding: {
          kind: "condition",
          when: {
            all: [
              { field: "actionType", op: "eq", value: "send_msg_to_user" },
              { field: "message", op: "containsAny", value: ["error", "failed"] },
            ],
          },
        },
      },
    ],
    rules: [
      {
        description: "Report every error shown",
        formula: "G(page_shows_error -> F reports_error)",
        type: "action",
        countermeasure: "Tell the employee what failed",
      },
    ],
  },
};

const MESSAGES_RULE = (formula: string) => ({
  predicates: [
    {
      name: "sends_customer_data",
      kind: "action",
      description: "sends customer data in a message to the user",
      binding: {
        kind: "detector",
        detector: "pii",
        field: "message",
        params: { when: { field: "actionType", op: "eq", value: "send_msg_to_user" } },
      },
    },
    {
      name: "user_asked_for_record",
      kind: "state",
      description: "the task asked for this customer's record",
      binding: { kind: "ask", question: "Did the task ask for this customer's record?" },
    },
  ],
  rules: [
    {
      description: "Send customer data only when the task asked for it",
      formula,
      type: "action",
      countermeasure: "Leave the contact details out of the message",
    },
  ],
});

const SPLIT_SECRET = {
  changed: true,
  reason: "a field and a message are observed differently: one atomic rule for each",
  predicates: [
    {
      name: "types_secret",
      kind: "action",
      description: "types a credential into a field",
      binding: { kind: "detector", detector: "secret", field: "typed" },
    },
    {
      name: "sends_secret",
      kind: "action",
      description: "sends a credential in a message",
      binding: { kind: "detector", detector: "secret", field: "message" },
    },
  ],
  rules: [
    {
      description: "Never type credentials into a field",
      formula: "G !types_secret",
      type: "action",
      countermeasure: "Refer to the password manager instead",
    },
    {
      description: "Never send credentials in a message",
      formula: "G !sends_secret",
      type: "action",
      countermeasure: "Refer to the password manager instead",
    },
  ],
};

function section(text: string): string | undefined {
  return /harbor-office-agent\.md (§[\d.]+)/.exec(text)?.[1];
}

/** The scripted model: replies chosen from the request (step and section), never by arrival order. */
function respond(args: RespondArgs): string {
  const system = args.messages[0]?.content ?? "";
  const first = args.messages.find((m) => m.role === "user")?.content ?? "";
  const last = args.messages.at(-1)?.content ?? "";
  const repairs = args.messages.filter((m) => m.role === "assistant").length;
  if (system.includes("list the individual policies")) {
    const s = section(first);
    // The first answer for §2.1 does not fit the schema (no description): the model layer re-asks.
    if (s === "§2.1" && repairs === 0) return JSON.stringify({ policies: [{ scope: "" }] });
    return JSON.stringify({ policies: (s && POLICIES[s]) ?? [] });
  }
  if (system.includes("translate one policy")) {
    const s = section(first) ?? "";
    // The first formula for §2.2 misses a parenthesis: the builder re-asks with the parse error.
    if (s === "§2.2") {
      return JSON.stringify(
        MESSAGES_RULE(
          last.includes("does not parse")
            ? "G(sends_customer_data -> user_asked_for_record)"
            : "G(sends_customer_data -> user_asked_for_record",
        ),
      );
    }
    return JSON.stringify(RULES[s] ?? { predicates: [], rules: [], note: "nothing to verify" });
  }
  if (system.includes("review one rule")) {
    if (first.includes("formula: G !enters_secret")) return JSON.stringify(SPLIT_SECRET);
    return JSON.stringify({ changed: false, reason: "accurate, observable and atomic" });
  }
  if (system.includes("look alike")) {
    if (first.includes("deletes_item") && first.includes("deletes_file")) {
      return JSON.stringify({
        merge: true,
        reason: "both are a click on a delete button",
        keep: { name: "deletes_item", description: "clicks a delete or remove button", binding: deletes },
      });
    }
    return JSON.stringify({ merge: false, reason: "different things" });
  }
  return "{}";
}

function program(): Command {
  const root = new Command("warden").exitOverride();
  root.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const policy = root.command("policy").exitOverride();
  registerPolicyBuildCommand({ policy }).exitOverride();
  return root;
}

describe("warden policy build (loopback OpenAI-compatible server)", () => {
  let server: ModelServer;
  let dir = "";
  let out: string[] = [];
  let err: string[] = [];
  beforeAll(async () => {
    server = await startOpenAIServer({ respond });
    dir = await mkdtemp(join(tmpdir(), "policy-build-"));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });
  const capture = () => {
    out = [];
    err = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      err.push(String(chunk));
      return true;
    });
  };

  it("builds a verified ASPM: re-asks, refinement and pruning are logged, every rule cites its clause", async () => {
    capture();
    const file = join(dir, "aspm.json");
    await program().parseAsync(
      [
        "policy",
        "build",
        "--docs",
        DOC,
        "--model",
        "openai-compatible:test-model",
        "--base-url",
        server.url,
        "--budget",
        "80",
        "--name",
        "harbor",
        "--embeddings",
        "off",
        "-o",
        file,
        "--json",
      ],
      { from: "user" },
    );
    expect(err.join("")).toBe("");
    expect(process.exitCode).toBe(0);
    const printed = JSON.parse(out.join(""));
    const text = await readFile(file, "utf8");
    const policy = PolicySchema.parse(JSON.parse(text));
    expect(text.endsWith("}\n")).toBe(true);
    expect(policy.name).toBe("harbor");
    const parseFormula = (formula: string) => atoms({ ast: parseLtl({ formula }) });
    expect(verifyPolicy({ policy, parseFormula }).ok).toBe(true);
    const rules = policy.rules!.temporalRules!;
    const clauses = new Map(policy.rules!.clauses!.map((c) => [c.id, c]));
    for (const r of rules) {
      expect(r.weight).toBe(1);
      const clause = clauses.get(r.meta?.clause as string)!;
      expect(clause).toBeDefined();
      expect(r.source).toContain(clause.reference!);
    }
    expect(clauses.size).toBe(6);
    expect([...clauses.values()].map((c) => c.reference)).toContain("harbor-office-agent.md §3.1");
    // The formula that did not parse was fixed on the re-ask.
    expect(rules.map((r) => r.formula)).toContain("G(sends_customer_data -> user_asked_for_record)");
    const log = printed.log as Array<{ step: string; target: string; change: string; why: string }>;
    expect(log.some((e) => e.step === "re-ask" && e.why.includes("does not parse"))).toBe(true);
    // The answer that did not fit the schema was re-asked by the model layer (two requests for §2.1).
    const firsts = server.requests.filter((b) =>
      JSON.stringify(b).includes("Excerpt (harbor-office-agent.md §2.1)"),
    );
    expect(firsts.length).toBeGreaterThanOrEqual(2);
    // Redundancy pruning merged deletes_file into deletes_item and dropped the duplicate rule.
    expect(policy.rules!.predicates!.map((p) => p.name)).not.toContain("deletes_file");
    expect(
      log.some((e) => e.step === "redundancy-pruning" && e.change.startsWith("merged 2 predicates")),
    ).toBe(true);
    expect(log.some((e) => e.step === "redundancy-pruning" && e.change.startsWith("duplicate of"))).toBe(
      true,
    );
    expect(rules.filter((r) => r.formula === "G(deletes_item -> Y O asks_confirmation)")).toHaveLength(1);
    // Verifiability refinement split the credentials rule into two atomic rules.
    expect(rules.map((r) => r.formula)).toEqual(
      expect.arrayContaining(["G !types_secret", "G !sends_secret"]),
    );
    expect(rules.map((r) => r.formula)).not.toContain("G !enters_secret");
    expect(log.some((e) => e.step === "verifiability-refinement" && e.change === "rule split into 2")).toBe(
      true,
    );
    // Obligations are judged at the end; circuits are built.
    expect(rules.find((r) => r.formula === "G(page_shows_error -> F reports_error)")?.check).toBe("end");
    expect(policy.rules!.circuits!.length).toBeGreaterThan(0);
    expect(printed.report).toMatchObject({ clauses: 6, stopped: "converged", similarity: "lexical" });
    expect(printed.report.budget.used).toBeLessThanOrEqual(80);
    // The artifact drives the shield: typing a customer's e-mail into an external form is denied.
    const engine = createShieldEngine();
    const typed = {
      action: "fill",
      args: {},
      element: "Email",
      value: "jane.doe@example.com",
      url: "https://forms.example.org/signup",
    };
    const d = await engine.check({
      policy,
      subject: { input: "sign the customer up", output: "", trajectory: [typed] },
    });
    expect(d).toMatchObject({ allowed: false, violations: [{ ruleId: "harbor-office-agent.c1.r1" }] });
    expect(d.violations[0]!.source).toContain("harbor-office-agent.md §2.1");
    const internal = { ...typed, url: "https://crm.harbor-analytics.test/new" };
    expect(
      (await engine.check({ policy, subject: { input: "x", output: "", trajectory: [internal] } })).allowed,
    ).toBe(true);
  });

  it("prints a review summary and the log summary without --json", async () => {
    capture();
    const file = join(dir, "aspm2.json");
    await program().parseAsync(
      [
        "policy",
        "build",
        "--docs",
        DOC,
        "--model",
        "openai-compatible:test-model",
        "--base-url",
        server.url,
        "--embeddings",
        "off",
        "-o",
        file,
      ],
      { from: "user" },
    );
    const text = out.join("");
    expect(text).toContain("Policy harbor-office-agent");
    expect(text).toContain("Refinement log:");
    expect(text).toContain(`Wrote ${file}`);
    expect(process.exitCode).toBe(0);
  });

  it("exits 2 with a clear error when nothing can be built", async () => {
    capture();
    const dead = await startOpenAIServer({ respond: () => ({ status: 500 }) });
    try {
      await program().parseAsync(
        [
          "policy",
          "build",
          "--docs",
          DOC,
          "--model",
          "openai-compatible:test-model",
          "--base-url",
          dead.url,
          "--budget",
          "3",
          "-o",
          join(dir, "x.json"),
        ],
        { from: "user" },
      );
    } finally {
      await dead.close();
    }
    expect(process.exitCode).toBe(2);
    expect(err.join("")).toContain("no rule could be extracted");
    await expect(
      program().parseAsync(
        [
          "policy",
          "build",
          "--docs",
          DOC,
          "--model",
          "openai-compatible:m",
          "--budget",
          "zero",
          "-o",
          "x.json",
        ],
        { from: "user" },
      ),
    ).rejects.toThrow(/--budget/);
  });
});
