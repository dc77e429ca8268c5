"""
The CPython side of the EHRAgent differential test (issue 9, item 3b).

Runs a batch of EHRAgent-style programs in the real interpreter, each with our own stub toolbox
(LoadDB, FilterDB, GetValue, SQLInterpreter, Calculate, Calendar) over an in-memory SQLite database with
the schema the caller sends, and records every (table, column) each program really reads: the stubs
record LoadDB (a read of the table, no column), FilterDB and GetValue (the column they touch), a whole
table turned into text (every column), and SQLite's authorizer records every SQLITE_READ of a query
(an empty column name, as for count(*), is a read of the table).

Protocol: one JSON object on stdin, {"schema": {table: [columns]}, "programs": [{"id", "code"}],
"timeLimitMs": n}; one JSON array on stdout, per program {"id", "reads": [[table, column|null]],
"error": "Type: message" | null, "timedOut": bool}. One process runs the whole batch so that the
test pays for one interpreter start. Standard library only (python3.11).
"""

import ast
import contextlib
import io
import json
import operator
import re
import signal
import sqlite3
import sys
import time

# When the running program's time is up (time.monotonic()), for the SQLite progress handler.
DEADLINE = [0.0]


class ProgramTimeout(BaseException):
    """Raised in the program by the interval timer; a BaseException so `except Exception` cannot eat it."""


def column_type(column):
    if column.endswith("time"):
        return "text"
    if column.endswith("id") and column != "uniquepid":
        return "integer"
    if column in ("cost", "labresult", "cellvaluenumeric", "temperature", "sao2", "heartrate",
                  "respiration", "systemicsystolic", "systemicdiastolic", "systemicmean",
                  "admissionheight", "admissionweight", "dischargeweight"):
        return "real"
    return "text"


# Text cells that name tables or columns, so that a program can take a name from the data (the
# extractor cannot know it and must not claim to).
NAME_CELLS = ["lab", "age", "diagnosis", "labresult", "cost"]


def cell(table, column, kind, row):
    if kind == "integer":
        return row + 1
    if kind == "real":
        return float(10 * (row + 1)) + 0.5
    if column.endswith("time"):
        return "2104-0%d-1%d 0%d:00:00" % (row + 1, row, row)
    if column == "uniquepid":
        return "00%d-1000%d" % (row, row)
    return NAME_CELLS[(row + len(column)) % len(NAME_CELLS)] if row < 2 else "%s %d" % (column, row)


def make_database(schema):
    con = sqlite3.connect(":memory:")
    rows = {}
    for table, columns in schema.items():
        kinds = [column_type(c) for c in columns]
        con.execute('create table "%s" (%s)' % (table, ", ".join('"%s" %s' % (c, k) for c, k in zip(columns, kinds))))
        table_rows = []
        for row in range(3):
            values = [cell(table, c, k, row) for c, k in zip(columns, kinds)]
            con.execute('insert into "%s" values (%s)' % (table, ", ".join("?" * len(values))), values)
            table_rows.append(dict(zip(columns, values)))
        rows[table] = table_rows
    con.commit()
    return con, rows


class Recorder:
    def __init__(self):
        self.reads = []

    def read(self, table, column):
        item = [table.lower(), column.lower() if column else None]
        if item not in self.reads:
            self.reads.append(item)


class Series(list):
    """A column of a Frame: a list with the few pandas Series methods EHRAgent code calls."""

    def tolist(self):
        return list(self)

    def unique(self):
        return Series(dict.fromkeys(self))

    def max(self):
        return max(self) if self else None

    def min(self):
        return min(self) if self else None

    def sum(self):
        return sum(float(v) for v in self)

    def mean(self):
        return sum(float(v) for v in self) / len(self) if self else None

    @property
    def values(self):
        return list(self)

    def any(self):
        return any(self)

    def all(self):
        return all(self)

    def __eq__(self, other):
        return [v == other for v in self]

    def __ne__(self, other):
        return [v != other for v in self]

    __hash__ = None


class Row:
    """One row of a Frame (iloc[i], iterrows): reading a cell reads its column."""

    def __init__(self, frame, row):
        self._frame = frame
        self._row = row

    def __getitem__(self, name):
        return self._row[self._frame._column(name)]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def to_dict(self):
        self._frame._read_all()
        return dict(self._row)

    def __str__(self):
        self._frame._read_all()
        return str(self._row)

    __repr__ = __str__


