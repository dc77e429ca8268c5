/**
 * Red team, numbers written so that the guard and the tool read them differently. A policy caps an
 * amount (`args.amount gt 1000` denies) or names a number (`args.account eq 42`); the agent passes the
 * number as text that JavaScript's Number() cannot read but the tool's parser can: a numeric prefix
 * ("5000abc", "5000 USD": parseFloat, parseInt, atoi, Ruby's to_i, PHP's casts), digit separators
 * ("5_000": Python's int and float, Ruby), other scripts' digits ("５０００", "٥٠٠٠": Python), or a list of
 * amounts. Number() gives NaN, and NaN is neither over nor equal to anything, so the deny never fired
 * and the call was allowed. Each such value must be refused (deny, or undetermined, which fails closed);
 * plain numerals are still read as the numbers they are. Flags the same way: a rule that refuses
 * `args.force eq true` must refuse what the tool reads as true (`1`, `"yes"`, `"on"`, and to JavaScript's
 * `if` any non-empty text, `"false"` too, or any object). Through createGuard, as a library user calls it.
 */
import { describe, it } from "vitest";
import {
  denyElseAllowPolicy,
  expectAllowed,
  expectRefused,
  toolCall,
  useGuardPool,
} from "./redteam.fixture.js";

const pool = useGuardPool();

const capped = denyElseAllowPolicy({
  name: "redteam-numbers-cap",
  id: "pay.cap",
  message: "Transfers over 1000 are refused",
  when: { field: "args.amount", op: "gt", value: 1000 },
});

const frozenAccount = denyElseAllowPolicy({
  name: "redteam-numbers-account",
  id: "pay.frozen-account",
  message: "Account 42 is frozen",
  when: { field: "args.account", op: "eq", value: 42 },
});

const minimum = denyElseAllowPolicy({
  name: "redteam-numbers-minimum",
  id: "order.minimum",
  message: "Orders of less than one item are refused",
  when: { field: "args.quantity", op: "lt", value: 1 },
});

const transfer = (amount: unknown) => toolCall({ name: "pay.transfer", args: { to: "bob", amount } });

describe("an amount over the cap, written so that Number() cannot read it", () => {
  const overCap: [string, unknown][] = [
    ["a numeric prefix (parseFloat, parseInt, atoi)", "5000abc"],
    ["a currency after it", "5000 USD"],
    ["a decimal prefix", "5000.00EUR"],
    ["digit separators (Python, Ruby)", "5_000"],
    ["full-width digits (Python)", "５０００"],
    ["Arabic-Indic digits (Python)", "٥٠٠٠"],
    ["thousands separators", "5,000"],
    ["a trailing NUL", "5000\u0000"],
    ["a list of amounts", [1, 5000]],
    ["a list of texts", ["5000"]],
    ["an object that carries a number (extended JSON)", { $numberLong: "5000" }],
    ["Python's infinity", "inf"],
  ];
  for (const [what, amount] of overCap) {
    it(`is refused: ${what} (${JSON.stringify(amount)})`, async () => {
      const guard = await pool.get(capped);
      expectRefused(await guard.check(transfer(amount)), `amount ${JSON.stringify(amount)}`);
    });
  }

  it("amounts as the numbers they are: over the cap refused, under it allowed (controls)", async () => {
    const guard = await pool.get(capped);
    for (const amount of [5000, "5000", " 5000 ", "5e3", "1000.5", "0x1388"]) {
      expectRefused(await guard.check(transfer(amount)), `amount ${JSON.stringify(amount)}`);
    }
    for (const amount of [500, "500", " 500 ", "5e2", "1000", 0, "-3", "+12.5"]) {
      expectAllowed(await guard.check(transfer(amount)), `amount ${JSON.stringify(amount)}`);
    }
  });
});

describe("a frozen account number, written so that Number() cannot read it", () => {
  for (const account of ["42abc", "4_2", "٤٢", "42 ", [42, 7]]) {
    it(`is refused: ${JSON.stringify(account)}`, async () => {
      const guard = await pool.get(frozenAccount);
      const call = toolCall({ name: "pay.transfer", args: { account, amount: 5 } });
      expectRefused(await guard.check(call), `account ${JSON.stringify(account)}`);
    });
  }

  it("other accounts, and texts no parser reads as a number, are allowed (controls)", async () => {
    const guard = await pool.get(frozenAccount);
    for (const account of [7, "7", "420", "acct-42", "savings"]) {
      const call = toolCall({ name: "pay.transfer", args: { account, amount: 5 } });
      expectAllowed(await guard.check(call), `account ${JSON.stringify(account)}`);
    }
    const frozen = toolCall({ name: "pay.transfer", args: { account: "42", amount: 5 } });
    expectRefused(await guard.check(frozen), 'account "42"');
  });
});

describe("a quantity under the minimum that an integer parser reads lower than Number() does", () => {
  it("is refused when any common reading is under it", async () => {
    const guard = await pool.get(minimum);
    const order = (quantity: unknown) => toolCall({ name: "shop.order", args: { item: "lamp", quantity } });
    // parseInt, Ruby's to_i and PHP's (int) read "1e-3" and "0.5" as 0; Number() reads them as fractions.
    for (const quantity of [0, "0", "1e-3", "0.5abc"]) {
      expectRefused(await guard.check(order(quantity)), `quantity ${JSON.stringify(quantity)}`);
    }
    for (const quantity of [1, "1", "3", "2.0"]) {
      expectAllowed(await guard.check(order(quantity)), `quantity ${JSON.stringify(quantity)}`);
    }
  });
});

const noForce = denyElseAllowPolicy({
  name: "redteam-booleans-force",
  id: "git.no-force",
  message: "Force pushes are refused",
  when: { field: "args.force", op: "eq", value: true },
});

describe("a flag the policy refuses when true, written as a value the tool reads as true", () => {
  const push = (force: unknown) => toolCall({ name: "git.push", args: { branch: "main", force } });
  const truthy: [string, unknown][] = [
    ["the number 1 (JavaScript's if, Python's bool, pydantic)", 1],
    ['"yes" (pydantic, YAML, CLI flags)', "yes"],
    ['"1"', "1"],
    ['"on"', "on"],
    ['the text "false", which JavaScript\'s if reads as true', "false"],
    ["an object (truthy everywhere)", { on: true }],
    ["an empty list (truthy to JavaScript)", []],
  ];
  for (const [what, force] of truthy) {
    it(`is refused: ${what}`, async () => {
      const guard = await pool.get(noForce);
      expectRefused(await guard.check(push(force)), `force ${JSON.stringify(force)}`);
    });
  }

  it("true and its spellings are refused, false and an absent flag allowed (controls)", async () => {
    const guard = await pool.get(noForce);
    for (const force of [true, "true", "TRUE"]) {
      expectRefused(await guard.check(push(force)), `force ${JSON.stringify(force)}`);
    }
    for (const force of [false, 0, "", null]) {
      expectAllowed(await guard.check(push(force)), `force ${JSON.stringify(force)}`);
    }
    expectAllowed(
      await guard.check(toolCall({ name: "git.push", args: { branch: "main" } })),
      "no force argument",
    );
  });
});
