/**
 * The trust boundary's pieces: canonical comparison of tool calls and resources, the caller context a
 * rule may read, and the tool calls a check judges from a trusted and an untrusted caller — also through
 * `auto`'s one-step trajectory for a policy with temporal rules, and the shield's per-step tool rules.
 */
import { describe, expect, it } from "vitest";
import { PolicySchema } from "../../core/policy.js";
import { SubjectSchema } from "../../core/subject.js";
import { createAutoEngine } from "../auto-engine.js";
import { createShieldEngine } from "../shield/runtime/shield-engine.js";
import { createCompiledEngine } from "./compiled-engine.js";
import { callerContext, resolveToolCalls, sameResources, sameToolCalls, stepCall } from "./context-facts.js";

describe("canonical comparison", () => {
  it("same calls by name and arguments, whatever the order of calls or keys", () => {
    const a = [
      { name: "x", args: { p: 1, q: { r: [1, 2] } } },
      { name: "y", args: {} },
    ];
    const b = [
      { name: "y", args: {} },
      { name: "x", args: { q: { r: [1, 2] }, p: 1 } },
    ];
    expect(sameToolCalls({ a, b })).toBe(true);
    expect(sameToolCalls({ a, b: [b[1]!] })).toBe(false);
    // The same objects are the same calls without a canonical comparison; other objects still compare.
    expect(sameToolCalls({ a, b: a })).toBe(true);
    expect(sameToolCalls({ a: [a[0]!], b: [{ ...a[0]!, args: { ...a[0]!.args } }] })).toBe(true);
    expect(sameToolCalls({ a: [a[0]!], b: [{ ...a[0]!, name: "other" }] })).toBe(false);
    expect(sameToolCalls({ a: [{ name: "x", args: { p: 1 } }], b: [{ name: "x", args: { p: "1" } }] })).toBe(
      false,
    );
  });

  it("arguments compare as JSON carries them (canonical JSON, stable-json.ts)", () => {
    const call = (args: Record<string, unknown>) => [{ name: "x", args }];
    // An undefined field is not there at all, as on the wire.
    expect(sameToolCalls({ a: call({ p: 1, q: undefined }), b: call({ p: 1 }) })).toBe(true);
    expect(sameToolCalls({ a: call({ p: null }), b: call({ p: undefined }) })).toBe(false);
    // An own "__proto__" argument is an argument.
    expect(sameToolCalls({ a: call(JSON.parse('{"p":1,"__proto__":{"q":2}}')), b: call({ p: 1 }) })).toBe(
      false,
    );
  });

  it("same tables and columns, case and order aside", () => {
    expect(sameResources({ a: { Patient: ["age", "id"] }, b: { patient: ["ID", "age"] } })).toBe(true);
    expect(sameResources({ a: { patient: ["age"] }, b: { patient: ["age"], lab: [] } })).toBe(false);
    expect(sameResources({ a: { patient: ["age"] }, b: { patient: ["age", "id"] } })).toBe(false);
  });
});

describe("callerContext", () => {
  const context = { identity: "admin", cwd: "/tmp", toolSchemas: {}, toolCalls: [], task: "t" };

  it("drops the fact fields from an untrusted caller's context, keeps the caller's own", () => {
    expect(callerContext({ context })).toEqual({ identity: "admin", task: "t" });
    expect(callerContext({ context, trust: { contextFacts: true } })).toBe(context);
  });

  it("keeps an own __proto__ key as a key: a fact hidden under it is never read as the context's", () => {
    // JSON.parse makes "__proto__" an own key; assigning it to the copy would make it the copy's prototype.
    const smuggled = JSON.parse('{"cwd": "/etc", "__proto__": {"cwd": "/tmp", "toolCalls": []}}');
    const shown = callerContext({ context: smuggled });
    expect(shown.cwd).toBeUndefined();
    expect(shown.toolCalls).toBeUndefined();
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(shown, "__proto__")?.value).toEqual({
      cwd: "/tmp",
      toolCalls: [],
    });
  });
});

