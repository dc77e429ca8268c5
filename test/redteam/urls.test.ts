/**
 * Red team, URLs: a rule on a URL's domain or host must hold for every spelling WHATWG parsing gives the
 * same host (userinfo, backslashes, fragments, percent-encoded and full-width hosts, trailing dots, IP
 * spellings, IPv4-mapped IPv6, 0.0.0.0 and *.localhost), for every URL-valued argument of the call. Inline policies through createGuard.
 */
import { describe, it } from "vitest";
import type { Comparison } from "../../src/core/condition.js";
import {
  denyElseAllowPolicy,
  expectAllowed,
  expectRefused,
  type InlinePolicy,
  onlyExample,
  toolCall,
  useGuardPool,
} from "./redteam.fixture.js";

const pool = useGuardPool();

/** Never evil.test nor the cloud metadata or loopback hosts: deny rules, everything else allowed. */
const blockList: InlinePolicy = {
  name: "redteam-urls-block-list",
  rules: {
    toolRules: [
      {
        id: "http.no-evil",
        tool: "*",
        effect: "deny",
        message: "evil.test is off limits",
        when: { field: "args:url", op: "eq", part: "domain", value: "evil.test" },
      },
      {
        id: "http.no-internal",
        tool: "*",
        effect: "deny",
        message: "No loopback or metadata hosts",
        when: {
          field: "args:url",
          op: "in",
          part: "host",
          value: ["localhost", "127.0.0.1", "169.254.169.254"],
        },
      },
      { id: "http.allow", tool: "*", effect: "allow", message: "Other fetches are allowed" },
    ],
    toolDefault: "deny",
  },
};

const check = async (policy: InlinePolicy, args: Record<string, unknown>, name = "http.fetch") =>
  (await pool.get(policy)).check(toolCall({ name, args }));

describe("urls: fetch only from example.com", () => {
  it("still allows example.com", async () => {
    expectAllowed(await check(onlyExample, { url: "https://example.com/a" }), "https://example.com/a");
    expectAllowed(await check(onlyExample, { url: "https://docs.example.com/a" }), "docs.example.com");
  });

  const urls = [
    "https://example.com@evil.test/",
    "https://example.com:pw@evil.test/",
    "https://evil.test#@example.com",
    "https://evil.test\\@example.com/",
    "https://evil.test\\.example.com/",
    "https://example.com.evil.test/",
    "https://example.com%2eevil.test/",
    "https://evil.test/example.com",
    "https://evil.test/?u=https://example.com",
    "https://ex\u0430mple.com/",
    "https://evil.test",
    "//evil.test/x",
    "evil.test/x",
    "javascript:fetch('https://example.com')",
    "data:text/html,<script src=https://example.com></script>",
    "https://evil.test%00.example.com/",
    "ht tps://example.com/",
  ];
  it.each(urls)("refuses url %j", async (url) => {
    expectRefused(await check(onlyExample, { url }), `fetch ${JSON.stringify(url)}`);
  });

  it("refuses a second URL beside an allowed one, in any argument", async () => {
    for (const args of [
      { url: "https://example.com/", urls: ["https://example.com/", "https://evil.test/"] },
      { url: "https://example.com/", request: { endpoint: "https://evil.test/" } },
      { url: "https://example.com/", redirect: "https://evil.test/collect" },
      { url: ["https://example.com/", "https://evil.test/"] },
    ]) {
      expectRefused(await check(onlyExample, args), `fetch ${JSON.stringify(args)}`);
    }
  });
});

describe("urls: never evil.test, loopback or metadata hosts", () => {
  it("still allows another host", async () => {
    expectAllowed(await check(blockList, { url: "https://example.org/x" }), "example.org");
  });

  const urls = [
    "https://evil.test/",
    "https://EVIL.TEST/",
    "https://evil.test./",
    "https://sub.evil.test/",
    "HTTPS://Evil.Test:443/x",
    "https://%65vil.test/",
    "https://\uff45\uff56\uff49\uff4c.test/",
    "https://evil\u3002test/",
    "https://user:pw@evil.test/",
    "https://example.org@evil.test/",
    "https://evil.test\\@example.org/",
    "evil.test/path",
    "//evil.test/",
    "http://localhost:8080/admin",
    "http://LOCALHOST./",
    "http://127.0.0.1/",
    "http://127.1/",
    "http://0x7f.0.0.1/",
    "http://2130706433/",
    "http://017700000001/",
    "http://169.254.169.254/latest/meta-data/",
    "http://0xa9fea9fe/",
    "http://2852039166/",
    "http://169.254.43518/",
  ];
  it.each(urls)("refuses url %j", async (url) => {
    expectRefused(await check(blockList, { url }), `fetch ${JSON.stringify(url)}`);
  });

  it("refuses the URL wherever it sits in the arguments, whatever the tool", async () => {
    for (const [name, args] of [
      ["browser.open", { href: "https://evil.test/" }],
      ["webhook.post", { endpoint: "https://evil.test/hook" }],
      ["http.fetch", { url: "https://example.org/", mirrors: ["https://evil.test/"] }],
      ["http.fetch", { options: { proxy: "http://127.0.0.1:3128" }, url: "https://example.org/" }],
      ["http.batch", { requests: [{ link: "https://example.org/" }, { link: "https://evil.test/" }] }],
    ] as const) {
      expectRefused(await check(blockList, args, name), `${name} ${JSON.stringify(args)}`);
    }
  });
});

