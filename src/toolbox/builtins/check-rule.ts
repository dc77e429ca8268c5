/**
 * CheckRule, the rule built-in (GuardAgent's CheckRule): which action categories' user requirements the
 * user fails. Two implementations with one semantics: the JavaScript source the sandbox evaluates for
 * model-written programs, and `checkRule` for the host (the compiled engine); a test requires them to
 * agree on random inputs. The operators are implemented one by one: nothing is evaluated as code.
 *
 * Semantics: `rules` maps a category to `{ attribute, operator, value, message }`, or to
 * `{ requirements: [{ attribute, operator, value, message? }...], message }` when the user must meet several
 * conditions (an array of rules with a `category` field is accepted too). The paper's field names `info`
 * (for attribute) and `violation` (for message) are accepted. An attribute that is null, undefined or
 * empty means "no requirement". Operators: == != >= > <= < (also =, ===, !==, <>, eq, ne, ge, gt, le, lt);
 * a missing operator means ==. Values are compared after reading "true"/"false" (any case) as booleans,
 * numeric strings as numbers and other strings trimmed and without case; == and != compare values of the
 * same kind only; <, <=, >, >= need two numbers or two strings, anything else fails the requirement. A user
 * attribute the rule needs but userInfo lacks (or holds null or "") fails the requirement, and the message
 * says it is missing (fail closed). Attribute names are matched exactly first, then trimmed without case.
 * violations[category] is the rule's message (several distinct failing messages joined with "; ").
 */
import { WardenError } from "../../core/errors.js";
import type { ToolFunction } from "../tool-function.js";

export type RuleOperator = "==" | "!=" | ">=" | ">" | "<=" | "<";

export interface RuleRequirement {
  attribute?: string | null;
  operator?: string | null;
  value?: unknown;
  message?: string;
}

export interface RuleSpec extends RuleRequirement {
  requirements?: readonly RuleRequirement[];
}

export interface RuleCheck {
  denied: boolean;
  violations: Record<string, string>;
}

const OPERATORS: Readonly<Record<string, RuleOperator>> = {
  "==": "==",
  "=": "==",
  "===": "==",
  eq: "==",
  "!=": "!=",
  "!==": "!=",
  "<>": "!=",
  ne: "!=",
  ">=": ">=",
  ge: ">=",
  ">": ">",
  gt: ">",
  "<=": "<=",
  le: "<=",
  "<": "<",
  lt: "<",
};

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function invalid(message: string, field: string): never {
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `checkRule: ${message}`,
    details: { fields: [field] },
  });
}

function pick(object: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const k of keys) if (object[k] !== undefined) return object[k];
  return undefined;
}

function text(value: unknown): string {
  return typeof value === "string" && value.trim() !== "" ? value : "";
}

function coerce(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const t = value.trim();
  const lower = t.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  if (t !== "" && Number.isFinite(Number(t))) return Number(t);
  return lower;
}

export function compareRuleValues(options: {
  actual: unknown;
  operator: RuleOperator;
  expected: unknown;
}): boolean {
  const a = coerce(options.actual);
  const b = coerce(options.expected);
  const op = options.operator;
  if (op === "==" || op === "!=") {
    const same = typeof a === typeof b && a === b;
    return op === "==" ? same : !same;
  }
  const numbers = typeof a === "number" && typeof b === "number";
  const strings = typeof a === "string" && typeof b === "string";
  if (!numbers && !strings) return false;
  const x = a as number | string;
  const y = b as number | string;
  if (op === ">=") return x >= y;
  if (op === ">") return x > y;
  if (op === "<=") return x <= y;
  return x < y;
}

function lookup(info: Record<string, unknown>, attribute: unknown): unknown {
  const name = String(attribute);
  if (Object.hasOwn(info, name)) return info[name];
  const k = name.trim().toLowerCase();
  for (const key of Object.keys(info)) if (key.trim().toLowerCase() === k) return info[key];
  return undefined;
}

