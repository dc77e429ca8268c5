/**
 * fast-check arbitraries for EHRAgent-style programs, for the differential test that holds the EHRAgent
 * extractor to CPython (issue 9, item 3b). A program is what EHRAgent writes (LoadDB, FilterDB,
 * GetValue, SQLInterpreter, Calendar, Calculate over the eICU tables) with the table and column names
 * built the ways Python allows: concatenation, `.format` with and without specs, f-strings, `%`,
 * slicing, string methods, lists and dicts mutated in place, loops with break/continue/else, global and
 * nonlocal writes, comprehensions, NFKC-equivalent identifiers, exceptions, dynamic code, SQL with every
 * identifier quoting SQLite accepts, pandas-style access on the tables, Calendar arguments that are SQL
 * (EHRAgent pastes them into a query), and names taken from the data (which the extractor cannot know
 * and must not claim to). Each name-building construct puts a real column (or table) of the
 * same table where a wrong reading of Python would look, so a misreading names something that exists
 * and shows up as a missed read rather than as an unknown name. The generator never needs to know what
 * the program reads: CPython tells. Each program carries the tags of the constructs it uses, so that a
 * discrepancy can be traced to a class of construct.
 */
import fc from "fast-check";
import { EICU_SCHEMA } from "../../src/engines/compiled/extractors/ehragent/schema.js";

export interface GeneratedProgram {
  code: string;
  /** The construct classes the program uses, e.g. "format-spec", "list-mutation", "sql-quoted". */
  tags: string[];
}

const TABLES = Object.keys(EICU_SCHEMA).sort();
const columnsOf = (table: string): readonly string[] => EICU_SCHEMA[table] ?? [];
/** Tables with a patientunitstayid, the join key EHRAgent uses. */
const STAY_TABLES = TABLES.filter((table) => columnsOf(table).includes("patientunitstayid"));

/** Where rendered lines go: the current block's indentation, fresh names, the tags used. */
class Ctx {
  readonly lines: string[] = [];
  readonly tags = new Set<string>();
  indent = 0;
  private counter = 0;
  emit(line: string): void {
    this.lines.push("    ".repeat(this.indent) + line);
  }
  fresh(base = "v"): string {
    this.counter += 1;
    return `${base}${this.counter}`;
  }
  tag(name: string): void {
    this.tags.add(name);
  }
}

/** Renders an expression (emitting any statements it needs first) and returns its text. */
type Piece = (ctx: Ctx) => string;

// ---------------------------------------------------------------------------------------------------
// Python string literals

type LiteralStyle =
  | "single"
  | "double"
  | "triple"
  | "raw"
  | "hex"
  | "unicode"
  | "named"
  | "octal"
  | "implicit";
const LITERAL_STYLES: LiteralStyle[] = [
  "single",
  "single",
  "double",
  "triple",
  "raw",
  "hex",
  "unicode",
  "named",
  "octal",
  "implicit",
];

