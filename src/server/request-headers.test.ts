import { describe, expect, it } from "vitest";
import { rawHeader } from "./request-headers.js";

/** What the WHATWG Headers object answers for the same raw list: the reader must agree with it. */
function viaHeaders(rawHeaders: string[], name: string): string | undefined {
  const headers = new Headers();
  for (let i = 0; i < rawHeaders.length; i += 2)
    headers.append(rawHeaders[i] as string, rawHeaders[i + 1] as string);
  return headers.get(name) ?? undefined;
}

describe("rawHeader", () => {
  const cases: [string, string[], string][] = [
    ["one field, any case", ["HoSt", "127.0.0.1:8787", "Content-Type", "application/json"], "host"],
    ["repeated fields joined", ["Host", "a.example", "host", "b.example"], "host"],
    ["missing", ["Host", "a.example"], "origin"],
    ["surrounding whitespace", ["Origin", " \thttps://a.example\t "], "origin"],
    ["unicode space kept", ["Host", "a.example\u00a0"], "host"],
    ["same length, other name", ["Hosz", "x"], "host"],
  ];
  it.each(cases)("answers as Headers.get: %s", (_name, raw, name) => {
    expect(rawHeader({ rawHeaders: raw, name })).toBe(viaHeaders(raw, name));
  });
});
