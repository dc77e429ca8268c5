import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalUrl, ruleHostForms, type UrlParts } from "./url.js";

function forms(url: unknown): UrlParts[] {
  const result = canonicalUrl({ url });
  if (!result.ok) throw new Error(`undetermined: ${result.reason}`);
  return result.forms;
}

function one(url: unknown): UrlParts {
  const all = forms(url);
  expect(all).toHaveLength(1);
  return all[0]!;
}

function hosts(url: unknown): string[] {
  return forms(url).map((f) => f.host);
}

describe("canonicalUrl: hosts", () => {
  it("lower-cases scheme and host and drops the trailing dot", () => {
    expect(one("HTTP://EXAMPLE.COM.")).toEqual({
      href: "http://example.com/",
      scheme: "http",
      host: "example.com",
      domain: "example.com",
      port: "80",
      path: "/",
      userinfo: "",
    });
  });

  it("moves userinfo out of the host: good.com@evil.com is evil.com", () => {
    const parts = one("https://user:pw@good.com@evil.com/a?b#c");
    expect(parts.host).toBe("evil.com");
    expect(parts.userinfo).toBe("user:pw%40good.com");
    expect(parts.href).toBe("https://evil.com/a?b#c");
    expect(one("http://good.com@evil.com").host).toBe("evil.com");
  });

  it("reads `\\` both the WHATWG way and the RFC 3986 way", () => {
    expect(hosts("http://evil.com\\@good.com")).toEqual(["evil.com", "good.com"]);
  });

  it("maps IDN hosts to punycode, whichever way they were written", () => {
    expect(one("http://ëxample.com/").host).toBe("xn--xample-ova.com");
    expect(one("http://XN--XAMPLE-OVA.com/").host).toBe("xn--xample-ova.com");
    expect(one("http://ＥＸＡＭＰＬＥ.com/").host).toBe("example.com");
  });

  it("resolves IPv4 shorthands", () => {
    const parts = one("http://0x7f.1/");
    expect(parts.host).toBe("127.0.0.1");
    expect(parts.domain).toBe("127.0.0.1");
    expect(one("http://2130706433/").host).toBe("127.0.0.1");
  });

  it("keeps IPv6 brackets and uses the host as the domain", () => {
    const parts = one("http://[2001:DB8::1]:8080/");
    expect(parts.host).toBe("[2001:db8::1]");
    expect(parts.domain).toBe("[2001:db8::1]");
    expect(parts.port).toBe("8080");
  });

  it("domain is the registrable domain", () => {
    expect(one("https://a.b.example.co.uk/").domain).toBe("example.co.uk");
    expect(one("https://www.example.com.evil.test/").domain).toBe("evil.test");
    expect(one("http://localhost:3000/").domain).toBe("localhost");
  });

  it("lower-cases and IDNA-maps opaque hosts of other schemes", () => {
    expect(one("foo://Example.COM/x").host).toBe("example.com");
  });
});