describe("stepCall", () => {
  it("reads a BrowserGym call string as the call it runs, and code it cannot read as nothing", () => {
    expect(stepCall({ action: "github.create_issue", args: { title: "x" } })).toEqual({
      name: "github.create_issue",
      args: { title: "x" },
      format: "plain",
    });
    expect(stepCall({ action: 'goto(url="https://x.test/")', args: {} })?.args).toEqual({
      url: "https://x.test/",
    });
    expect(stepCall({ action: 'fill("b3", "Jane")', args: { extra: 1 } })).toEqual({
      name: "fill",
      args: { arg0: "b3", arg1: "Jane", bid: "b3", value: "Jane", extra: 1 },
      format: "plain",
    });
    expect(stepCall({ action: 'ｇｏｔｏ("https://x.test/")', args: {} })?.name).toBe("goto");
    expect(stepCall({ action: 'goto("https://" + host)', args: {} })).toBeUndefined();
  });

  it("names the method a dotted call runs, with that method's arguments", () => {
    expect(stepCall({ action: 'page.goto("https://x.test/")', args: {} })).toEqual({
      name: "page.goto",
      method: "goto",
      args: { arg0: "https://x.test/", url: "https://x.test/" },
      format: "plain",
    });
    // A plain name with dots is a tool's name, not code: no method.
    expect(stepCall({ action: "github.create_issue", args: {} })).not.toHaveProperty("method");
  });

  it("makes a last step it cannot read a problem, whatever the output shows", () => {
    const resolved = resolveToolCalls({
      subject: { input: "", output: "", trajectory: [{ action: 'click("a1"); goto("x")', args: {} }] },
    });
    expect(resolved.problem).toMatch(/code that is not one call/);
  });
});

describe("resolveToolCalls", () => {
  const output = JSON.stringify({ name: "delete_file", arguments: { path: "/etc/passwd" } });
  const claim = { name: "read_file", arguments: { path: "/tmp/a" } };

  it("a trusted caller's claim is taken; an untrusted one is compared with the output", () => {
    const subject = SubjectSchema.parse({ input: "", output, context: { toolCall: claim } });
    expect(resolveToolCalls({ subject, trust: { contextFacts: true } }).calls[0]?.name).toBe("read_file");
    const untrusted = resolveToolCalls({ subject });
    expect(untrusted.calls[0]?.name).toBe("delete_file");
    expect(untrusted.problem).toContain(
      "the context's toolCall disagrees with the tool call in the agent output",
    );
  });

  it("a claim compared with the trajectory's last step when the output shows no call", () => {
    const subject = SubjectSchema.parse({
      input: "",
      output: "",
      trajectory: [{ action: "read_file", args: { path: "/tmp/a" } }],
      context: { toolCalls: [claim] },
    });
    expect(resolveToolCalls({ subject }).problem).toBeUndefined();
    const other = { ...subject, context: { toolCalls: [{ name: "read_file", arguments: { path: "/b" } }] } };
    expect(resolveToolCalls({ subject: other }).problem).toContain("disagrees");
  });
});

describe("engines behind the boundary", () => {
  const policy = PolicySchema.parse({
    name: "fs-once",
    specification: "a file agent",
    requests: "reads under /tmp only, deletes never",
    rules: {
      toolRules: [
        {
          id: "read.tmp",
          tool: "read_file",
          effect: "allow",
          message: "reads under /tmp",
          when: { field: "args.path", op: "pathWithin", value: "/tmp" },
        },
      ],
      toolDefault: "deny",
      predicates: [
        {
          name: "reads",
          kind: "action",
          description: "reads a file",
          binding: { kind: "condition", when: { field: "action", op: "eq", value: "read_file" } },
        },
      ],
      temporalRules: [{ id: "t.any", formula: "G(reads -> reads)", description: "trivial" }],
    },
  });

  it("auto with temporal rules: an untrusted claim that disagrees with the output fails closed", async () => {
    const auto = createAutoEngine({ compiled: createCompiledEngine() });
    const subject = SubjectSchema.parse({
      input: "",
      output: JSON.stringify({ name: "delete_file", arguments: { path: "/etc/passwd" } }),
      context: { toolCall: { name: "read_file", arguments: { path: "/tmp/a" } } },
    });
    const d = await auto.check({ policy, subject });
    expect(d.allowed).toBe(false);
    expect(d.failure?.message).toContain("disagrees");
    const trusted = await auto.check({ policy, subject, trust: { contextFacts: true } });
    expect(trusted.allowed).toBe(true);
  });

  it("the shield does not resolve a relative path against an untrusted cwd", async () => {
    const shield = createShieldEngine();
    const subject = SubjectSchema.parse({
      input: "",
      trajectory: [{ action: "read_file", args: { path: "a" } }],
      context: { cwd: "/tmp" },
    });
    expect((await shield.check({ policy, subject })).allowed).toBe(false);
    const trusted = await createShieldEngine().check({ policy, subject, trust: { contextFacts: true } });
    expect(trusted.allowed).toBe(true);
  });
});
