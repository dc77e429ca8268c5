/**
 * Red team, e-mail: "only to example.com" (mcp-tools rule 5) must hold for every address in every
 * recipient field, in every RFC 5322 spelling (lists, display names, groups, comments) and across fields
 * and arrays. Through createGuard with the bundled mcp-tools policy.
 */
import { afterAll, describe, it } from "vitest";
import { expectAllowed, expectRefused, guardPool, toolCall } from "./redteam.fixture.js";

const pool = guardPool();
afterAll(() => pool.close());

const send = async (args: Record<string, unknown>) =>
  (await pool.get("mcp-tools")).check(
    toolCall({ name: "email.send", args: { subject: "hi", body: "x", ...args } }),
  );

describe("email: only to example.com (mcp-tools rule 5)", () => {
  it("still allows mail to example.com", async () => {
    expectAllowed(await send({ to: "bob@example.com" }), "bob@example.com");
    expectAllowed(await send({ to: "Bob <bob@example.com>, alice@example.com" }), "two internal");
    expectAllowed(await send({ to: "bob@example.com", cc: "alice@example.com" }), "to + cc internal");
  });

  const cases: Record<string, unknown>[] = [
    { to: "bob@example.com", cc: "eve@evil.test" }, // issue 9
    // A recipient hidden in raw header text: read as an address list, it parses or fails closed.
    { to: "bob@example.com", headers: "Bcc: eve@evil.test" },
    { to: "bob@example.com", headers: { Bcc: "eve@evil.test" } },
    { to: "bob@example.com", raw_headers: ["Cc: eve@evil.test"] },
    { to: "bob@example.com", bcc: "eve@evil.test" },
    { to: "bob@example.com", reply_to: "eve@evil.test" },
    { to: "bob@example.com", replyTo: "eve@evil.test" },
    { to: "bob@example.com, eve@evil.test" },
    { to: "bob@example.com; eve@evil.test" },
    { to: ["bob@example.com", "eve@evil.test"] },
    { to: "bob@example.com", cc: ["alice@example.com", "eve@evil.test"] },
    { to: '"bob@example.com" <eve@evil.test>' },
    { to: "Bob <eve@evil.test>" },
    { to: "bob@example.com <eve@evil.test>" },
    { to: "eve@evil.test (bob@example.com)" },
    { to: "friends: bob@example.com, eve@evil.test;" },
    { to: "eve@example.com.evil.test" },
    { to: "eve@evil-example.com" },
    { to: "eve@EXAMPLE.COM.evil.test" },
    { to: "eve@ex\u0430mple.com" },
    { to: "eve@evil.test" },
    { to: "eve@evil.test\n@example.com" },
    { to: "bob@example.com\r\nBcc: eve@evil.test" },
    { to: "not an address" },
    { to: "<eve@evil.test>" },
    { to: "bob@example.com,,eve@evil.test" },
    { to: "bob@example.com eve@evil.test" },
    { to: "BOB@EXAMPLE.COM, Eve@Evil.Test" },
    { to: "=?utf-8?q?bob=40example.com?= <eve@evil.test>" },
    { to: '"bob@example.com"@evil.test' },
    { to: "bob@example.com", cc: "Team <alice@example.com>, eve@evil.test (Eve)" },
    { to: "bob@example.com", recipients: [{ email: "eve@evil.test" }] },
    { to: "bob@example.com", headers: { Cc: "eve@evil.test" } },
  ];
  it.each(cases)("refuses %j", async (args) => {
    expectRefused(await send(args), `email.send ${JSON.stringify(args)}`);
  });

  it("refuses a send with no recipient at all", async () => {
    expectRefused(
      await (await pool.get("mcp-tools")).check(toolCall({ name: "email.send", args: { subject: "x" } })),
      "no recipient",
    );
  });
});
