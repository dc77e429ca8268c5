/**
 * The `url-scope` detector: is the URL a step visits (a goto's target, else the page URL) outside — or,
 * with `report: "inside"`, inside — the allowed scope? The scope is a list of origins
 * ("https://gitlab.example.com"), hosts ("gitlab.example.com", "*.example.com") or URL prefixes
 * ("https://gitlab.example.com/byteblaze/"), minus an optional deny list of the same forms. No URL on
 * the step: cannot tell (undefined).
 */
import { z } from "zod";
import type { Detector } from "./detector.js";
import { parseDetectorParams, readText } from "./detector-params.js";

const UrlScopeParamsSchema = z.looseObject({
  allow: z.array(z.string().min(1)).min(1, "list at least one allowed origin, host or prefix"),
  deny: z.array(z.string().min(1)).optional(),
  report: z.enum(["outside", "inside"]).default("outside"),
});

interface ParsedUrl {
  protocol: string;
  host: string;
  port: string;
  path: string;
  href: string;
}

function parse(url: string): ParsedUrl | null {
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`);
    return {
      protocol: u.protocol,
      host: u.hostname.toLowerCase(),
      port: u.port,
      // Hash-routed apps keep their route in the fragment, so it is part of the path here.
      path: `${u.pathname}${u.hash}`,
      href: u.href,
    };
  } catch {
    return null;
  }
}

function entryMatches(entry: string, url: ParsedUrl): boolean {
  const e = entry.trim();
  if (e.startsWith("*.")) {
    const suffix = e.slice(1).toLowerCase();
    return url.host.endsWith(suffix) || url.host === suffix.slice(1);
  }
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(e);
  const target = parse(e);
  if (!target) return false;
  if (hasScheme && target.protocol !== url.protocol) return false;
  if (target.host !== url.host) return false;
  if (hasScheme && target.port !== url.port) return false;
  if (!hasScheme && /:\d+/.test(e.split("/")[0] ?? "") && target.port !== url.port) return false;
  // A path prefix matches whole segments: "/byteblaze" covers "/byteblaze/x", not "/byteblazers".
  const prefix = target.path === "/" ? "" : target.path.replace(/\/+$/, "");
  return prefix === "" || url.path === prefix || url.path.startsWith(`${prefix}/`);
}

export const urlScopeDetector: Detector = {
  name: "url-scope",
  description:
    "true when the visited URL (field default: the goto target, else the page URL) is outside the allowed origins/prefixes (report: inside flips it)",
  detect({ facts, params, field }) {
    const p = parseDetectorParams({ schema: UrlScopeParamsSchema, params, detector: "url-scope" });
    const raw = field
      ? readText({ facts, field, fallback: "url" })
      : facts.targetUrl !== ""
        ? facts.targetUrl
        : facts.url;
    if (raw === undefined || raw.trim() === "") return undefined;
    const url = parse(raw.trim());
    if (!url) return undefined;
    const inside =
      p.allow.some((e) => entryMatches(e, url)) && !(p.deny ?? []).some((e) => entryMatches(e, url));
    return p.report === "inside" ? inside : !inside;
  },
};
