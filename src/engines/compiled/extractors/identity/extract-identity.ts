/**
 * Who the guarded agent works for: the user's role (EICU-AC's "Identity: nursing") and attributes
 * (Mind2Web-SC's "user_info: age: 43, domestic: True, ..."). Structured context from the caller wins
 * over text, because text can be written by the user being checked; text is parsed only for what the
 * context does not give. Never throws: unreadable text lowers the confidence and says why.
 */

export type Confidence = "high" | "medium" | "low" | "none";
export type AttributeValue = boolean | number | string;

export interface IdentityFacts {
  /** Normalised role (trimmed, lower-case, single spaces), kept as written: vocabulary checks are the engine's. */
  role?: string;
  /** User attributes with normalised keys (lower-case, `_` for spaces and hyphens). */
  attributes: Record<string, AttributeValue>;
  confidence: Confidence;
  /** Where the facts came from: "context" as soon as the caller's context gave any of them. */
  source: "context" | "text";
  reason?: string;
}

const ROLE_LINE = /^[ \t]*(?:user[ \t_-]*)?(?:identity|role)[ \t]*[:=][ \t]*(.*?)[ \t]*$/i;
const ATTRIBUTE_LINE =
  /^[ \t]*(?:user[ \t_-]*(?:info(?:rmation)?|attributes|profile)|user_info)[ \t]*[:=][ \t]*(.*?)[ \t]*$/i;

const NORMAL_ROLE = /^[a-z]+(?: [a-z]+)*$/;
/** What every attribute line holds (see parseText). */
const USER_WORD = /user/i;