function escapeFor(text: string, quote: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(new RegExp(quote, "g"), `\\${quote}`)
    .replace(/\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** A Python literal for `text`, written in one of several equivalent spellings. */
function pyStr(text: string, style: LiteralStyle = "single", at = 0): string {
  const plain = `'${escapeFor(text, "'")}'`;
  if (text.length === 0) return plain;
  const i = at % text.length;
  const ch = text[i]!;
  const code = ch.charCodeAt(0);
  const escapeOne = (sequence: string) =>
    `'${escapeFor(text.slice(0, i), "'")}${sequence}${escapeFor(text.slice(i + 1), "'")}'`;
  switch (style) {
    case "double":
      return `"${escapeFor(text, '"')}"`;
    case "triple":
      return /'|\\|\n/.test(text) ? plain : `'''${text}'''`;
    case "raw":
      return /'|\\|\n/.test(text) ? plain : `r'${text}'`;
    case "hex":
      return code < 128 ? escapeOne(`\\x${code.toString(16).padStart(2, "0")}`) : plain;
    case "unicode":
      return escapeOne(`\\u${code.toString(16).padStart(4, "0")}`);
    case "named":
      return /[a-z]/.test(ch) ? escapeOne(`\\N{LATIN SMALL LETTER ${ch.toUpperCase()}}`) : plain;
    case "octal":
      return code < 128 ? escapeOne(`\\${code.toString(8).padStart(3, "0")}`) : plain;
    case "implicit":
      return text.length < 2
        ? plain
        : `${pyStr(text.slice(0, i || 1), "single")} ${pyStr(text.slice(i || 1), "double")}`;
    default:
      return plain;
  }
}

const literal = (text: string): fc.Arbitrary<Piece> =>
  fc
    .tuple(fc.constantFrom(...LITERAL_STYLES, "single", "single", "single", "double"), fc.nat({ max: 40 }))
    .map(([style, at]) => (ctx: Ctx) => {
      if (style !== "single") ctx.tag("escape");
      return pyStr(text, style, at);
    });

/** Binds the piece's value to a fresh variable (for f-strings, whose fields must not reuse the quote). */
function bind(ctx: Ctx, piece: Piece, base = "v"): string {
  const expression = piece(ctx);
  const name = ctx.fresh(base);
  ctx.emit(`${name} = ${expression}`);
  return name;
}

// ---------------------------------------------------------------------------------------------------
// String expressions: a Python expression whose value is `target`, built one of many ways. `decoy` is
// another real name (a column of the same table, or another table) put where a misreading would look.

interface Target {
  text: string;
  decoy: string;
  /** A longer real name that starts with `text` (labresult / labresulttime), for precision traps. */
  longer?: string;
}

type Variant = (target: Target, depth: number) => fc.Arbitrary<Piece> | null;

const pick = <T>(items: readonly T[]) => fc.constantFrom(...items);

const concat: Variant = (t, depth) =>
  t.text.length < 2
    ? null
    : fc.integer({ min: 1, max: t.text.length - 1 }).chain((k) =>
        fc
          .tuple(
            stringExpr({ ...t, text: t.text.slice(0, k) }, depth - 1),
            stringExpr({ ...t, text: t.text.slice(k) }, depth - 1),
            fc.boolean(),
          )
          .map(([a, b, aug]) => (ctx: Ctx) => {
            ctx.tag("concat");
            if (!aug) return `(${a(ctx)} + ${b(ctx)})`;
            const name = bind(ctx, a);
            ctx.emit(`${name} += ${b(ctx)}`);
            return name;
          }),
      );

const format: Variant = (t, depth) =>
  fc
    .tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5, 6, 7, 8]), fc.integer({ min: 1, max: 40 }))
    .map(([inner, form, k]) => (ctx: Ctx) => {
      ctx.tag("format");
      const x = inner(ctx);
      switch (form) {
        case 0:
          return `'{}'.format(${x})`;
        case 1:
          return `'{0}'.format(${x})`;
        case 2:
          return `'{key}'.format(key=${x})`;
        case 3:
          return `'{0[0]}'.format([${x}])`;
        case 4:
          return `'{0[key]}'.format({'key': ${x}})`;
        case 5:
          return `'{!s}'.format(${x})`;
        case 6:
          return `format(${x})`;
        case 7:
          return `'{:s}'.format(${x})`;
        default: {
          // A width no longer than the text pads nothing.
          const width = Math.max(1, Math.min(k, t.text.length));
          return `'{:<${width}}'.format(${x})`;
        }
      }
    });

const formatPrecision: Variant = (t, depth) => {
  const source = t.longer ?? t.text + t.decoy;
  const n = t.text.length;
  return fc
    .tuple(stringExpr({ ...t, text: source, longer: undefined }, depth - 1), pick([0, 1, 2, 3, 4, 5]))
    .map(([inner, form]) => (ctx: Ctx) => {
      ctx.tag("format-spec");
      const x = inner(ctx);
      switch (form) {
        case 0:
          return `'{:.${n}}'.format(${x})`;
        case 1:
          return `'{0:.${n}s}'.format(${x})`;
        case 2:
          return `'%.${n}s' % ${x}`;
        case 3:
          return `f"{${bind(ctx, () => x)}:.${n}}"`;
        case 4:
          return `format(${x}, '.${n}')`;
        default:
          return `'{:.{}}'.format(${x}, ${n})`;
      }
    });
};

const formatWidth: Variant = (t, depth) =>
  fc
    .tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5]), fc.integer({ min: 1, max: 6 }))
    .map(([inner, form, extra]) => (ctx: Ctx) => {
      ctx.tag("format-spec");
      const x = inner(ctx);
      const w = t.text.length + extra;
      switch (form) {
        case 0:
          return `'{:>${w}}'.format(${x}).strip()`;
        case 1:
          return `'{:*^${w}}'.format(${x}).strip('*')`;
        case 2:
          return `('%${w}s' % ${x}).lstrip()`;
        case 3:
          return `${x}.rjust(${w}).lstrip()`;
        case 4:
          return `f"{${bind(ctx, () => x)}:>{${w}}}".strip()`;
        default:
          return `('%-${w}s' % (${x},)).rstrip()`;
      }
    });

const fstring: Variant = (t, depth) =>
  fc
    .tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3]), fc.integer({ min: 1, max: 30 }))
    .map(([inner, form, k]) => (ctx: Ctx) => {
      ctx.tag("fstring");
      const name = bind(ctx, inner);
      switch (form) {
        case 0:
          return `f"{${name}}"`;
        case 1:
          return `f'{${name}!s}'`;
        case 2:
          // `=` shows the expression and the repr: name='text'.
          return `f"{${name}=}".split("'")[1]`;
        default: {
          const cut = t.text.length > 1 ? 1 + (k % (t.text.length - 1)) : 0;
          return cut === 0 ? `f"{${name}}"` : `f"{${name}[:${cut}]}{${name}[${cut}:]}"`;
        }
      }
    });

const percent: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("percent");
    const x = inner(ctx);
    switch (form) {
      case 0:
        return `'%s' % ${x}`;
      case 1:
        return `'%(key)s' % {'key': ${x}}`;
      case 2:
        return `('%r' % (${x},))[1:-1]`;
      default:
        return `'%s%s' % (${x}, '')`;
    }
  });

const slice: Variant = (t) =>
  fc.tuple(pick([0, 1, 2, 3]), fc.constantFrom(...LITERAL_STYLES)).map(([form, style]) => (ctx: Ctx) => {
    ctx.tag("slice");
    const text = t.text;
    switch (form) {
      case 0:
        return `${pyStr(`${t.decoy}${text}`, style)}[${t.decoy.length}:]`;
      case 1:
        return `${pyStr([...text].reverse().join(""), style)}[::-1]`;
      case 2:
        return `${pyStr([...text].map((c) => `${c}#`).join(""), style)}[::2]`;
      default:
        return `${pyStr(`${text}${t.decoy}`, style)}[:${text.length}]`;
    }
  });

const caseMethods: Variant = (t) =>
  t.text !== t.text.toLowerCase()
    ? null
    : pick([0, 1, 2, 3]).map((form) => (ctx: Ctx) => {
        ctx.tag("string-method");
        switch (form) {
          case 0:
            return `${pyStr(t.text.toUpperCase())}.lower()`;
          case 1:
            return `${pyStr(t.text.charAt(0).toUpperCase() + t.text.slice(1))}.casefold()`;
          case 2:
            return `${pyStr(t.text)}.upper().lower()`;
          default:
            return `str.lower(${pyStr(t.text.toUpperCase())})`;
        }
      });

const replaceStrip: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("string-method");
    switch (form) {
      case 0:
        return `${pyStr(t.decoy)}.replace(${pyStr(t.decoy)}, ${inner(ctx)})`;
      case 1:
        return `${pyStr([...t.text].join("#"))}.replace('#', '')`;
      case 2:
        return `${pyStr(`${["  ", "\x1c", "\x85", "\u3000"][t.text.length % 4]}${t.text}\t`)}.strip()`;
      case 3:
        return `(${pyStr(t.decoy)} + ${inner(ctx)}).removeprefix(${pyStr(t.decoy)})`;
      case 4:
        return `${pyStr(`##${t.text}##`)}.strip('#')`;
      default:
        return `${inner(ctx)}.replace(${pyStr(t.decoy)}, ${pyStr(t.text)})`;
    }
  });

const splitJoin: Variant = (t, depth) =>
  fc
    .tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5]), fc.integer({ min: 1, max: 30 }))
    .map(([inner, form, k]) => (ctx: Ctx) => {
      ctx.tag("split-join");
      const cut = t.text.length > 1 ? 1 + (k % (t.text.length - 1)) : 1;
      switch (form) {
        case 0:
          return `''.join([${pyStr(t.text.slice(0, cut))}, ${pyStr(t.text.slice(cut))}])`;
        case 1:
          return `${pyStr(`${t.decoy},${t.text},${t.decoy}`)}.split(',')[1]`;
        case 2:
          return `' '.join([${pyStr(t.decoy)}, ${inner(ctx)}]).split()[-1]`;
        case 3:
          return `${pyStr(`${t.decoy}.${t.text}`)}.partition('.')[2]`;
        case 4:
          return `''.join(reversed(${pyStr([...t.text].reverse().join(""))}))`;
        default:
          return `''.join(c for c in ${pyStr([...t.text].join("~"))} if c != '~')`;
      }
    });

const listMutation: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), fc.nat({ max: 17 })).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("list-mutation");
    const x = inner(ctx);
    const d = pyStr(t.decoy);
    const l = ctx.fresh("cols");
    switch (form) {
      case 0:
        ctx.emit(`${l} = [${x}, ${d}]`);
        ctx.emit(`${l}.reverse()`);
        return `${l}[1]`;
      case 1:
        ctx.emit(`${l} = [${d}, ${x}, ${d}]`);
        ctx.emit(`${l}.pop(0)`);
        return `${l}[0]`;
      case 2: {
        const v = ctx.fresh();
        ctx.emit(`${l} = [${d}, ${x}]`);
        ctx.emit(`${v} = ${l}.pop()`);
        ctx.emit(`${l}.append(${d})`);
        return v;
      }
      case 3:
        ctx.emit(`${l} = [${d}, ${x}]`);
        ctx.emit(`${l}.remove(${d})`);
        return `${l}[0]`;
      case 4:
        ctx.emit(`${l} = [${d}, ${x}]`);
        ctx.emit(`del ${l}[0]`);
        return `${l}[0]`;
      case 5:
        ctx.emit(`${l} = [${d}]`);
        ctx.emit(`${l}.__setitem__(0, ${x})`);
        return `${l}[0]`;
      case 6:
        ctx.emit(`${l} = [${d}, ${d}]`);
        ctx.emit(`${l}[-1] = ${x}`);
        return `${l}[1]`;
      case 7:
        ctx.emit(`${l} = [${d}]`);
        ctx.emit(`${l}.insert(0, ${x})`);
        return `${l}[0]`;
      case 8: {
        // Aliasing: a write through one name is seen through the other.
        const m = ctx.fresh("alias");
        ctx.emit(`${l} = [${d}]`);
        ctx.emit(`${m} = ${l}`);
        ctx.emit(`${m}[0] = ${x}`);
        return `${l}[0]`;
      }
      case 9:
        ctx.emit(`${l} = [${d}]`);
        ctx.emit(`${l} += [${x}]`);
        return `${l}[-1]`;
      case 10:
        ctx.emit(`${l} = [${d}]`);
        ctx.emit(`${l}[0:1] = [${x}]`);
        return `${l}[0]`;
      case 12:
        ctx.emit(`${l} = [${x}, ${d}]`);
        ctx.emit(`${l}.sort()`);
        return `${l}[0]`;
      case 13: {
        // A copy is another list: writing to it leaves the original alone.
        const m = ctx.fresh("copy");
        ctx.emit(`${l} = [${x}]`);
        ctx.emit(`${m} = ${["list(L)", "L[:]", "L.copy()", "[*L]"][form % 4]!.replace("L", l)}`);
        ctx.emit(`${m}[0] = ${d}`);
        return `${l}[0]`;
      }
      case 14: {
        const m = ctx.fresh("alias");
        ctx.emit(`${l} = ${m} = [${d}]`);
        ctx.emit(`${m}[0] = ${x}`);
        return `${l}[0]`;
      }
      case 15:
        // One inner list, twice.
        ctx.emit(`${l} = [[${d}]] * 2`);
        ctx.emit(`${l}[0][0] = ${x}`);
        return `${l}[1][0]`;
      case 16:
        // Set order is the hash order (PYTHONHASHSEED is fixed by the test).
        return `list({${d}, ${x}})[0]`;
      default:
        ctx.emit(`${l} = [${d}]`);
        ctx.emit(`${l}.clear()`);
        ctx.emit(`${l}.extend([${x}])`);
        return `${l}[0]`;
    }
  });

const dictMutation: Variant = (t, depth) =>
  fc
    .tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
    .map(([inner, form]) => (ctx: Ctx) => {
      ctx.tag("dict");
      const x = inner(ctx);
      const d = pyStr(t.decoy);
      const m = ctx.fresh("names");
      switch (form) {
        case 0:
          // Duplicate keys: the last value wins.
          return `{'key': ${d}, 'key': ${x}}['key']`;
        case 1:
          ctx.emit(`${m} = {'key': ${d}}`);
          ctx.emit(`${m}.update({'key': ${x}})`);
          return `${m}['key']`;
        case 2:
          ctx.emit(`${m} = {'key': ${d}}`);
          ctx.emit(`${m}.update(key=${x})`);
          return `${m}['key']`;
        case 3:
          ctx.emit(`${m} = {'key': ${x}, 'other': ${d}}`);
          return `${m}.pop('key')`;
        case 4:
          ctx.emit(`${m} = {'key': ${d}}`);
          ctx.emit(`${m}.__setitem__('key', ${x})`);
          return `${m}['key']`;
        case 5:
          ctx.emit(`${m} = {'key': ${x}}`);
          return `${m}.setdefault('key', ${d})`;
        case 6:
          return `{'key': ${d}}.get('missing', ${x})`;
        case 7:
          ctx.emit(`${m} = {'key': ${d}, 'other': ${x}}`);
          ctx.emit(`del ${m}['key']`);
          return `list(${m}.values())[0]`;
        case 8:
          return `{**{'key': ${d}}, 'key': ${x}}['key']`;
        default:
          ctx.emit(`${m} = {'key': ${d}}`);
          ctx.emit(`${m} |= {'key': ${x}}`);
          return `${m}['key']`;
      }
    });

const loops: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5, 6])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("loop");
    const x = bind(ctx, inner);
    const d = pyStr(t.decoy);
    const v = ctx.fresh();
    const emitBlock = (lines: string[]) => {
      for (const line of lines) ctx.emit(line);
    };
    switch (form) {
      case 0:
        // After `for ... break` the loop variable holds the element it broke on.
        emitBlock([`for ${v} in [${d}, ${x}, ${d} + 'x']:`, `    if ${v} == ${x}:`, `        break`]);
        return v;
      case 1:
        emitBlock([
          `for ${v} in [${d}]:`,
          `    if ${v} == 'nothing':`,
          `        break`,
          `else:`,
          `    ${v} = ${x}`,
        ]);
        return v;
      case 2: {
        const r = ctx.fresh("r");
        emitBlock([
          `${r} = ${d}`,
          `for ${v} in [${x}, ${d}]:`,
          `    if ${v} != ${x}:`,
          `        continue`,
          `    ${r} = ${v}`,
        ]);
        return r;
      }
      case 3: {
        const i = ctx.fresh("i");
        emitBlock([
          `${i} = 0`,
          `${v} = ${d}`,
          `while ${i} < 5:`,
          `    ${i} += 1`,
          `    if ${i} == 2:`,
          `        ${v} = ${x}`,
          `        break`,
        ]);
        return v;
      }
      case 4: {
        const s = ctx.fresh("s");
        emitBlock([`${s} = ''`, `for ${v} in ${x}:`, `    ${s} += ${v}`]);
        return s;
      }
      case 6:
        // A loop left by break skips its else.
        emitBlock([`while True:`, `    ${v} = ${x}`, `    break`, `else:`, `    ${v} = ${d}`]);
        return v;
      default: {
        const i = ctx.fresh("i");
        emitBlock([
          `${v} = ${d}`,
          `for ${i}, ${v}2 in enumerate([${d}, ${x}]):`,
          `    if ${i} == 1:`,
          `        ${v} = ${v}2`,
        ]);
        return v;
      }
    }
  });

const functions: Variant = (t, depth) =>
  fc
    .tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]))
    .map(([inner, form]) => (ctx: Ctx) => {
      ctx.tag("function");
      const x = bind(ctx, inner);
      const d = pyStr(t.decoy);
      const v = ctx.fresh();
      const f = ctx.fresh("f");
      const lines = (items: string[]) => {
        for (const line of items) ctx.emit(line);
      };
      switch (form) {
        case 0:
          if (ctx.indent > 0) {
            lines([`${v} = ${x}`]);
            return v;
          }
          lines([`${v} = ${d}`, `def ${f}():`, `    global ${v}`, `    ${v} = ${x}`, `${f}()`]);
          return v;
        case 1:
          lines([
            `def ${f}():`,
            `    ${v} = ${d}`,
            `    def inner():`,
            `        nonlocal ${v}`,
            `        ${v} = ${x}`,
            `    inner()`,
            `    return ${v}`,
          ]);
          return `${f}()`;
        case 2:
          // A local of the same name leaves the outer variable alone.
          lines([`${v} = ${x}`, `def ${f}():`, `    ${v} = ${d}`, `    return ${v}`, `${f}()`]);
          return v;
        case 3:
          lines([`def ${f}(a=${x}):`, `    return a`]);
          return `${f}()`;
        case 4:
          lines([`def ${f}(a, b):`, `    return b`]);
          return `${f}(b=${x}, a=${d})`;
        case 5:
          return `(lambda *args: args[1])(${d}, ${x})`;
        case 6:
          // A decorator replaces the function it decorates.
          lines([
            `def deco_${f}(fn):`,
            `    return lambda: ${x}`,
            `@deco_${f}`,
            `def ${f}():`,
            `    return ${d}`,
          ]);
          return `${f}()`;
        case 8:
          // A return in finally replaces the one in try.
          lines([`def ${f}():`, `    try:`, `        return ${d}`, `    finally:`, `        return ${x}`]);
          return `${f}()`;
        case 9: {
          // A function that mutates the list it is given.
          const l = ctx.fresh("cols");
          lines([`def ${f}(items):`, `    items[0] = ${x}`, `${l} = [${d}]`, `${f}(${l})`]);
          return `${l}[0]`;
        }
        case 11: {
          // A default value is computed once, when the function is defined.
          const a = ctx.fresh("a");
          lines([`${a} = ${x}`, `def ${f}(value=${a}):`, `    return value`, `${a} = ${d}`]);
          return `${f}()`;
        }
        case 10:
          // Closures bind late: every lambda sees the loop variable's last value.
          lines([`${f} = [lambda: w for w in [${d}, ${x}]]`]);
          return `${f}[0]()`;
        default:
          lines([`def ${f}(n):`, `    return ${x} if n == 0 else ${f}(n - 1)`]);
          return `${f}(2)`;
      }
    });

const comprehensions: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("comprehension");
    const x = bind(ctx, inner);
    const d = pyStr(t.decoy);
    switch (form) {
      case 0:
        return `[c for c in [${d}, ${x}] if c == ${x}][0]`;
      case 1:
        return `{k: v for k, v in [('key', ${d}), ('key', ${x})]}['key']`;
      case 2:
        return `next(c for c in [${d}, ${x}] if c != ${d})`;
      default: {
        // The comprehension's variable does not leak into the enclosing scope.
        const v = ctx.fresh();
        ctx.emit(`${v} = ${x}`);
        ctx.emit(`_ = [${v} for ${v} in [${d}]]`);
        return v;
      }
    }
  });

const conditionals: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("conditional");
    const x = inner(ctx);
    const d = pyStr(t.decoy);
    switch (form) {
      case 0:
        return `(${x} if len('ab') == 2 else ${d})`;
      case 1:
        return `('' or ${x})`;
      case 2:
        return `(${d} and ${x})`;
      case 3: {
        const v = ctx.fresh();
        ctx.emit(`${v} = ${d}`);
        ctx.emit(`if 'a' in 'abc':`);
        ctx.emit(`    ${v} = ${x}`);
        return v;
      }
      default:
        return `(0 and ${d} or ${x})`;
    }
  });

const assignments: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("assign");
    const x = inner(ctx);
    const d = pyStr(t.decoy);
    const a = ctx.fresh("a");
    const b = ctx.fresh("b");
    switch (form) {
      case 0:
        ctx.emit(`${a}, ${b} = ${x}, ${d}`);
        ctx.emit(`${a}, ${b} = ${b}, ${a}`);
        return b;
      case 1:
        ctx.emit(`*_, ${a} = [${d}, ${x}]`);
        return a;
      case 2:
        ctx.emit(`${a} = ${b} = ${x}`);
        return b;
      default:
        return `(${a} := ${x})`;
    }
  });

/** Full-width letters and digits: NFKC folds them to ASCII in identifiers (not in strings). */
function fullWidth(name: string): string {
  return [...name]
    .map((c) => (/[A-Za-z0-9]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c))
    .join("");
}

const nfkcVariable: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), fc.boolean()).map(([inner, defineWide]) => (ctx: Ctx) => {
    ctx.tag("nfkc");
    const x = inner(ctx);
    const v = ctx.fresh("name");
    // The same variable, spelled two ways.
    ctx.emit(`${v} = ${pyStr(t.decoy)}`);
    ctx.emit(`${defineWide ? fullWidth(v) : v} = ${x}`);
    return defineWide ? v : fullWidth(v);
  });

const dynamic: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2, 3, 4])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("dynamic");
    const v = ctx.fresh();
    switch (form) {
      case 0:
        return `eval(${pyStr(pyStr(t.text))})`;
      case 1:
        ctx.emit(`${v} = ${pyStr(t.decoy)}`);
        ctx.emit(`exec(${pyStr(`${v} = ${pyStr(t.text)}`)})`);
        return v;
      case 2:
        ctx.emit(`${v} = ${pyStr(t.decoy)}`);
        ctx.emit(`globals()['${v}'] = ${inner(ctx)}`);
        return v;
      case 3:
        return `getattr(${inner(ctx)}, 'strip')()`;
      default:
        return `b${pyStr(t.text)}.decode()`;
    }
  });

const exceptions: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1, 2])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("exception");
    const x = bind(ctx, inner);
    const d = pyStr(t.decoy);
    const v = ctx.fresh();
    const lines = (items: string[]) => {
      for (const line of items) ctx.emit(line);
    };
    switch (form) {
      case 0:
        lines([
          `try:`,
          `    ${v} = ${d}`,
          `    raise ValueError(${x})`,
          `except ValueError as e:`,
          `    ${v} = str(e)`,
        ]);
        return v;
      case 1:
        lines([
          `try:`,
          `    ${v} = int('x')`,
          `except ValueError:`,
          `    ${v} = ${x}`,
          `else:`,
          `    ${v} = ${d}`,
        ]);
        return v;
      default:
        lines([`try:`, `    ${v} = [${d}][1]`, `except IndexError:`, `    ${v} = ${x}`]);
        return v;
    }
  });

const classes: Variant = (t, depth) =>
  fc.tuple(stringExpr(t, depth - 1), pick([0, 1])).map(([inner, form]) => (ctx: Ctx) => {
    ctx.tag("class");
    const x = bind(ctx, inner);
    const c = ctx.fresh("C");
    if (form === 0) {
      ctx.emit(`class ${c}:`);
      ctx.emit(`    name = ${x}`);
      return `${c}.name`;
    }
    ctx.emit(`class ${c}:`);
    ctx.emit(`    def __init__(self):`);
    ctx.emit(`        self.name = ${pyStr(t.decoy)}`);
    ctx.emit(`        self.name = ${x}`);
    return `${c}().name`;
  });

const COMPOSED: Variant[] = [
  concat,
  format,
  formatPrecision,
  formatWidth,
  fstring,
  percent,
  slice,
  caseMethods,
  replaceStrip,
  splitJoin,
  listMutation,
  dictMutation,
  loops,
  functions,
  comprehensions,
  conditionals,
  assignments,
  nfkcVariable,
  dynamic,
  exceptions,
  classes,
];

/** An expression whose Python value is `target.text`. */
function stringExpr(target: Target, depth: number): fc.Arbitrary<Piece> {
  if (depth <= 0) return literal(target.text);
  const options = COMPOSED.map((variant) => variant(target, depth)).filter(
    (arbitrary): arbitrary is fc.Arbitrary<Piece> => arbitrary !== null,
  );
  return fc.oneof(
    // About half the names are plain literals, so that a program holds one or two constructs and the
    // extractor's verdict on each is seen, not drowned by another it does not model.
    { arbitrary: literal(target.text), weight: options.length },
    ...options.map((arbitrary) => ({ arbitrary, weight: 1 })),
  );
}

// ---------------------------------------------------------------------------------------------------
// Names

const otherOf = (items: readonly string[], item: string, k: number): string => {
  const others = items.filter((x) => x !== item);
  return others[k % others.length] ?? item;
};

const tableTarget = fc.tuple(pick(TABLES), fc.nat()).map(([table, k]) => ({
  table,
  target: { text: table, decoy: otherOf(TABLES, table, k) } as Target,
}));

function columnTarget(table: string): fc.Arbitrary<Target> {
  const columns = columnsOf(table);
  return fc.tuple(pick(columns), fc.nat()).map(([column, k]) => {
    const longer = columns.find((c) => c !== column && c.startsWith(column));
    return { text: column, decoy: otherOf(columns, column, k), ...(longer ? { longer } : {}) };
  });
}

const DEPTH = 2;

/** How the program names a toolbox function: plainly, NFKC-equivalent, or through a value. */
const toolName = (name: string): fc.Arbitrary<Piece> =>
  fc.oneof(
    { arbitrary: fc.constant<Piece>(() => name), weight: 6 },
    {
      arbitrary: pick([0, 1, 2, 3, 4]).map((form) => (ctx: Ctx) => {
        ctx.tag("tool-alias");
        switch (form) {
          case 0:
            ctx.tag("nfkc");
            return fullWidth(name);
          case 1: {
            const alias = ctx.fresh("tool");
            ctx.emit(`${alias} = ${name}`);
            return alias;
          }
          case 2:
            return `[${name}][0]`;
          case 3:
            return `{'fn': ${name}}['fn']`;
          default:
            ctx.tag("dynamic");
            return `globals()['${name}']`;
        }
      }),
      weight: 1,
    },
  );

// ---------------------------------------------------------------------------------------------------
// Steps: what a program does with the toolbox.

type Step = (ctx: Ctx) => string | null;

const OPERATORS = ["=", "=", ">", "<", ">=", "<=", "!="];

/** A FilterDB condition part: `column<op>value` or `max(column)`, its column built by stringExpr. */
function conditionPart(table: string): fc.Arbitrary<(ctx: Ctx) => { pieces: string[]; exprs: string[] }> {
  return fc
    .tuple(columnTarget(table), pick(OPERATORS), pick(["1", "2104-01-01", "lab", "0"]), fc.nat({ max: 10 }))
    .chain(([target, op, value, shape]) =>
      stringExpr(target, shape < 5 ? 0 : shape === 10 ? DEPTH + 1 : DEPTH).map((piece) => (ctx: Ctx) => {
        const expr = piece(ctx);
        // EHRAgent's FilterDB, finding no comparison, takes the column inside max( or min( anywhere.
        if (shape === 10) return { pieces: [`${target.decoy} like max(`, ")"], exprs: [expr] };
        if (shape === 9) return { pieces: ["max(", ")"], exprs: [expr] };
        if (shape === 8) return { pieces: ["min(", ")"], exprs: [expr] };
        return { pieces: ["", `${op}${value}`], exprs: [expr] };
      }),
    );
}

/** Text assembled from literal pieces and expressions, the way the program writes it. */
function assemble(ctx: Ctx, pieces: string[], exprs: string[], how: number): string {
  // pieces.length === exprs.length + 1
  if (exprs.length === 0) return pyStr(pieces[0] ?? "");
  switch (how % 4) {
    case 0: {
      ctx.tag("format");
      const template = pieces.map((p) => p.replace(/\{/g, "{{").replace(/\}/g, "}}")).join("{}");
      return `${pyStr(template)}.format(${exprs.join(", ")})`;
    }
    case 1: {
      ctx.tag("fstring");
      const names = exprs.map((e) => {
        const name = ctx.fresh("part");
        ctx.emit(`${name} = ${e}`);
        return name;
      });
      let body = "";
      pieces.forEach((p, i) => {
        body += escapeFor(p.replace(/\{/g, "{{").replace(/\}/g, "}}"), '"');
        if (i < names.length) body += `{${names[i]}}`;
      });
      return `f"${body}"`;
    }
    case 2: {
      ctx.tag("percent");
      const template = pieces.map((p) => p.replace(/%/g, "%%")).join("%s");
      return `${pyStr(template)} % (${exprs.join(", ")},)`;
    }
    default: {
      ctx.tag("concat");
      const parts: string[] = [];
      pieces.forEach((p, i) => {
        if (p !== "") parts.push(pyStr(p));
        if (i < exprs.length) parts.push(exprs[i]!);
      });
      return parts.join(" + ");
    }
  }
}

/** DataFrame methods that take a column name (each reads that column). */
const KEYED_METHODS: ((column: string) => string)[] = [
  (c) => `sort_values(by=${c}).head(1)`,
  (c) => `sort_values(${c})`,
  (c) => `sort_values(by=[${c}])`,
  (c) => `groupby(${c})`,
  (c) => `set_index(${c})`,
  (c) => `nlargest(1, ${c})`,
  (c) => `filter(items=[${c}])`,
  (c) => `query(${c} + ' > 0')`,
  (c) => `dropna(subset=[${c}])`,
  (c) => `drop_duplicates(subset=[${c}])`,
];

/** Pandas-style reads on what LoadDB/FilterDB return (the extractor models them too). */
function pandasRead(
  ctx: Ctx,
  options: { frame: string; column: string; columnName: string; value: string; form: number },
): void {
  const { frame, column, columnName, value } = options;
  switch (options.form % 17) {
    case 0:
      ctx.emit(`${value} = ${frame}[${column}]`);
      return;
    case 1:
      ctx.emit(`${value} = ${frame}[${column}].tolist()`);
      return;
    case 2:
      ctx.emit(`${value} = ${frame}[${column}].max()`);
      return;
    case 3:
      ctx.emit(`${value} = ${frame}.${columnName}`);
      return;
    case 4:
      ctx.emit(`${value} = None`);
      ctx.emit(`for _, row in ${frame}.iterrows():`);
      ctx.emit(`    ${value} = row[${column}]`);
      return;
    case 5:
      ctx.emit(`${value} = ${frame}.iloc[0][${column}]`);
      return;
    case 6:
      ctx.emit(
        `${value} = ${frame}.${KEYED_METHODS[Math.floor(options.form / 17) % KEYED_METHODS.length]!(column)}`,
      );
      return;
    case 7:
      ctx.emit(`${value} = len(${frame}[${frame}[${column}] == 1])`);
      return;
    case 8:
      ctx.tag("whole-table");
      ctx.emit(`${value} = ${frame}.to_dict()`);
      return;
    case 9:
      ctx.tag("whole-table");
      ctx.emit(`${value} = dict(${frame})`);
      return;
    default: {
      // Cell-wise computations over every column (each reads them all).
      ctx.tag("pandas-cellwise");
      const cellwise = [
        "isin([1])",
        "count()",
        "isna().sum()",
        "eq(1).any()",
        "notna().all()",
        "isin(['lab']).values",
        "count().max()",
      ];
      ctx.emit(`${value} = ${frame}.${cellwise[options.form % cellwise.length]}`);
    }
  }
}

/** LoadDB, FilterDB with 0-2 conditions, GetValue: the shape of nearly every EHRAgent program. */
const toolboxStep: fc.Arbitrary<Step> = tableTarget.chain(({ table, target }) =>
  fc
    .tuple(
      stringExpr(target, DEPTH),
      toolName("LoadDB"),
      toolName("FilterDB"),
      toolName("GetValue"),
      fc.array(conditionPart(table), { maxLength: 2 }),
      columnTarget(table).chain((column) => stringExpr(column, DEPTH).map((piece) => ({ column, piece }))),
      pick(["", ", max", ", min", ", list", ", mean", ", sum", ", count"]),
      fc.nat(),
      fc.boolean(),
      fc.nat({ max: 9 }),
    )
    .map(
      ([tableExpr, load, filter, get, conditions, columnChoice, operation, how, useCalendar, getShape]) =>
        (ctx: Ctx) => {
          ctx.tag("toolbox");
          const db = ctx.fresh(`${table}_db`);
          ctx.emit(`${db} = ${load(ctx)}(${tableExpr(ctx)})`);
          let current = db;
          if (conditions.length > 0) {
            const pieces: string[] = [""];
            const exprs: string[] = [];
            conditions.forEach((make, i) => {
              const part = make(ctx);
              pieces[pieces.length - 1] += (i > 0 ? "||" : "") + part.pieces[0];
              exprs.push(...part.exprs);
              pieces.push(...part.pieces.slice(1));
            });
            if (useCalendar) {
              ctx.tag("calendar");
              const date = ctx.fresh("date");
              ctx.emit(`${date} = Calendar('-1 year')`);
            }
            const filtered = ctx.fresh("filtered");
            ctx.emit(`${filtered} = ${filter(ctx)}(${db}, ${assemble(ctx, pieces, exprs, how)})`);
            current = filtered;
          }
          const column = columnChoice.piece(ctx);
          const value = ctx.fresh("value");
          if (getShape <= 1) {
            ctx.tag("pandas");
            pandasRead(ctx, {
              frame: current,
              column,
              columnName: columnChoice.column.text,
              value,
              form: how,
            });
          } else if (getShape === 2) {
            ctx.tag("getvalue-list");
            ctx.emit(`${value} = ${get(ctx)}(${current}, str([${column}]))`);
          } else if (operation === "") {
            ctx.emit(`${value} = ${get(ctx)}(${current}, ${column})`);
          } else {
            ctx.emit(`${value} = ${get(ctx)}(${current}, ${assemble(ctx, ["", operation], [column], how)})`);
          }
          return value;
        },
    ),
);

/** SQLite identifier spellings: bare, "double", `backtick`, [bracket], upper case. */
type Quote = (name: string) => string;
const QUOTES: Quote[] = [
  (n) => n,
  (n) => n,
  (n) => `"${n}"`,
  (n) => `\`${n}\``,
  (n) => `[${n}]`,
  (n) => n.toUpperCase(),
];

/** Quotes put around a name that the program builds (index-aligned with QUOTES; upper case is none). */
const OPEN = ["", "", '"', "`", "[", ""];
const CLOSE = ["", "", '"', "`", "]", ""];

interface SqlShape {
  /** Literal pieces and the names between them (as targets built by stringExpr or written inline). */
  pieces: string[];
  names: Target[];
  tag: string;
}

function sqlShape(): fc.Arbitrary<SqlShape> {
  return fc
    .tuple(
      pick(TABLES),
      pick(STAY_TABLES),
      pick(STAY_TABLES),
      fc.nat(),
      fc.nat(),
      fc.nat({ max: 21 }),
      fc.nat({ max: QUOTES.length - 1 }),
      fc.nat({ max: QUOTES.length - 1 }),
    )
    .map(([table, s1, s2, k1, k2, form, qa, qb]) => {
      const cols = columnsOf(table);
      const c1 = cols[k1 % cols.length]!;
      const c2 = cols[k2 % cols.length]!;
      const q = QUOTES[qa]!;
      const r = QUOTES[qb]!;
      const col = (t: string, c: string): Target => ({ text: c, decoy: otherOf(columnsOf(t), c, k2) });
      const tab = (t: string): Target => ({ text: t, decoy: otherOf(TABLES, t, k1) });
      const s1cols = columnsOf(s1);
      const s2cols = columnsOf(s2);
      const d1 = s1cols[k1 % s1cols.length]!;
      const d2 = s2cols[k2 % s2cols.length]!;
      switch (form) {
        case 0:
          return {
            pieces: [`select ${OPEN[qa]}`, `${CLOSE[qa]} from ${OPEN[qb]}`, CLOSE[qb]!],
            names: [col(table, c1), tab(table)],
            tag: qa + qb > 0 ? "sql-quoted" : "sql",
          };
        case 1:
          return {
            pieces: ["select ", " from ", ` where ${r(c2)} > 0`],
            names: [col(table, c1), tab(table)],
            tag: "sql-quoted",
          };
        case 2:
          return { pieces: ["select count(*) from ", ""], names: [tab(table)], tag: "sql-count" };
        case 3:
          return { pieces: ["select * from ", ""], names: [tab(table)], tag: "sql-star" };
        case 4:
          return {
            pieces: [`select max(${q(c1)}) from `, ` where ${r(c2)} is not null`],
            names: [tab(table)],
            tag: "sql-quoted",
          };
        case 5:
          return {
            pieces: [`select t.${q(c1)} from `, ` as t order by t.${r(c2)} limit 1`],
            names: [tab(table)],
            tag: "sql-alias",
          };
        case 6:
          return {
            pieces: [
              "select x.",
              ", y.",
              ` from ${s1} x join ${s2} y on x.patientunitstayid = y.patientunitstayid`,
            ],
            names: [col(s1, d1), col(s2, d2)],
            tag: "sql-join",
          };
        case 7:
          return {
            pieces: [
              `select ${q(d1)} from ${s1} where patientunitstayid in (select patientunitstayid from `,
              ` where ${r(d2)} = 1)`,
            ],
            names: [tab(s2)],
            tag: "sql-subquery",
          };
        case 8:
          return { pieces: [`select '${c1}' from `, ""], names: [tab(table)], tag: "sql-literal" };
        case 9:
          return {
            pieces: [`select `, ` from (select * from ${table}) sub`],
            names: [col(table, c1)],
            tag: "sql-subquery",
          };
        case 10:
          return {
            pieces: [`with w as (select ${q(c1)} from `, `) select * from w`],
            names: [tab(table)],
            tag: "sql-cte",
          };
        case 11:
          return {
            pieces: [`select ${q(d1)} from ${s1} union select `, ` from ${s2}`],
            names: [col(s2, d2)],
            tag: "sql-union",
          };
        case 12:
          return {
            pieces: [`select ${q(c1)} /* note */ from `, ` -- ${c2}`],
            names: [tab(table)],
            tag: "sql-comment",
          };
        case 13:
          return {
            pieces: [`select 1 from `, ` where ${r(c2)} like '%a%'`],
            names: [tab(table)],
            tag: "sql-count",
          };
        case 14:
          return {
            pieces: [`select (select ${q(d1)} from ${s1} limit 1) from `, ""],
            names: [tab(s2)],
            tag: "sql-subquery",
          };
        case 15:
          return {
            pieces: [`select ${q(c1)} from ${table} where exists (select 1 from `, ")"],
            names: [tab(s2)],
            tag: "sql-subquery",
          };
        case 16:
          // A double-quoted name compared with a column: a column in SQLite when one exists.
          return {
            pieces: [`select ${c1} from ${table} where ${c1} = "`, '"'],
            names: [col(table, c2)],
            tag: "sql-quoted",
          };
        case 17:
          return {
            pieces: [`select "${c1.toUpperCase()}" from `, ""],
            names: [tab(table)],
            tag: "sql-quoted",
          };
        case 18:
          return {
            pieces: [`select x.* from ${s1} x join `, " y on 1 = 1"],
            names: [tab(s2)],
            tag: "sql-join",
          };
        case 20:
          // A backslash does not escape a quote in SQL: the string ends at the second quote.
          return {
            pieces: [`select ${c1} from ${table} where ${c1} = 'x\\' and `, ` = 1 --'`],
            names: [col(table, c2)],
            tag: "sql-string",
          };
        case 21:
          // A line comment ends at the newline.
          return {
            pieces: [`select ${c1} from ${table} -- note\nwhere `, " > 0"],
            names: [col(table, c2)],
            tag: "sql-comment",
          };
        default:
          return {
            pieces: [`select ${q(c1)} from `, ` where ${r(c2)} > 0`],
            names: [tab(table)],
            tag: "sql-quoted",
          };
      }
    });
}

const sqlStep: fc.Arbitrary<Step> = sqlShape().chain((shape) =>
  fc
    .tuple(
      fc.tuple(...shape.names.map((name) => stringExpr(name, DEPTH - 1))),
      fc.boolean(),
      fc.nat(),
      toolName("SQLInterpreter"),
    )
    .map(([exprs, inline, how, sql]) => (ctx: Ctx) => {
      ctx.tag(shape.tag);
      const value = ctx.fresh("rows");
      let text: string;
      if (inline) {
        let query = "";
        shape.pieces.forEach((p, i) => {
          query += p + (shape.names[i]?.text ?? "");
        });
        text = pyStr(query, how % 2 === 0 ? "single" : "double");
      } else {
        text = assemble(
          ctx,
          shape.pieces,
          exprs.map((piece) => piece(ctx)),
          how,
        );
      }
      ctx.emit(`${value} = ${sql(ctx)}(${text})`);
      return value;
    }),
);

/** A table touched with no column named: len(LoadDB(...)), a bare LoadDB, `.empty`. */
const tableOnlyStep: fc.Arbitrary<Step> = tableTarget.chain(({ target }) =>
  fc
    .tuple(stringExpr(target, DEPTH), pick([0, 1, 2, 3]), toolName("LoadDB"), fc.nat({ max: 5 }))
    .map(([expr, form, load, shownForm]) => (ctx: Ctx) => {
      ctx.tag("table-only");
      const value = ctx.fresh("n");
      switch (form) {
        case 0:
          ctx.emit(`${value} = len(${load(ctx)}(${expr(ctx)}))`);
          return value;
        case 1:
          ctx.emit(`${load(ctx)}(${expr(ctx)})`);
          return null;
        case 2:
          ctx.emit(`${value} = ${load(ctx)}(${expr(ctx)}).empty`);
          return value;
        default: {
          // A table turned into text, alone or inside a container: every column is read.
          ctx.tag("whole-table");
          ctx.emit(`${value} = ${load(ctx)}(${expr(ctx)})`);
          const box = ctx.fresh("box");
          const shown = [
            [`print(${value})`],
            [`print({'table': ${value}})`],
            [`${box} = []`, `${box}.append(${value})`, `print(${box})`],
            [`${box} = str(dict(zip(['table'], [${value}])))`],
            [`${box} = f"{ {'table': ${value}} }"`],
            // The failed assertion's message, the table, is what EHRAgent shows the agent.
            [`assert len(${value}) > 100, ${value}`],
          ][shownForm]!;
          for (const line of shown) ctx.emit(line);
          return value;
        }
      }
    }),
);

/** A name taken from the data (the extractor cannot know it: it must not claim to). */
const dataDependentStep: fc.Arbitrary<Step> = fc
  .tuple(pick(STAY_TABLES), fc.nat(), pick([0, 1, 2, 3, 4, 5, 6, 7, 8]), pick(TABLES))
  .map(([table, k, form, sqlTable]) => (ctx: Ctx) => {
    ctx.tag("data-dependent");
    const textColumns = columnsOf(table).filter((c) => !c.endsWith("id") && !c.endsWith("time"));
    const column = textColumns[k % textColumns.length] ?? "patientunitstayid";
    const name = ctx.fresh("name");
    if (form === 2) {
      ctx.emit(
        `${name} = SQLInterpreter('select ${column} from ${table} where patientunitstayid = 1')[0][0]`,
      );
    } else {
      ctx.emit(`${name} = GetValue(FilterDB(LoadDB('${table}'), 'patientunitstayid=1'), '${column}')`);
    }
    const value = ctx.fresh("value");
    // The name is used as a column, a quoted SQL name, a table, a row key or a sort key.
    const uses: Record<number, string[]> = {
      1: [`${value} = GetValue(LoadDB('patient'), ${name})`],
      3: [`${value} = SQLInterpreter('select "' + ${name} + '" from ${sqlTable}')`],
      4: [`${value} = SQLInterpreter(f'select 1 from ${sqlTable} where "{${name}}" = 1')`],
      5: [`${value} = LoadDB('patient').iloc[0][${name}]`],
      6: [`${value} = LoadDB('patient').sort_values(by=${name})`],
      7: [`${value} = LoadDB('patient').groupby(${name})`],
      8: [`${value} = None`, `for _, row in LoadDB('patient').iterrows():`, `    ${value} = row[${name}]`],
    };
    for (const line of uses[form] ?? [`${value} = len(LoadDB(${name}))`]) ctx.emit(line);
    return value;
  });

/**
 * EHRAgent's Calendar pastes its argument into `select datetime(current_time, '<argument>')`: a quote in
 * the argument is SQL. Benign durations, and injected subqueries that read a column or a table.
 */
const calendarStep: fc.Arbitrary<Step> = tableTarget.chain(({ table }) =>
  fc.tuple(columnTarget(table), pick([0, 1, 2, 3]), fc.nat()).chain(([column, form, how]) => {
    const injected = [
      "-1 year",
      `-1 year') || (select ${column.text} from ${table} limit 1) || ('`,
      `0 year'), (select count(*) from ${table}) --`,
      `start of month') as d, ${column.text} from ${table} --`,
    ][form]!;
    return stringExpr({ text: injected, decoy: column.decoy }, form === 0 ? 0 : 1).map(
      (piece) => (ctx: Ctx) => {
        ctx.tag(form === 0 ? "calendar" : "calendar-sql");
        const value = ctx.fresh("date");
        const argument = how % 2 === 0 ? piece(ctx) : bind(ctx, piece, "duration");
        ctx.emit(`${value} = Calendar(${argument})`);
        return value;
      },
    );
  }),
);

const calculateStep: fc.Arbitrary<Step> = fc.nat({ max: 50 }).map((k) => (ctx: Ctx) => {
  ctx.tag("calculate");
  const value = ctx.fresh("total");
  ctx.emit(`${value} = Calculate('${k} + 2 * 3')`);
  return value;
});

const STEP: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: toolboxStep, weight: 6 },
  { arbitrary: sqlStep, weight: 4 },
  { arbitrary: tableOnlyStep, weight: 2 },
  { arbitrary: dataDependentStep, weight: 1 },
  { arbitrary: calculateStep, weight: 1 },
  { arbitrary: calendarStep, weight: 1 },
);

/** Where a step runs: at top level, in a called function, a loop, a branch, a try block. */
const wrapped: fc.Arbitrary<Step> = fc.tuple(STEP, fc.nat({ max: 11 })).map(([step, form]) => (ctx: Ctx) => {
  const inBlock = (header: string, tag: string, tail: string[] = []): string | null => {
    ctx.tag(tag);
    ctx.emit(header);
    ctx.indent += 1;
    const value = step(ctx);
    const result = ctx.fresh("result");
    ctx.emit(`${result} = ${value ?? "None"}`);
    ctx.indent -= 1;
    for (const line of tail) ctx.emit(line);
    return result;
  };
  switch (form) {
    case 0: {
      ctx.tag("wrap-function");
      const f = ctx.fresh("step");
      ctx.emit(`def ${f}():`);
      ctx.indent += 1;
      const value = step(ctx);
      ctx.emit(`return ${value ?? "None"}`);
      ctx.indent -= 1;
      const result = ctx.fresh("result");
      ctx.emit(`${result} = ${f}()`);
      return result;
    }
    case 1: {
      const r = inBlock("for _ in range(2):", "wrap-loop", []);
      return r;
    }
    case 2: {
      const r = ctx.fresh("result");
      ctx.emit(`${r} = None`);
      ctx.tag("wrap-if");
      ctx.emit(`if len('x') == 1:`);
      ctx.indent += 1;
      const value = step(ctx);
      ctx.emit(`${r} = ${value ?? "None"}`);
      ctx.indent -= 1;
      return r;
    }
    case 3: {
      const r = ctx.fresh("result");
      ctx.emit(`${r} = None`);
      ctx.tag("wrap-try");
      ctx.emit(`try:`);
      ctx.indent += 1;
      const value = step(ctx);
      ctx.emit(`${r} = ${value ?? "None"}`);
      ctx.indent -= 1;
      ctx.emit(`except Exception:`);
      ctx.emit(`    pass`);
      return r;
    }
    case 4: {
      const r = ctx.fresh("result");
      ctx.emit(`${r} = None`);
      ctx.tag("wrap-while");
      ctx.emit(`while True:`);
      ctx.indent += 1;
      const value = step(ctx);
      ctx.emit(`${r} = ${value ?? "None"}`);
      ctx.emit(`break`);
      ctx.indent -= 1;
      return r;
    }
    default:
      return step(ctx);
  }
});

const IMPORTS = [
  "from collections import Counter",
  "from datetime import datetime",
  "import math",
  "import pandas as pd",
];

/** An EHRAgent-style program: 1-3 steps, some wrapped, ending with `answer = ...`. */
export const ehrAgentProgram: fc.Arbitrary<GeneratedProgram> = fc
  .tuple(fc.array(wrapped, { minLength: 1, maxLength: 2 }), fc.nat({ max: 19 }), fc.boolean())
  .map(([steps, importPick, answerLast]) => {
    const ctx = new Ctx();
    if (importPick < IMPORTS.length) {
      ctx.tag("import");
      ctx.emit(IMPORTS[importPick]!);
    }
    let last: string | null = null;
    for (const step of steps) last = step(ctx) ?? last;
    ctx.emit(`answer = ${answerLast && last ? last : "0"}`);
    return { code: `${ctx.lines.join("\n")}\n`, tags: [...ctx.tags].sort() };
  });

/** The plain shape EHRAgent writes most: no obfuscation at all (for a confidence floor). */
export const plainEhrAgentProgram: fc.Arbitrary<GeneratedProgram> = fc
  .tuple(pick(TABLES), fc.nat(), fc.nat(), pick(OPERATORS), pick(["", ", max", ", list", ", count"]))
  .map(([table, k1, k2, op, operation]) => {
    const cols = columnsOf(table);
    const c1 = cols[k1 % cols.length]!;
    const c2 = cols[k2 % cols.length]!;
    const code = [
      `${table}_db = LoadDB('${table}')`,
      `filtered = FilterDB(${table}_db, '${c1}${op}1')`,
      `value = GetValue(filtered, '${c2}${operation}')`,
      `answer = value`,
      "",
    ].join("\n");
    return { code, tags: ["plain"] };
  });

/**
 * One minimal program per discrepancy class the differential test has found (issue 9, item 3b), kept as
 * named regression cases: each must stay covered (or fail closed) once fixed.
 */
export const DISCREPANCY_CLASSES: readonly { id: string; name: string; code: string }[] = [
  { id: "F1a", name: "len(LoadDB(t)) reads the table", code: "answer = len(LoadDB('lab'))\n" },
  { id: "F1b", name: "LoadDB(t).empty reads the table", code: "answer = LoadDB('lab').empty\n" },
  {
    id: "F1c",
    name: "SQL count(*) reads the table",
    code: "answer = SQLInterpreter('select count(*) from lab')\n",
  },
  {
    id: "F1d",
    name: "SQL string literal select reads the table",
    code: "answer = SQLInterpreter(\"select 'labname' from lab\")\n",
  },
  {
    id: "F1e",
    name: "SQL exists subquery reads its table",
    code: "answer = SQLInterpreter('select labname from lab where exists (select 1 from allergy)')\n",
  },
  {
    id: "F1f",
    name: "SQL joined table with no column read",
    code: "answer = SQLInterpreter('select t.* from lab t join allergy a on 1=1')\n",
  },
  {
    id: "F2a",
    name: "SQL double-quoted identifier is a column",
    code: "answer = SQLInterpreter('select \"labresult\" from lab')\n",
  },
  {
    id: "F2b",
    name: "SQL double-quoted identifier compared in where",
    code: "answer = SQLInterpreter('select labname from lab where labname = \"labresult\"')\n",
  },
  {
    id: "F2c",
    name: "SQL double-quoted identifier in upper case",
    code: "answer = SQLInterpreter('select \"LABRESULT\" from lab')\n",
  },
  {
    id: "F3",
    name: "global write in a function",
    code: "c = 'labname'\ndef f():\n    global c\n    c = 'labresult'\nf()\nanswer = GetValue(LoadDB('lab'), c)\n",
  },
  {
    id: "F4",
    name: "nonlocal write",
    code: "def f():\n    c = 'labname'\n    def g():\n        nonlocal c\n        c = 'labresult'\n    g()\n    return c\nanswer = GetValue(LoadDB('lab'), f())\n",
  },
  {
    id: "F5a",
    name: "list.reverse in place",
    code: "cols = ['labresult', 'labname']\ncols.reverse()\nanswer = GetValue(LoadDB('lab'), cols[1])\n",
  },
  {
    id: "F5b",
    name: "list.remove",
    code: "cols = ['labname', 'labresult']\ncols.remove('labname')\nanswer = GetValue(LoadDB('lab'), cols[0])\n",
  },
  {
    id: "F5c",
    name: "list.pop(0)",
    code: "cols = ['labname', 'labresult', 'labname']\ncols.pop(0)\nanswer = GetValue(LoadDB('lab'), cols[0])\n",
  },
  {
    id: "F5d",
    name: "list.__setitem__",
    code: "cols = ['labname']\ncols.__setitem__(0, 'labresult')\nanswer = GetValue(LoadDB('lab'), cols[0])\n",
  },
  {
    id: "F5e",
    name: "del list[i]",
    code: "cols = ['labname', 'labresult']\ndel cols[0]\nanswer = GetValue(LoadDB('lab'), cols[0])\n",
  },
  {
    id: "F6a",
    name: "dict.update(key=...)",
    code: "d = {'key': 'labname'}\nd.update(key='labresult')\nanswer = GetValue(LoadDB('lab'), d['key'])\n",
  },
  {
    id: "F6b",
    name: "dict.update({...})",
    code: "d = {'key': 'labname'}\nd.update({'key': 'labresult'})\nanswer = GetValue(LoadDB('lab'), d['key'])\n",
  },
  {
    id: "F6c",
    name: "dict.__setitem__",
    code: "d = {'key': 'labname'}\nd.__setitem__('key', 'labresult')\nanswer = GetValue(LoadDB('lab'), d['key'])\n",
  },
  {
    id: "F6d",
    name: "duplicate dict keys: the last wins",
    code: "answer = GetValue(LoadDB('lab'), {'k': 'labname', 'k': 'labresult'}['k'])\n",
  },
  {
    id: "F6e",
    name: "dict comprehension with a repeated key",
    code: "answer = GetValue(LoadDB('lab'), {k: v for k, v in [('key', 'labname'), ('key', 'labresult')]}['key'])\n",
  },
  {
    id: "F6f",
    name: "dict display with ** then the same key",
    code: "answer = GetValue(LoadDB('lab'), {**{'key': 'labname'}, 'key': 'labresult'}['key'])\n",
  },
  {
    id: "F7",
    name: "continue skips the rest of the body only",
    code: "r = 'labname'\nfor v in ['labresult', 'labname']:\n    if v != 'labresult':\n        continue\n    r = v\nanswer = GetValue(LoadDB('lab'), r)\n",
  },
  {
    id: "F8",
    name: "loop variable after for-break",
    code: "for v in ['labname', 'labresult', 'labid']:\n    if v == 'labresult':\n        break\nanswer = GetValue(LoadDB('lab'), v)\n",
  },
  {
    id: "F9a",
    name: "str.format precision",
    code: "answer = GetValue(LoadDB('lab'), '{:.9}'.format('labresulttime'))\n",
  },
  {
    id: "F9b",
    name: "% precision",
    code: "answer = GetValue(LoadDB('lab'), '%.9s' % 'labresulttime')\n",
  },
  {
    id: "F9c",
    name: "f-string precision",
    code: "x = 'labresulttime'\nanswer = GetValue(LoadDB('lab'), f\"{x:.9}\")\n",
  },
  {
    id: "F10",
    name: "a decorator replaces the function",
    code: "def deco(fn):\n    return lambda: 'labresult'\n@deco\ndef f():\n    return 'labname'\nanswer = GetValue(LoadDB('lab'), f())\n",
  },
  {
    id: "F12a",
    name: "dict(db) reads every column",
    code: "db = LoadDB('lab')\nanswer = dict(db)\n",
  },
  {
    id: "F12b",
    name: "db.isin(...) reads every column",
    code: "db = LoadDB('lab')\nanswer = db.isin([1])\n",
  },
  {
    id: "F12c",
    name: "db.count() reads every column",
    code: "db = LoadDB('lab')\nanswer = db.count()\n",
  },
  {
    id: "F12d",
    name: "db == v reads every column",
    code: "db = LoadDB('lab')\nanswer = (db == 1).any()\n",
  },
  {
    id: "F12e",
    name: "db.isna() reads every column",
    code: "db = LoadDB('lab')\nx = db.isna().sum()\n",
  },
  {
    id: "F13a",
    name: "Calendar's argument is pasted into SQL: an injected subquery reads a column",
    code: "answer = Calendar(\"-1 year') || (select labresult from lab limit 1) || ('\")\n",
  },
  {
    id: "F13b",
    name: "Calendar's argument is pasted into SQL: an injected count(*) reads a table",
    code: 'answer = Calendar("0 year\'), (select count(*) from diagnosis) --")\n',
  },
  {
    id: "F14",
    name: "a default argument is evaluated when the function is defined",
    code: "c = 'labresult'\ndef f(a=c):\n    return a\nc = 'labname'\nanswer = GetValue(LoadDB('lab'), f())\n",
  },
  {
    id: "F15a",
    name: "a double-quoted SQL name taken from the data (here: patient 1's gender cell is 'age')",
    code: "v = GetValue(FilterDB(LoadDB('patient'), 'patientunitstayid=1'), 'gender')\nanswer = SQLInterpreter('select \"' + v + '\" from patient')\n",
  },
  {
    id: "F15b",
    name: "a double-quoted SQL name from an f-string over a value with two possibilities",
    code: "v = 'cost'\nif len('x') == 1:\n    v = 'uniquepid'\nanswer = SQLInterpreter(f\"select cost from cost where cost = \\\"{v}\\\"\")\n",
  },
  {
    id: "F16",
    name: "a backslash does not escape a quote in an SQL string",
    code: "answer = SQLInterpreter(\"select labname from lab where labname = 'x\\\\' and labresult = 1 --'\")\n",
  },
  {
    id: "F17a",
    name: "a row subscript with a column only known at run time (iloc)",
    code: "c = GetValue(FilterDB(LoadDB('patient'), 'patientunitstayid=1'), 'gender')\nanswer = LoadDB('patient').iloc[0][c]\n",
  },
  {
    id: "F17b",
    name: "a row subscript with a column only known at run time (iterrows)",
    code: "c = GetValue(FilterDB(LoadDB('patient'), 'patientunitstayid=1'), 'gender')\nfor _, r in LoadDB('patient').iterrows():\n    answer = r[c]\n",
  },
  {
    id: "F17c",
    name: "sort_values/groupby/nlargest/set_index/filter with a column only known at run time",
    code: "c = GetValue(FilterDB(LoadDB('patient'), 'patientunitstayid=1'), 'gender')\nx = LoadDB('patient').sort_values(by=c)\n",
  },
  {
    id: "F18a",
    name: "a \\N{...} escape in a sort key (the extractor's string differs from Python's)",
    code: "x = LoadDB('lab').sort_values(by='l\\N{LATIN SMALL LETTER A}bresult')\n",
  },
  {
    id: "F18b",
    name: "a \\N{...} escape in groupby/set_index/nlargest/filter/query keys",
    code: "db = LoadDB('lab')\nc = 'l\\N{LATIN SMALL LETTER A}bresult'\nx = [db.groupby(c), db.set_index(c), db.nlargest(1, c), db.filter(items=[c]), db.query(c + ' > 1')]\n",
  },
  {
    id: "F18c",
    name: "str.strip() strips Python's whitespace (\\x1c-\\x1f, \\x85), not JavaScript's",
    code: "x = LoadDB('diagnosis').sort_values(by='icd9code\\x1c'.strip())\ny = LoadDB('lab').sort_values(by='\\x85labresult'.strip())\n",
  },
  {
    id: "F19",
    name: "FilterDB with no comparison reads the column inside max( or min( anywhere in the condition",
    code: "x = FilterDB(LoadDB('lab'), 'labname like max(labresult)')\nanswer = 0\n",
  },
  {
    id: "F20a",
    name: "a dict holding a table, turned into text, reads every column",
    code: "db = LoadDB('lab')\nprint({'k': db})\n",
  },
  {
    id: "F20b",
    name: "a list built by append holding a table, turned into text, reads every column",
    code: "db = LoadDB('lab')\nL = []\nL.append(db)\nx = str(L)\n",
  },
  {
    id: "F21",
    name: "an assertion whose message is a table shows the table when it fails",
    code: "db = LoadDB('lab')\nassert len(db) > 100, db\n",
  },
  {
    id: "F22a",
    name: "FilterDB 'x like max(...)' whose column is only known at run time",
    code: "c = GetValue(FilterDB(LoadDB('patient'), 'patientunitstayid=1'), 'gender')\nx = FilterDB(LoadDB('patient'), 'uniquepid like max(' + c + ')')\nanswer = 0\n",
  },
  {
    id: "F22b",
    name: "FilterDB 'x like max(...)' whose column is one of two",
    code: "c = 'labname'\nif len('x') == 1:\n    c = 'labresult'\nx = FilterDB(LoadDB('lab'), f'labid like max({c})')\nanswer = 0\n",
  },
  {
    id: "F11",
    name: "while-else does not run after break",
    code: "c = 'labname'\nwhile True:\n    c = 'labresult'\n    break\nelse:\n    c = 'labname'\nanswer = GetValue(LoadDB('lab'), c)\n",
  },
];
