/**
 * A URL split the way web-navigation policies are written: `base` is host + path + `#fragment`
 * (hash-routed apps such as SuiteCRM 8 keep their route in the fragment), percent-decoded and without a
 * trailing slash, so that a pattern like "/profile" or "/#/admin" is a plain substring test; `query`
 * holds the query parameters (from the real query and from a query inside the fragment).
 */

export interface UrlParts {
  /** The URL as given ("" when none). */
  href: string;
  host: string;
  path: string;
  fragment: string;
  base: string;
  query: Record<string, string[]>;
}

export const EMPTY_URL_PARTS: UrlParts = { href: "", host: "", path: "", fragment: "", base: "", query: {} };

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Adds the parameters of `search` to `query`. A Map, not a plain object: a page chooses the keys, and
 * `constructor`, `__proto__` or `toString` must be keys like any other, not Object.prototype's members.
 */
function addQuery(query: Map<string, string[]>, search: string): void {
  for (const [k, v] of new URLSearchParams(search)) {
    const list = query.get(k);
    if (list) list.push(v);
    else query.set(k, [v]);
  }
}

/**
 * Splits a URL; accepts absolute URLs, scheme-less ones ("gitlab.local/x") and bare paths ("/x").
 * Never throws: an unparseable string is treated as a path.
 */
export function urlParts(options: { url: string | undefined }): UrlParts {
  const href = (options.url ?? "").trim();
  if (href === "") return { ...EMPTY_URL_PARTS, query: {} };
  let rest = href.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const hasScheme = rest !== href;
  let fragment = "";
  const hashAt = rest.indexOf("#");
  if (hashAt >= 0) {
    fragment = rest.slice(hashAt + 1);
    rest = rest.slice(0, hashAt);
  }
  let search = "";
  const queryAt = rest.indexOf("?");
  if (queryAt >= 0) {
    search = rest.slice(queryAt + 1);
    rest = rest.slice(0, queryAt);
  }
  let host = "";
  let path = rest;
  if (hasScheme || (!rest.startsWith("/") && /^[^/]+\.[^/]+/.test(rest))) {
    const slash = rest.indexOf("/");
    host = slash >= 0 ? rest.slice(0, slash) : rest;
    path = slash >= 0 ? rest.slice(slash) : "";
    // Credentials in the authority are not part of where the agent went.
    host = host.replace(/^[^@]*@/, "").toLowerCase();
  }
  const params = new Map<string, string[]>();
  addQuery(params, search);
  const fragmentQuery = fragment.indexOf("?");
  if (fragmentQuery >= 0) addQuery(params, fragment.slice(fragmentQuery + 1));
  // fromEntries defines each key as an own property (assignment would set the prototype for "__proto__").
  const query: Record<string, string[]> = Object.fromEntries(params);
  let base = decode(host + path + (hashAt >= 0 ? `#${fragment}` : ""));
  while (base.endsWith("/")) base = base.slice(0, -1);
  return { href, host, path: decode(path), fragment: decode(fragment), base, query };
}