describe("urls: the same destination in another address form", () => {
  // A client connects to what these name: an IPv4-mapped IPv6 address is the IPv4 address on a
  // dual-stack socket, 0.0.0.0 (also written 0) reaches this host's loopback on Linux and macOS, and a
  // *.localhost name resolves to loopback (RFC 6761; browsers and systemd-resolved do so).
  const urls = [
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]:8080/admin",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://[::FFFF:127.0.0.1]/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "http://0.0.0.0:8080/admin",
    "http://0/",
    "http://[::ffff:0.0.0.0]:8080/",
    "http://admin.localhost/",
    "http://a.b.LOCALHOST./x",
    // The rest of 127.0.0.0/8 is loopback too (Linux routes it to lo), [::1] is loopback over IPv6 and
    // [::] reaches loopback as 0.0.0.0 does: a dual-stack service answers on each.
    "http://127.0.0.2:8080/admin",
    "http://127.255.255.254/",
    "http://[::1]:8080/admin",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::]:8080/",
    "http://[::ffff:127.0.0.2]/",
  ];
  it.each(urls)("refuses url %j", async (url) => {
    expectRefused(await check(blockList, { url }), `fetch ${JSON.stringify(url)}`);
  });

  it("still allows other IPv6 and other names", async () => {
    for (const url of [
      "http://[2001:db8::1]/",
      "http://[::ffff:93.184.215.14]/",
      "http://localhost.example.org/",
    ]) {
      expectAllowed(await check(blockList, { url }), url);
    }
  });
});

describe("urls: a rule's host or domain as the policy author spells it", () => {
  // The rule's value is read as a host too: the same IP spellings, IDNA (a Unicode name is its
  // punycode), case and trailing dots as the URL's own host, and localhost and 127.0.0.1 each as the
  // other (the names of this host's loopback every loopback address reads as).
  const deny = (name: string, when: Comparison): InlinePolicy =>
    denyElseAllowPolicy({ name, id: "no-host", message: "That host is off limits", when });

  it("a deny written one way refuses every spelling of the same host", async () => {
    const cases: [Comparison, string[]][] = [
      [
        { field: "args:url", op: "eq", part: "host", value: "localhost" },
        ["http://127.0.0.1/", "http://127.1:8080/", "http://2130706433/", "http://[::1]/", "http://0/"],
      ],
      [
        { field: "args:url", op: "eq", part: "host", value: "127.0.0.1" },
        ["http://localhost:3000/", "http://LOCALHOST./", "http://admin.localhost/"],
      ],
      [{ field: "args:url", op: "eq", part: "host", value: "2130706433" }, ["http://127.0.0.1/"]],
      [{ field: "args:url", op: "eq", part: "host", value: "::1" }, ["http://[::1]/", "http://[0:0::1]/"]],
      [{ field: "args:url", op: "eq", part: "host", value: "Evil.TEST." }, ["https://evil.test/"]],
      [
        { field: "args:url", op: "in", part: "host", value: ["example.org", "bücher.de"] },
        ["https://bücher.de/", "https://xn--bcher-kva.de/", "https://BÜCHER.de./"],
      ],
      [
        { field: "args:url", op: "eq", part: "domain", value: "Bücher.DE" },
        ["https://www.bücher.de/", "https://shop.xn--bcher-kva.de/"],
      ],
    ];
    let n = 0;
    for (const [when, urls] of cases) {
      const policy = deny(`redteam-urls-policy-host-${n++}`, when);
      for (const url of urls) {
        expectRefused(await check(policy, { url }), `${JSON.stringify(when)} on ${url}`);
      }
    }
  });

  it("a deny on an email domain written in Unicode refuses the address in either form", async () => {
    const policy = deny("redteam-urls-policy-email-domain", {
      field: "args:email",
      op: "eq",
      part: "domain",
      value: "Bücher.de",
    });
    for (const to of ["ann@bücher.de", "ann@xn--bcher-kva.de", "Ann <ann@BÜCHER.DE.>"]) {
      expectRefused(await check(policy, { to }, "mail.send"), `mail to ${to}`);
    }
  });
});