describe("canonicalUrl: hosts that reach another host's address", () => {
  const hosts = (url: string) => forms(url).map((f) => f.host);

  it("reads an IPv4-mapped IPv6 address as its IPv4 address too, its href and domain with it", () => {
    expect(hosts("http://[::ffff:127.0.0.1]/")).toEqual(["[::ffff:7f00:1]", "127.0.0.1"]);
    expect(hosts("http://[0:0:0:0:0:FFFF:a9fe:a9fe]/x")).toEqual(["[::ffff:a9fe:a9fe]", "169.254.169.254"]);
    const mapped = forms("http://[::ffff:10.0.0.1]:8080/x")[1]!;
    expect(mapped).toMatchObject({ host: "10.0.0.1", domain: "10.0.0.1", href: "http://10.0.0.1:8080/x" });
  });

  it("reads 0.0.0.0 (however written) as loopback too, and *.localhost as localhost", () => {
    expect(hosts("http://0.0.0.0:8080/")).toEqual(["0.0.0.0", "127.0.0.1"]);
    expect(hosts("http://0/")).toEqual(["0.0.0.0", "127.0.0.1"]);
    expect(hosts("http://[::ffff:0.0.0.0]/")).toEqual(["[::ffff:0:0]", "0.0.0.0", "127.0.0.1"]);
    expect(hosts("http://Admin.LOCALHOST./")).toEqual(["admin.localhost", "localhost"]);
  });

  it("reads the rest of 127.0.0.0/8, [::1] and [::] as 127.0.0.1 too", () => {
    expect(hosts("http://127.0.0.2/")).toEqual(["127.0.0.2", "127.0.0.1"]);
    expect(hosts("http://127.1.2.3/")).toEqual(["127.1.2.3", "127.0.0.1"]);
    expect(hosts("http://[::1]:8080/")).toEqual(["[::1]", "127.0.0.1"]);
    expect(hosts("http://[0:0::0:1]/")).toEqual(["[::1]", "127.0.0.1"]);
    expect(hosts("http://[::]/")).toEqual(["[::]", "127.0.0.1"]);
    expect(hosts("http://[::ffff:127.9.9.9]/")).toEqual(["[::ffff:7f09:909]", "127.9.9.9", "127.0.0.1"]);
  });

  it("leaves other addresses and names one reading", () => {
    for (const url of [
      "http://[::2]/",
      "http://[2001:db8::ffff:1:1]/",
      "http://localhost/",
      "http://localhost.example.org/",
      "http://127.0.0.1/",
      "http://128.0.0.1/",
    ]) {
      expect(forms(url), url).toHaveLength(1);
    }
  });

  it("every IPv4 address mapped into IPv6 reads as itself", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(hosts(`http://[::ffff:${ip}]/`)).toContain(forms(`http://${ip}/`)[0]!.host);
      }),
      { numRuns: 300 },
    );
  });
});

describe("ruleHostForms: a host as a rule writes it", () => {
  it("is the host as a URL's canonical form holds it", () => {
    expect(ruleHostForms({ host: "Bücher.DE." })).toEqual(["xn--bcher-kva.de"]);
    expect(ruleHostForms({ host: " EVIL.test " })).toEqual(["evil.test"]);
    expect(ruleHostForms({ host: "%65vil.test" })).toEqual(["evil.test"]);
    expect(ruleHostForms({ host: "0xa9fea9fe" })).toEqual(["169.254.169.254"]);
    expect(ruleHostForms({ host: "::1" })).toEqual(["[::1]"]);
    expect(ruleHostForms({ host: "[0:0::1]" })).toEqual(["[::1]"]);
    expect(ruleHostForms({ host: "127.0.0.2" })).toEqual(["127.0.0.2"]);
  });

  it("names this host's loopback by both its names, and no other address by them", () => {
    expect(ruleHostForms({ host: "LOCALHOST." })).toEqual(["localhost", "127.0.0.1"]);
    expect(ruleHostForms({ host: "127.1" })).toEqual(["127.0.0.1", "localhost"]);
    expect(ruleHostForms({ host: "2130706433" })).toEqual(["127.0.0.1", "localhost"]);
    expect(ruleHostForms({ host: "[::1]" })).not.toContain("localhost");
    expect(ruleHostForms({ host: "app.localhost" })).toEqual(["app.localhost"]);
  });

  it("has no form for what is not a host alone", () => {
    for (const host of ["", "  ", "example.com:8080", "127.0.0.1:80", "example.com/x", "user@example.com"]) {
      expect(ruleHostForms({ host }), host).toEqual([]);
    }
    for (const host of ["https://example.com", "a b.com", "exa\\mple.com", "x?y", "[::1", "999.1.1.1.1"]) {
      expect(ruleHostForms({ host }), host).toEqual([]);
    }
  });

  it("a rule naming a URL's host as written holds for that URL's canonical host", () => {
    const host = fc.oneof(
      fc.domain(),
      fc.ipV4(),
      fc.ipV4Extended(),
      fc.ipV6().map((ip) => `[${ip}]`),
      fc.string({ unit: fc.constantFrom(..."abcDEFëü.-0x1%"), minLength: 1, maxLength: 16 }),
    );
    fc.assert(
      fc.property(host, (written) => {
        const url = canonicalUrl({ url: `http://${written}/` });
        fc.pre(url.ok);
        const canonical = url.ok ? url.forms[0]!.host : "";
        expect(ruleHostForms({ host: written })[0]).toBe(canonical);
      }),
      { numRuns: 500 },
    );
  });
});

