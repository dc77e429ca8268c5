/**
 * The closed world of the EHRAgent interpreter: the builtins, modules, module members and methods it
 * models. Anything outside these lists (open, os, subprocess, requests, pandas.read_csv, numpy.load,
 * exec/eval, dunder attributes, an unknown module or function) could read or write data the toolbox
 * does not see, so the interpreter reports it as undetermined instead of guessing that it is harmless.
 * Every entry here is harmless by construction: it computes on values already in the program and
 * touches no file, process, network or interpreter state.
 */

/** A list of words written as one block of text. */
const words = (text: string): string[] => text.trim().split(/\s+/);

/** EHRAgent's toolbox: the only way the generated code is meant to reach the database. */
export const TOOLBOX = new Set(["LoadDB", "FilterDB", "GetValue", "SQLInterpreter", "Calculate", "Calendar"]);

/** Builtins the interpreter models (each has a case in callBuiltin, or is an exception class). */
export const MODELLED_BUILTINS = new Set(
  words(`
  len int float abs round sum ord hash id str repr ascii bool isinstance issubclass callable hasattr any
  all list tuple set frozenset sorted reversed dict zip enumerate range map filter max min next iter print
  getattr type chr divmod pow format
`),
);

/** Exception classes: raising and catching them is harmless. */
export const EXCEPTION_NAMES = new Set(
  words(`
  Exception BaseException ValueError TypeError KeyError IndexError AttributeError ZeroDivisionError
  NameError RuntimeError StopIteration AssertionError ArithmeticError LookupError NotImplementedError
  OverflowError
`),
);

/** Builtins that run code, reach files or change the interpreter: named in the reason. */
export const DYNAMIC_BUILTINS = new Set(
  words(`
  open exec eval compile __import__ setattr delattr globals locals vars input breakpoint help dir
  memoryview super object exit quit __builtins__ __loader__ __spec__ classmethod staticmethod property
`),
);

/**
 * Modules whose every public member is harmless (pure computation on values): any attribute that is not
 * a dunder is modelled as an opaque value.
 */
const PURE_MODULES = new Set(
  words(`
  math time re json collections statistics itertools functools decimal calendar string typing
  random copy fractions
`),
);

/** Members of other allowed modules, by qualified name; a class's members are listed under it. */
const ALLOWED_MEMBERS = new Set(
  words(`
  datetime datetime.datetime datetime.date datetime.time datetime.timedelta datetime.timezone
  datetime.datetime.now datetime.datetime.today datetime.datetime.strptime datetime.datetime.strftime
  datetime.datetime.fromisoformat datetime.datetime.fromtimestamp datetime.datetime.combine
  datetime.datetime.utcnow datetime.datetime.min datetime.datetime.max datetime.date.today
  datetime.date.fromisoformat datetime.date.fromtimestamp datetime.date.min datetime.date.max
  datetime.timedelta.min datetime.timedelta.max datetime.timezone.utc
  dateutil dateutil.relativedelta dateutil.relativedelta.relativedelta dateutil.parser
  dateutil.parser.parse
  numpy numpy.mean numpy.median numpy.std numpy.var numpy.sum numpy.max numpy.min numpy.amax numpy.amin
  numpy.abs numpy.round numpy.floor numpy.ceil numpy.sqrt numpy.log numpy.exp numpy.isnan numpy.nan
  numpy.inf numpy.array numpy.unique numpy.percentile numpy.argmax numpy.argmin numpy.where numpy.sort
  numpy.nanmean numpy.nanmax numpy.nanmin numpy.int64 numpy.float64 numpy.datetime64 numpy.timedelta64
  numpy.diff numpy.average numpy.count_nonzero
  pandas pandas.to_datetime pandas.to_numeric pandas.to_timedelta pandas.Timestamp pandas.Timedelta
  pandas.DataFrame pandas.Series pandas.isna pandas.isnull pandas.notna pandas.notnull pandas.merge
  pandas.concat pandas.NaT pandas.NA pandas.DateOffset pandas.date_range pandas.unique
`),
);

/** Whether `import name` (or `from name import ...`) loads a module the interpreter models. */
export function isAllowedModule(name: string): boolean {
  const root = name.split(".")[0]!;
  return PURE_MODULES.has(root) || ALLOWED_MEMBERS.has(name);
}

/** Whether `qualified` (e.g. "pandas.to_datetime", "math.floor") is a modelled module member. */
export function isAllowedMember(qualified: string): boolean {
  if (ALLOWED_MEMBERS.has(qualified)) return true;
  const parts = qualified.split(".");
  return PURE_MODULES.has(parts[0]!) && !parts.some(isPrivateAttribute);
}

/** A dunder or name-mangled attribute: a way into the interpreter's internals (`__class__`, `__globals__`). */
export function isPrivateAttribute(name: string): boolean {
  return name.startsWith("__");
}

/**
 * Methods and attributes of values the interpreter does not track exactly (numbers, datetimes,
 * timedeltas, regex matches, counters, values read out of a table): pure computations, none of which
 * writes or reads outside the program. Anything else on such a value is undetermined.
 */
export const VALUE_METHODS = new Set(
  words(`
  strftime isoformat date time timestamp total_seconds replace weekday isoweekday year month day hour
  minute second microsecond days seconds microseconds tzinfo astimezone timetuple toordinal ctime
  lower upper strip lstrip rstrip split rsplit startswith endswith format join find rfind count index
  isdigit isnumeric isalpha isalnum isspace zfill title capitalize casefold splitlines partition
  rpartition encode decode center ljust rjust
  item tolist to_list mean sum max min median std var round astype values unique nunique head tail
  sort_values reset_index dropna fillna isna notna isnull notnull abs cumsum idxmax idxmin any all
  empty shape size iloc loc at iat dt str to_pydatetime to_datetime64 normalize floor ceil
  get keys items append extend pop copy update setdefault add remove discard union intersection
  difference issubset issuperset most_common elements subtract group groups groupdict span start end
  real imag conjugate is_integer as_integer_ratio bit_length numerator denominator
`),
);

/** DataFrame and Series methods the interpreter models (cases of tableMethod/rowMethod/column). */
export const FRAME_METHODS = new Set(
  words(`
  head tail sort_values sort_index drop_duplicates reset_index set_index copy dropna fillna filter drop
  rename nlargest nsmallest sample query astype where mask assign groupby loc replace round
  to_dict to_string to_numpy to_records to_list tolist values T describe sum mean max min median std
  var mode nunique unique value_counts idxmax idxmin first last agg aggregate transform items
  iteritems info cumsum diff iterrows itertuples get apply count isin isna isnull notna notnull
  between contains startswith endswith eq ne lt gt le ge duplicated merge join any all abs
  keys item iloc at iat dt str
`),
);

/**
 * DataFrame/Series methods that write to a file or buffer when given a destination (`to_csv(path)`),
 * and return text otherwise.
 */
export const FRAME_WRITERS = new Set(
  words(`
  to_csv to_json to_pickle to_excel to_parquet to_hdf to_sql to_feather to_stata to_clipboard to_html
  to_latex to_markdown to_string to_xml to_orc to_gbq
`),
);