class Frame:
    """What LoadDB returns: the rows of one table. A small stand-in for the DataFrame EHRAgent's tools use."""

    def __init__(self, table, columns, rows, recorder):
        self._table = table
        self._columns = list(columns)
        self._rows = rows
        self._recorder = recorder

    def _column(self, name, loose=False):
        """Reads a column. pandas names columns exactly; the toolbox (loose) trims and lower-cases, as
        the extractor does, so that the stub reads at least what the real tool would."""
        if not isinstance(name, str):
            raise TypeError("column name must be a string")
        column = name.strip().lower() if loose else name
        if column not in self._columns:
            raise KeyError(name)
        self._recorder.read(self._table, column)
        return column

    def __len__(self):
        return len(self._rows)

    def __getitem__(self, name):
        if isinstance(name, list) and all(isinstance(keep, bool) for keep in name):
            # A boolean mask, as db[db['c'] == v] builds.
            return Frame(self._table, self._columns, [r for r, keep in zip(self._rows, name) if keep], self._recorder)
        column = self._column(name)
        return Series(row[column] for row in self._rows)

    def __getattr__(self, name):
        # db.column reads the column, as in pandas.
        if name.startswith("_") or name not in self._columns:
            raise AttributeError(name)
        return self[name]

    @property
    def iloc(self):
        frame = self

        class Locator:
            def __getitem__(self, index):
                return Row(frame, frame._rows[index])

        return Locator()

    def iterrows(self):
        for index, row in enumerate(self._rows):
            yield index, Row(self, row)

    def head(self, n=5):
        return Frame(self._table, self._columns, self._rows[:n], self._recorder)

    def sort_values(self, by, ascending=True):
        columns = [self._column(name) for name in (by if isinstance(by, list) else [by])]
        rows = sorted(self._rows, key=lambda row: [str(row[c]) for c in columns], reverse=not ascending)
        return Frame(self._table, self._columns, rows, self._recorder)

    def query(self, expr):
        # pandas evaluates the expression with the columns in scope: every column it names is read.
        for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(expr)):
            if name in self._columns:
                self._column(name)
        return self

    def itertuples(self, index=True):
        for row in self._rows:
            yield Row(self, row)

    def _subset(self, subset):
        if subset is None:
            self._read_all()
        else:
            for name in subset if isinstance(subset, list) else [subset]:
                self._column(name)
        return self

    def dropna(self, subset=None):
        return self._subset(subset)

    def duplicated(self, subset=None):
        self._subset(subset)
        return Series(False for _ in self._rows)

    def _read_all(self):
        for column in self._columns:
            self._recorder.read(self._table, column)

    def _cellwise(self, test):
        # A DataFrame of booleans computed from every cell: every column is read.
        self._read_all()
        rows = [{c: test(row[c]) for c in self._columns} for row in self._rows]
        return Frame(self._table, self._columns, rows, self._recorder)

    def _reorder(self, by):
        names = by if isinstance(by, list) else [by]
        columns = [self._column(name) for name in names]
        rows = sorted(self._rows, key=lambda row: [str(row[c]) for c in columns])
        return Frame(self._table, self._columns, rows, self._recorder)

    def groupby(self, by):
        return self._reorder(by)

    def set_index(self, keys):
        return self._reorder(keys)

    def nlargest(self, n, columns):
        return self._reorder(columns).head(n)

    def nsmallest(self, n, columns):
        return self._reorder(columns).head(n)

    def drop_duplicates(self, subset=None):
        return self._subset(subset)

    def filter(self, items=None):
        for name in items or []:
            self._column(name)
        return self

    def to_dict(self):
        self._read_all()
        return {c: [row[c] for row in self._rows] for c in self._columns}

    def keys(self):
        # dict(db) iterates the keys and reads db[key] for each, as with pandas.
        return list(self._columns)

    def items(self):
        for column in self._columns:
            yield column, self[column]

    def isin(self, values):
        return self._cellwise(lambda cell: cell in values)

    def eq(self, other):
        return self._cellwise(lambda cell: cell == other)

    def ne(self, other):
        return self._cellwise(lambda cell: cell != other)

    def __eq__(self, other):
        return self.eq(other)

    def __ne__(self, other):
        return self.ne(other)

    __hash__ = object.__hash__

    def isna(self):
        return self._cellwise(lambda cell: cell is None)

    def notna(self):
        return self._cellwise(lambda cell: cell is not None)

    isnull = isna
    notnull = notna

    def count(self):
        self._read_all()
        return Series(sum(1 for row in self._rows if row[c] is not None) for c in self._columns)

    def any(self):
        self._read_all()
        return Series(any(row[c] for row in self._rows) for c in self._columns)

    def all(self):
        self._read_all()
        return Series(all(row[c] for row in self._rows) for c in self._columns)

    def sum(self):
        self._read_all()
        return Series(sum(1 for row in self._rows if row[c]) for c in self._columns)

    @property
    def values(self):
        self._read_all()
        return [[row[c] for c in self._columns] for row in self._rows]

    def __iter__(self):
        # Iterating a DataFrame yields its column names, no cell values.
        return iter(list(self._columns))

    def __bool__(self):
        raise ValueError("The truth value of a DataFrame is ambiguous.")

    @property
    def empty(self):
        return len(self._rows) == 0

    @property
    def columns(self):
        return list(self._columns)

    @property
    def shape(self):
        return (len(self._rows), len(self._columns))

    def __str__(self):
        # Printing a table reveals every column.
        self._read_all()
        return "\n".join(" ".join(str(row[c]) for c in self._columns) for row in self._rows)

    __repr__ = __str__


