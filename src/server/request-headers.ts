/**
 * A request header, read as the WHATWG `Headers.get` answers it (name matched without regard to case,
 * repeated fields joined with ", ", surrounding HTTP whitespace dropped). Under @hono/node-server it is
 * read from Node's raw header list: `c.req.header()` builds a Headers object of every field on first use,
 * which costs a request several µs, and the service reads only a handful of fields. Elsewhere
 * (`app.request()` in tests, another runtime) the Request's own headers answer.
 */
import type { IncomingMessage } from "node:http";

/** How a request's header fields are read: by lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

const isHttpWhitespace = (code: number | undefined) =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/** `value` without leading and trailing HTTP whitespace (space, tab, CR, LF), as Headers normalises it. */
function trimHttpWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** The field `name` (lower case) of a raw header list [name, value, name, value, ...], as Headers.get. */
export function rawHeader(options: { rawHeaders: readonly string[]; name: string }): string | undefined {
  const { rawHeaders, name } = options;
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = rawHeaders[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const field = trimHttpWhitespace(rawHeaders[i + 1] ?? "");
    value = value === undefined ? field : `${value}, ${field}`;
  }
  return value;
}

/** The header reader of a request: Node's raw list when there is one, else the Request's Headers. */
export function headerReader(options: {
  incoming: IncomingMessage | undefined;
  request: { header(name: string): string | undefined };
}): HeaderReader {
  const { incoming, request } = options;
  if (!incoming) return (name) => request.header(name);
  const { rawHeaders } = incoming;
  return (name) => rawHeader({ rawHeaders, name });
}