describe("canonicalUrl: ports and schemes", () => {
  it.each([
    ["https://example.com/", "443"],
    ["http://example.com:80/", "80"],
    ["http://example.com:8080/", "8080"],
    ["wss://example.com/", "443"],
    ["ftp://example.com/", "21"],
    ["gopher://example.com/", ""],
  ])("%s → port %s", (url, port) => {
    expect(one(url).port).toBe(port);
  });

  it("reads scheme-less input as https", () => {
    expect(one("example.com/x")).toMatchObject({ scheme: "https", host: "example.com", path: "/x" });
    expect(one("//evil.com/x")).toMatchObject({ scheme: "https", host: "evil.com" });
    expect(one("example.com:8080/x")).toMatchObject({ host: "example.com", port: "8080" });
    expect(one("localhost:3000")).toMatchObject({ host: "localhost", port: "3000" });
  });

  it("a scheme-less user:pass@host is also read as https to that host", () => {
    expect(hosts("user:pass@evil.com/x")).toContain("evil.com");
  });

  it("keeps registered opaque schemes as they are", () => {
    expect(one("mailto:Bob@X.com")).toMatchObject({ scheme: "mailto", host: "", path: "Bob@X.com" });
    expect(one("javascript:alert(1)")).toMatchObject({ scheme: "javascript", host: "" });
  });
});

describe("canonicalUrl: paths", () => {
  it("resolves dot segments, encoded ones included", () => {
    expect(one("http://x.com/a/../b/./c").path).toBe("/b/c");
    expect(one("http://x.com/a/%2e%2e/b").path).toBe("/b");
  });

  it("adds the decoded reading, to a bounded fixpoint", () => {
    const paths = forms("https://x.com/public/..%2f..%2fadmin").map((f) => f.path);
    expect(paths).toEqual(["/public/..%2f..%2fadmin", "/admin"]);
    expect(forms("https://x.com/%252e%252e/admin").map((f) => f.path)).toContain("/admin");
    expect(canonicalUrl({ url: "https://x.com/%252525252e" }).ok).toBe(false);
    expect(canonicalUrl({ url: "https://x.com/%ff" }).ok).toBe(false);
  });

  it("decoded backslashes are also read as separators", () => {
    expect(forms("https://x.com/a%5c..%5cadmin").map((f) => f.path)).toContain("/admin");
  });
});

describe("canonicalUrl: undetermined", () => {
  it.each([[""], ["   "], ["http://"], ["http://exa mple.com/"], ["https://[::1/"], ["http://a:b:c@/"]])(
    "%j",
    (url) => {
      expect(canonicalUrl({ url }).ok).toBe(false);
    },
  );

  it.each([[undefined], [null], [1], [{ href: "http://x" }]])("non-string %j", (url) => {
    const result = canonicalUrl({ url });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/not a string/);
  });

  it("an over-long URL is undetermined", () => {
    expect(canonicalUrl({ url: `https://x.com/${"a".repeat(70_000)}` }).ok).toBe(false);
  });
});

describe("canonicalUrl properties", () => {
  const urlish = fc.oneof(
    fc.string(),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string({ unit: fc.constantFrom(..."htps:/\\@.%2eEfx0[]:#?ë"), maxLength: 30 }),
  );

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.oneof(urlish, fc.anything()), (url) => {
        const result = canonicalUrl({ url });
        if (result.ok) expect(result.forms.length).toBeGreaterThan(0);
        else expect(typeof result.reason).toBe("string");
      }),
      { numRuns: 500 },
    );
  });

  it("is idempotent: a form's href canonicalises to the same host, domain, port and scheme", () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        for (const form of forms(url)) {
          const again = forms(form.href);
          expect(again.map((f) => [f.scheme, f.host, f.domain, f.port])).toContainEqual([
            form.scheme,
            form.host,
            form.domain,
            form.port,
          ]);
          expect(again.map((f) => f.href)).toContain(form.href);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("host is lower-case ASCII without a trailing dot", () => {
    fc.assert(
      fc.property(urlish, (url) => {
        const result = canonicalUrl({ url });
        if (!result.ok) return;
        for (const form of result.forms) {
          expect(form.host).toBe(form.host.toLowerCase());
          expect(form.host.endsWith(".")).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