OPERATORS = [">=", "<=", "!=", "<>", "==", "=", ">", "<"]
WORD_OPERATORS = [" not in ", " in ", " not like ", " like ", " is not ", " is "]


def compare(cell_value, op, text):
    text = text.strip().strip("'\"")
    try:
        left, right = float(cell_value), float(text)
    except (TypeError, ValueError):
        left, right = str(cell_value), text
    if op in ("=", "=="):
        return left == right
    if op in ("!=", "<>"):
        return left != right
    return {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}[op](left, right)


def condition_column(part, frame):
    """The column one FilterDB condition touches and how it filters: (column, keep(row) -> bool)."""
    lowered = part.strip()
    for name in ("max(", "min("):
        if lowered.lower().startswith(name) and lowered.endswith(")"):
            column = frame._column(lowered[4:-1], loose=True)
            values = [row[column] for row in frame._rows]
            best = (max if name == "max(" else min)(values) if values else None
            return lambda row: row[column] == best
    # The earliest operator wins, as in "column<op>value".
    found = None
    for op in OPERATORS:
        at = lowered.find(op)
        if at > 0 and (found is None or at < found[0]):
            found = (at, op)
    for op in WORD_OPERATORS:
        at = lowered.lower().find(op)
        if at > 0 and (found is None or at < found[0]):
            found = (at, op)
    if found is None:
        raise Exception("The filtering query %s is incorrect." % part)
    at, op = found
    left = lowered[:at].strip()
    value = lowered[at + len(op):]
    # `datetime(column, ...) = ...`: the column is the function's first argument.
    if "(" in left and left.endswith(")"):
        left = left[left.index("(") + 1:-1].split(",")[0]
    column = frame._column(left, loose=True)
    if op.strip() in OPERATORS:
        return lambda row: compare(row[column], op.strip(), value)
    return lambda row: True


def real_filter_column(part):
    """The column EHRAgent's own FilterDB (data_filter) reads for one condition, by its rules: the first
    of >=, <=, >, <, = found splits off the column, untrimmed; then ' in '; then max( and min( anywhere."""
    for op in (">=", "<=", ">", "<", "="):
        if op in part:
            return part.split(op)[0]
    if " in " in part:
        return part.split(" in ")[0]
    for word in ("max", "min"):
        if word in part:
            pieces = part.split(word + "(")
            return pieces[1].split(")")[0] if len(pieces) > 1 else None
    return None


