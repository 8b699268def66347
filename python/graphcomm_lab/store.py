"""The results store: one SQLite file, one row per run (a configuration of a
suite at one repetition) with its configuration, the git commit, the machine,
the MPI library, timestamps, and graphcomm's full JSON document."""
import json
import sqlite3
from pathlib import Path

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  suite TEXT NOT NULL,
  config_key TEXT NOT NULL,
  repeat INTEGER NOT NULL,
  kernel TEXT NOT NULL,
  input TEXT NOT NULL,
  model TEXT,
  ranks INTEGER NOT NULL,
  options TEXT NOT NULL,          -- JSON object
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  error TEXT,                     -- the failed run's error line
  git_commit TEXT,
  machine TEXT NOT NULL,          -- JSON object: host, cores, memory_bytes, os
  mpi_library TEXT,
  started TEXT NOT NULL,          -- ISO 8601, UTC
  finished TEXT NOT NULL,
  wall_seconds REAL NOT NULL,     -- the whole command, launcher included
  result TEXT,                    -- graphcomm's --json document
  UNIQUE (suite, config_key, repeat)
);
"""


# The columns of a run, in the table's order.
_COLUMNS = ("id", "suite", "config_key", "repeat", "kernel", "input", "model", "ranks", "options",
            "status", "error", "git_commit", "machine", "mpi_library", "started", "finished",
            "wall_seconds", "result")

# What `graphcomm-lab save` writes of each run: all but the row's id.
SAVED_COLUMNS = _COLUMNS[1:]


class StoreError(Exception):
    pass


class Store:
    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path)
            self.db.executescript(_SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a graphcomm-lab store ({e})") from None
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                                (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: store schema {row[0]}, this lab reads "
                             f"{SCHEMA_VERSION}")
        self.db.row_factory = sqlite3.Row

    def close(self):
        self.db.close()

    def done_keys(self, suite):
        """(config_key, repeat) of the runs of `suite` that succeeded."""
        rows = self.db.execute(
            "SELECT config_key, repeat FROM runs WHERE suite = ? AND status = 'ok'", (suite,))
        return {(r["config_key"], r["repeat"]) for r in rows}

    def record(self, suite, repeat, config, *, status, error, git_commit, machine, started,
               finished, wall_seconds, result):
        """Stores one run; a failed run stored before for the same place is
        replaced (a restarted suite retries its failures)."""
        mpi = (result or {}).get("mpi", {}).get("library")
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO runs (suite, config_key, repeat, kernel, input, model,"
                " ranks, options, status, error, git_commit, machine, mpi_library, started,"
                " finished, wall_seconds, result) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (suite, config.key(), repeat, config.kernel, config.input, config.model,
                 config.ranks, json.dumps(dict(config.options), sort_keys=True), status, error,
                 git_commit, json.dumps(machine, sort_keys=True), mpi, started, finished,
                 wall_seconds, None if result is None else json.dumps(result)))

    def runs(self, suite=None, status=None):
        """Every stored run as a dict (options, machine and result decoded)."""
        sql, args = "SELECT * FROM runs", []
        where = []
        if suite is not None:
            where.append("suite = ?")
            args.append(suite)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        out = []
        for r in self.db.execute(sql + " ORDER BY id", args):
            d = dict(r)
            d["options"] = json.loads(d["options"])
            d["machine"] = json.loads(d["machine"])
            d["result"] = None if d["result"] is None else json.loads(d["result"])
            out.append(d)
        return out

    def merge(self, run):
        """Adds one run as `runs()` gives it (from another store, through
        `graphcomm-lab save` and `load`): a run at a place where this store has
        none, or an ok run where it holds a failed one. An ok run stored here
        stays. Returns whether the run was added."""
        have = self.db.execute(
            "SELECT status FROM runs WHERE suite = ? AND config_key = ? AND repeat = ?",
            (run["suite"], run["config_key"], run["repeat"])).fetchone()
        if have is not None and (have["status"] == "ok" or run["status"] != "ok"):
            return False
        columns = list(SAVED_COLUMNS)
        values = [run[c] for c in columns]
        for i, c in enumerate(columns):
            if c in ("options", "machine"):
                values[i] = json.dumps(values[i], sort_keys=True)
            elif c == "result" and values[i] is not None:
                values[i] = json.dumps(values[i])
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO runs ({', '.join(columns)}) VALUES "
                            f"({', '.join('?' * len(columns))})", values)
        return True

    def suites(self):
        return [r[0] for r in self.db.execute("SELECT DISTINCT suite FROM runs ORDER BY suite")]