/** "General  Administration " -> "general administration"; quotes and a final period go. */
export function normalizeRole(options: { role: string }): string {
  // Already normal (lower-case words, single spaces), as roles usually are: nothing to change.
  if (NORMAL_ROLE.test(options.role)) return options.role;
  return options.role
    .trim()
    .replace(/[.\s]+$/, "")
    .replace(/^["'“‘`]+|["'”’`]+$/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** "Dr License" / "dr-license" -> "dr_license". */
export function normalizeAttributeKey(options: { key: string }): string {
  return options.key
    .trim()
    .replace(/^["']+|["']+$/g, "")
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

/** True/true/yes -> true, False/false/no -> false, digits -> number, None/null/"" -> undefined. */
export function coerceAttributeValue(options: { value: string }): AttributeValue | undefined {
  const v = options.value
    .trim()
    .replace(/^["'“‘]+|["'”’]+$/g, "")
    .trim();
  if (v === "" || /^(none|null|nil|n\/a|undefined)$/i.test(v)) return undefined;
  if (/^(true|yes)$/i.test(v)) return true;
  if (/^(false|no)$/i.test(v)) return false;
  if (/^[-+]?\d+(\.\d+)?$/.test(v)) return Number(v);
  return v;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface Parsed {
  attributes: Record<string, AttributeValue>;
  problems: string[];
}

/** Python- or JSON-style dict text -> object, or null. */
function parseDict(text: string): Record<string, unknown> | null {
  const attempts = [
    text,
    text
      .replace(/'/g, '"')
      .replace(/\bTrue\b/g, "true")
      .replace(/\bFalse\b/g, "false")
      .replace(/\bNone\b/g, "null")
      .replace(/,\s*}/g, "}"),
  ];
  for (const attempt of attempts) {
    try {
      const value: unknown = JSON.parse(attempt);
      if (isRecord(value)) return value;
    } catch {
      // not this spelling; try the next
    }
  }
  return null;
}

function fromRecord(record: Record<string, unknown>, parsed: Parsed, where: string): void {
  for (const [rawKey, raw] of Object.entries(record)) {
    const key = normalizeAttributeKey({ key: rawKey });
    if (key === "") continue;
    if (typeof raw === "boolean" || (typeof raw === "number" && Number.isFinite(raw))) {
      parsed.attributes[key] = raw;
    } else if (typeof raw === "string") {
      const value = where === "text" ? coerceAttributeValue({ value: raw }) : raw;
      if (value !== undefined) parsed.attributes[key] = value;
    } else if (raw !== null && raw !== undefined) {
      parsed.problems.push(`${where} attribute "${rawKey}" is not a boolean, number or text`);
    }
  }
}

/** "age: 43, domestic: True" (also JSON-ish dicts with a missing comma) -> attributes. */
function parsePairs(text: string, parsed: Parsed): void {
  const body = text.trim().replace(/^\{|\}$/g, "");
  const pieces = body
    .split(/[,;](?=(?:[^"]*"[^"]*")*[^"]*$)/)
    // A missing separator leaves two pairs in one piece: split before each further "key:".
    .flatMap((piece) => piece.split(/\s+(?=["']?[A-Za-z_][\w.]*["']?\s*[:=])/));
  for (const piece of pieces) {
    if (piece.trim() === "") continue;
    const m = /^\s*["']?([A-Za-z_][\w .-]*?)["']?\s*[:=]\s*(.*)$/.exec(piece);
    if (!m?.[1]) {
      parsed.problems.push(`could not read "${piece.trim()}"`);
      continue;
    }
    const key = normalizeAttributeKey({ key: m[1] });
    const value = coerceAttributeValue({ value: m[2] ?? "" });
    if (value === undefined) parsed.problems.push(`attribute "${key}" has no value`);
    else parsed.attributes[key] = value;
  }
}

function parseAttributeText(text: string): Parsed {
  const parsed: Parsed = { attributes: {}, problems: [] };
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const dict = parseDict(trimmed);
    if (dict) {
      fromRecord(dict, parsed, "text");
      return parsed;
    }
  }
  parsePairs(trimmed, parsed);
  return parsed;
}

/** The value of a keyed line, with continuation lines for a dict that is not closed or a dangling "key:". */
function valueWithContinuation(
  lines: string[],
  index: number,
  first: string,
): { text: string; last: number } {
  let text = first;
  let last = index;
  const open = () => (text.match(/\{/g)?.length ?? 0) > (text.match(/\}/g)?.length ?? 0);
  const dangling = () => /[:,]\s*$/.test(text) || text.trim() === "";
  while (last + 1 < lines.length && (open() || dangling()) && last - index < 20) {
    last++;
    text = `${text} ${lines[last]!.trim()}`;
  }
  return { text, last };
}

interface TextFacts {
  role?: string;
  roleConflict?: string[];
  attributes: Record<string, AttributeValue>;
  attributeConflict: boolean;
  problems: string[];
  keyed: boolean;
  bare: boolean;
}

/** `text.split(/\r?\n/)` by a plain split on "\n" (a regex split costs more than the rest of parseText). */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
  }
  return lines;
}

function parseText(input: string): TextFacts {
  const lines = splitLines(input);
  const roles: string[] = [];
  const blocks: Parsed[] = [];
  // Every attribute line starts with "user" and every bare dict with "{": text with neither (an
  // EICU-AC input) needs only the role lines looked at.
  const mayHoldAttributes = input.includes("{") || USER_WORD.test(input);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const role = ROLE_LINE.exec(line);
    if (role) {
      const value = normalizeRole({ role: role[1] ?? "" });
      if (value !== "") roles.push(value);
      continue;
    }
    if (!mayHoldAttributes) continue;
    const attrs = ATTRIBUTE_LINE.exec(line);
    if (attrs) {
      const { text, last } = valueWithContinuation(lines, i, attrs[1] ?? "");
      blocks.push(parseAttributeText(text));
      i = last;
    }
  }
  const facts: TextFacts = {
    attributes: {},
    attributeConflict: false,
    problems: [],
    keyed: roles.length > 0 || blocks.length > 0,
    bare: false,
  };
  // The official framings put the identity before the question and user_info after the task: the
  // first role line and the last user_info line are the ones the framework wrote.
  if (roles.length > 0) {
    facts.role = roles[0];
    const distinct = [...new Set(roles)];
    if (distinct.length > 1) facts.roleConflict = distinct;
  }
  if (blocks.length > 0) {
    const last = blocks.at(-1)!;
    facts.attributes = last.attributes;
    facts.problems.push(...last.problems);
    const same = (a: Parsed) =>
      JSON.stringify(sorted(a.attributes)) === JSON.stringify(sorted(last.attributes));
    facts.attributeConflict = blocks.some((b) => !same(b));
  } else if (mayHoldAttributes) {
    // No keyed line: a line holding only a dict of plain values, e.g. {"age": 37, "domestic": false}.
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.trim().startsWith("{")) continue;
      const { text, last } = valueWithContinuation(lines, i, lines[i]!);
      const dict = parseDict(text.trim());
      if (
        dict &&
        Object.values(dict).every((v) => v === null || ["boolean", "number", "string"].includes(typeof v))
      ) {
        const parsed: Parsed = { attributes: {}, problems: [] };
        fromRecord(dict, parsed, "text");
        if (Object.keys(parsed.attributes).length > 0) {
          facts.attributes = parsed.attributes;
          facts.bare = true;
        }
      }
      i = last;
    }
  }
  return facts;
}

function sorted(record: Record<string, AttributeValue>): [string, AttributeValue][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}

/** A role candidate: text that is not only white space. */
function isRoleText(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

function attributesFrom(source: unknown, parsed: Parsed): void {
  if (!isRecord(source)) return;
  const { role: _r, identity: _i, ...rest } = source;
  fromRecord(rest, parsed, "context");
}

function fromContext(context: Record<string, unknown>): { role?: string; parsed: Parsed } {
  const parsed: Parsed = { attributes: {}, problems: [] };
  const user = isRecord(context.user) ? context.user : undefined;
  // The candidates in order of precedence, looked at one by one (no array of them built per check).
  const candidate = isRoleText(context.identity)
    ? context.identity
    : isRoleText(context.role)
      ? context.role
      : isRoleText(user?.role)
        ? user.role
        : isRoleText(user?.identity)
          ? user.identity
          : undefined;
  const role = candidate === undefined ? undefined : normalizeRole({ role: candidate });
  attributesFrom(user, parsed);
  attributesFrom(context.userInfo, parsed);
  attributesFrom(context.user_info, parsed);
  attributesFrom(context.attributes, parsed);
  return role === undefined ? { parsed } : { role, parsed };
}

const RANK: Record<Confidence, number> = { high: 3, medium: 2, low: 1, none: 0 };

/** The confidence so far and the reasons given; a class, not a closure made on every call. */
class Notes {
  confidence: Confidence = "high";
  readonly reasons: string[] = [];

  note(level: Confidence, why: string): void {
    if (RANK[level] < RANK[this.confidence]) this.confidence = level;
    this.reasons.push(why);
  }
}

/** Role and user attributes of the agent's user, from the caller's context first, then from the input text. */
export function extractIdentity(options: { input?: unknown; context?: unknown }): IdentityFacts {
  const notes = new Notes();
  const ctx = isRecord(options.context)
    ? fromContext(options.context)
    : { parsed: { attributes: {}, problems: [] } as Parsed };
  const ctxRole = ctx.role;
  const ctxHasAttributes = hasKeys(ctx.parsed.attributes);
  for (const problem of ctx.parsed.problems) notes.note("medium", problem);

  const input = typeof options.input === "string" ? options.input : "";
  if (options.input !== undefined && typeof options.input !== "string")
    notes.reasons.push("the input is not text");
  // With the role from the context, the text matters only for attributes, and text that may hold none
  // (no "{", no "user": see parseText) gives no attributes and no problems: it need not be read at all.
  const needText =
    ctxRole === undefined || (!ctxHasAttributes && (input.includes("{") || USER_WORD.test(input)));
  const text = needText ? parseText(input) : undefined;

  let role = ctxRole;
  let attributes = ctx.parsed.attributes;
  let usedText = false;
  if (role === undefined && text?.role !== undefined) {
    role = text.role;
    usedText = true;
    if (text.roleConflict)
      notes.note("low", `several different roles in the text: ${text.roleConflict.join(", ")}`);
  }
  if (!ctxHasAttributes && text && hasKeys(text.attributes)) {
    attributes = text.attributes;
    usedText = true;
    if (text.attributeConflict)
      notes.note("low", "several different user_info lines in the text; took the last");
    if (text.bare) notes.note("medium", "attributes read from a dict without a user_info key");
    for (const problem of text.problems) notes.note("medium", problem);
  } else if (!ctxHasAttributes && text && text.keyed && text.problems.length > 0) {
    for (const problem of text.problems) notes.note("low", problem);
  }

  const fromCtx = ctxRole !== undefined || ctxHasAttributes;
  const found = role !== undefined || hasKeys(attributes);
  if (!found) {
    notes.confidence = "none";
    notes.reasons.push("no role or user attributes in the context or the input");
  } else if (fromCtx && usedText) {
    notes.reasons.push(
      ctxRole !== undefined ? "attributes read from the input text" : "role read from the input text",
    );
  }
  const facts: IdentityFacts =
    role !== undefined
      ? { role, attributes, confidence: notes.confidence, source: fromCtx ? "context" : "text" }
      : { attributes, confidence: notes.confidence, source: fromCtx ? "context" : "text" };
  if (notes.reasons.length > 0) facts.reason = notes.reasons.join("; ");
  return facts;
}

/** Object.keys(record).length > 0, without building the array of keys. */
function hasKeys(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}