def make_toolbox(con, rows, schema, recorder):
    def LoadDB(name):
        if not isinstance(name, str):
            raise TypeError("LoadDB expects a table name")
        table = name.strip().lower()
        if table not in schema:
            raise Exception("no table %s" % name)
        recorder.read(table, None)
        return Frame(table, schema[table], [dict(r) for r in rows[table]], recorder)

    def FilterDB(db, conditions):
        if not isinstance(db, Frame) or not isinstance(conditions, str):
            raise TypeError("FilterDB(db, conditions)")
        kept = db._rows
        for part in conditions.split("||"):
            # What the real tool reads, and then this stub's wider reading (trimmed, any case, the
            # earliest operator), so that the stub reads at least what either would.
            real = real_filter_column(part)
            if real is not None and real in db._columns:
                db._column(real)
            if part.strip() == "":
                continue
            keep = condition_column(part, db)
            kept = [row for row in kept if keep(row)]
        return Frame(db._table, db._columns, kept, recorder)

    def GetValue(db, argument):
        if not isinstance(db, Frame) or not isinstance(argument, str):
            raise TypeError("GetValue(db, argument)")
        commands = [c.strip() for c in argument.split(",")]
        column = db._column(commands[0].strip("[]'\" "), loose=True)
        values = Series(row[column] for row in db._rows)
        if len(commands) == 1:
            if len(values) == 1:
                return str(values[0])
            return ", ".join(sorted({str(v) for v in values}))
        operation = commands[-1]
        if operation == "list":
            return [str(v) for v in values]
        if operation == "count":
            return len(values)
        if not values:
            return None
        if operation == "mean":
            return sum(float(v) for v in values) / len(values)
        if operation == "sum":
            return sum(float(v) for v in values)
        if operation in ("max", "min"):
            return (max if operation == "max" else min)(values)
        raise Exception("The operation %s contains syntax errors." % operation)

    def run_sql(sql):
        """Runs one statement under the authorizer; what it prepared to read is read."""
        pending = []

        def authorize(action, arg1, arg2, _db, _trigger):
            if action == sqlite3.SQLITE_READ:
                if arg1 and arg1.lower() in schema:
                    pending.append((arg1, arg2 or None))
                return sqlite3.SQLITE_OK
            if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE):
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY

        con.set_authorizer(authorize)
        # SQLite runs in C, out of the interval timer's reach: a query past the deadline is interrupted.
        con.set_progress_handler(lambda: 1 if time.monotonic() > DEADLINE[0] else 0, 10_000)
        try:
            # EXPLAIN compiles the statement without running it: when it compiles, what the authorizer
            # saw is read, whether or not running it then fails (an interrupted query, a bad cast).
            try:
                con.execute("explain " + sql).fetchall()
                prepared = True
            except sqlite3.Error:
                prepared = False
            if prepared:
                for table, column in pending:
                    recorder.read(table, column)
            pending.clear()
            cursor = con.execute(sql)
            for table, column in pending if not prepared else []:
                recorder.read(table, column)
            return cursor.fetchall()
        finally:
            con.set_authorizer(None)
            con.set_progress_handler(None, 0)

    def SQLInterpreter(sql):
        if not isinstance(sql, str):
            raise TypeError("SQLInterpreter expects a query")
        return run_sql(sql)

    def Calculate(formula):
        return evaluate_arithmetic(str(formula))

    def Calendar(duration):
        # EHRAgent's date_calculator pastes its argument into SQL:
        # "select datetime(current_time, '{}')".format(argument). So does this stub, so that a quote in
        # the argument reaches SQLite as it would there.
        return run_sql("select datetime(current_time, '{}')".format(duration))[0][0]

    return {
        "LoadDB": LoadDB,
        "FilterDB": FilterDB,
        "GetValue": GetValue,
        "SQLInterpreter": SQLInterpreter,
        "Calculate": Calculate,
        "Calendar": Calendar,
    }


ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.Pow: operator.pow, ast.Mod: operator.mod}


def evaluate_arithmetic(text):
    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            return ARITHMETIC[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        raise Exception("Invalid input query for Calculator.")

    return round(float(walk(ast.parse(text, mode="eval"))), 2)


def on_alarm(_signum, _frame):
    raise ProgramTimeout()


def run_one(program, schema, database, time_limit):
    # One database for the batch: the authorizer denies every write, so no program changes it.
    con, rows = database
    recorder = Recorder()
    scope = {"answer": 0, "__name__": "__main__"}
    scope.update(make_toolbox(con, rows, schema, recorder))
    error = None
    timed_out = False
    sink = io.StringIO()
    # A little before the timer, so that a runaway query ends as an SQLite error the program may catch.
    DEADLINE[0] = time.monotonic() + 0.9 * time_limit
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            exec(compile(program["code"], "<program>", "exec"), scope)
            # EHRAgent's run_code answers str(answer): a table left in `answer` is read whole.
            str(scope.get("answer"))
    except ProgramTimeout:
        timed_out = True
        error = "Timeout: the program ran past its time limit"
    except BaseException as exc:  # noqa: BLE001 - the program's own failure is a result, not ours
        error = "%s: %s" % (type(exc).__name__, str(exc)[:200])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        con.set_authorizer(None)
    return {"id": program["id"], "reads": recorder.reads, "error": error, "timedOut": timed_out}


def main():
    batch = json.load(sys.stdin)
    schema = {t.lower(): [c.lower() for c in cols] for t, cols in batch["schema"].items()}
    time_limit = max(0.01, batch.get("timeLimitMs", 2000) / 1000)
    signal.signal(signal.SIGALRM, on_alarm)
    sys.setrecursionlimit(400)
    database = make_database(schema)
    results = [run_one(program, schema, database, time_limit) for program in batch["programs"]]
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