export function checkRule(options: {
  /** Category -> rule (or a list of rules with a `category` field). */
  rules: Readonly<Record<string, RuleSpec | null>> | readonly (RuleSpec & { category?: string })[];
  /** The user's attributes, e.g. { age: 17, dr_license: "False" }. */
  userInfo: Readonly<Record<string, unknown>> | null | undefined;
}): RuleCheck {
  const rules = options.rules as unknown;
  let userInfo = options.userInfo as unknown;
  const entries: Array<[string, unknown]> = [];
  if (Array.isArray(rules)) {
    rules.forEach((rule: unknown, i) => {
      if (!isMap(rule)) invalid(`rules[${i}] must be an object`, `rules.${i}`);
      const name = rule.category ?? rule.action ?? rule.name ?? `rule ${i + 1}`;
      entries.push([String(name), rule]);
    });
  } else if (isMap(rules)) {
    for (const name of Object.keys(rules)) entries.push([name, rules[name]]);
  } else {
    invalid("rules must be an object mapping each category to its rule", "rules");
  }
  if (userInfo === null || userInfo === undefined) userInfo = {};
  if (!isMap(userInfo)) invalid("userInfo must be an object of user attributes", "userInfo");
  const info = userInfo;

  let denied = false;
  const violations: Record<string, string> = {};
  for (const [category, rule] of entries) {
    if (rule === null || rule === undefined) continue;
    if (!isMap(rule)) invalid(`the rule for "${category}" must be an object`, `rules.${category}`);
    const requirements: unknown[] = Array.isArray(rule.requirements) ? rule.requirements : [rule];
    const messages: string[] = [];
    requirements.forEach((req, i) => {
      if (!isMap(req))
        invalid(`requirement ${i + 1} of "${category}" must be an object`, `rules.${category}`);
      const attribute = pick(req, ["attribute", "info", "field"]);
      if (attribute === null || attribute === undefined || String(attribute).trim() === "") return;
      const rawOp = pick(req, ["operator", "op"]);
      const op =
        OPERATORS[
          String(rawOp === null || rawOp === undefined ? "==" : rawOp)
            .trim()
            .toLowerCase()
        ];
      if (!op) {
        invalid(
          `unknown operator ${JSON.stringify(rawOp)} in the rule for "${category}" (use ==, !=, >=, >, <= or <)`,
          `rules.${category}`,
        );
      }
      const base =
        text(pick(req, ["message", "violation"])) ||
        text(pick(rule, ["message", "violation"])) ||
        `"${category}" requires ${String(attribute)} ${op} ${String(JSON.stringify(req.value))}`;
      const actual = lookup(info, attribute);
      if (actual === undefined || actual === null || (typeof actual === "string" && actual.trim() === "")) {
        messages.push(`${base} (the user attribute "${String(attribute)}" is missing)`);
        return;
      }
      if (!compareRuleValues({ actual, operator: op, expected: req.value })) messages.push(base);
    });
    if (messages.length === 0) continue;
    denied = true;
    Object.defineProperty(violations, category, {
      value: [...new Set(messages)].join("; "),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { denied, violations };
}

const SOURCE = `function CheckRule(rules, userInfo) {
  var OPERATORS = { "==": "==", "=": "==", "===": "==", eq: "==", "!=": "!=", "!==": "!=", "<>": "!=", ne: "!=",
    ">=": ">=", ge: ">=", ">": ">", gt: ">", "<=": "<=", le: "<=", "<": "<", lt: "<" };
  function fail(message) { throw new TypeError("CheckRule(rules, userInfo): " + message); }
  function isMap(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function pick(object, keys) {
    for (var i = 0; i < keys.length; i++) if (object[keys[i]] !== undefined) return object[keys[i]];
    return undefined;
  }
  function text(v) { return typeof v === "string" && v.trim() !== "" ? v : ""; }
  function coerce(v) {
    if (typeof v !== "string") return v;
    var t = v.trim(), lower = t.toLowerCase();
    if (lower === "true") return true;
    if (lower === "false") return false;
    if (t !== "" && isFinite(Number(t))) return Number(t);
    return lower;
  }
  function compare(actual, op, expected) {
    var a = coerce(actual), b = coerce(expected);
    if (op === "==" || op === "!=") {
      var same = typeof a === typeof b && a === b;
      return op === "==" ? same : !same;
    }
    if (!((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string"))) return false;
    if (op === ">=") return a >= b;
    if (op === ">") return a > b;
    if (op === "<=") return a <= b;
    return a < b;
  }
  function lookup(info, attribute) {
    var name = String(attribute);
    if (Object.prototype.hasOwnProperty.call(info, name)) return info[name];
    var k = name.trim().toLowerCase(), keys = Object.keys(info);
    for (var i = 0; i < keys.length; i++) if (keys[i].trim().toLowerCase() === k) return info[keys[i]];
    return undefined;
  }
  var entries = [];
  if (Array.isArray(rules)) {
    rules.forEach(function (rule, i) {
      if (!isMap(rule)) fail("rules[" + i + "] must be an object");
      var name = rule.category ?? rule.action ?? rule.name ?? "rule " + (i + 1);
      entries.push([String(name), rule]);
    });
  } else if (isMap(rules)) {
    Object.keys(rules).forEach(function (name) { entries.push([name, rules[name]]); });
  } else fail("rules must be an object mapping each category to its rule");
  if (userInfo === null || userInfo === undefined) userInfo = {};
  if (!isMap(userInfo)) fail("userInfo must be an object of user attributes");
  var denied = false, violations = {};
  entries.forEach(function (entry) {
    var category = entry[0], rule = entry[1];
    if (rule === null || rule === undefined) return;
    if (!isMap(rule)) fail('the rule for "' + category + '" must be an object');
    var requirements = Array.isArray(rule.requirements) ? rule.requirements : [rule];
    var messages = [];
    requirements.forEach(function (req, i) {
      if (!isMap(req)) fail("requirement " + (i + 1) + ' of "' + category + '" must be an object');
      var attribute = pick(req, ["attribute", "info", "field"]);
      if (attribute === null || attribute === undefined || String(attribute).trim() === "") return;
      var rawOp = pick(req, ["operator", "op"]);
      var op = OPERATORS[String(rawOp === null || rawOp === undefined ? "==" : rawOp).trim().toLowerCase()];
      if (!op) fail("unknown operator " + JSON.stringify(rawOp) + ' in the rule for "' + category + '" (use ==, !=, >=, >, <= or <)');
      var base = text(pick(req, ["message", "violation"])) || text(pick(rule, ["message", "violation"])) ||
        '"' + category + '" requires ' + String(attribute) + " " + op + " " + String(JSON.stringify(req.value));
      var actual = lookup(userInfo, attribute);
      if (actual === undefined || actual === null || (typeof actual === "string" && actual.trim() === "")) {
        messages.push(base + ' (the user attribute "' + String(attribute) + '" is missing)');
        return;
      }
      if (!compare(actual, op, req.value)) messages.push(base);
    });
    if (messages.length === 0) return;
    denied = true;
    var unique = messages.filter(function (m, i) { return messages.indexOf(m) === i; });
    Object.defineProperty(violations, category, { value: unique.join("; "), enumerable: true, writable: true, configurable: true });
  });
  return { denied: denied, violations: violations };
}`;

export const CHECK_RULE_FUNCTION: ToolFunction = {
  name: "CheckRule",
  signature:
    'CheckRule(rules: { [category: string]: { attribute: string | null, operator: "==" | "!=" | ">=" | ">" | "<=" | "<", value: unknown, message: string } }, userInfo: { [attribute: string]: unknown }) -> { denied: boolean, violations: { [category: string]: string } }',
  description:
    'Rule check: violations[category] = the rule\'s message for each category whose requirement the user fails (a missing user attribute fails too; attribute null = no requirement; "true"/"false" and numeric strings are read as booleans/numbers; use requirements: [...] for several conditions); denied is true when any rule is violated.',
  source: SOURCE,
};
