#!/usr/bin/env python3
"""Every `kprof query` view fits a 120-column terminal (prints no line over 120 characters), on
the main job's database and on real captures.

usage: views_fit_test.py SOURCE_DIR BUILD_DIR

The databases: scripts/demo's (the Qwen3 runbook on the rocprofv3 test double, as the README's
first command makes it) and real rocprofv3 captures from tests/data/captures ingested with
`kprof ingest`. Each view runs in a 120-column pseudo-terminal (`script` from util-linux, as
tests/readme/readme_test.py does) and must exit 0 and print no line over 120 characters
(characters, not bytes: the box and times signs are one column each), kprof's own "kprof: ..."
notes included: on a terminal they wrap at its width (core/base/table.hpp note_line).
scripts/demo's own output, which a user sees first, must fit too. `explain` runs for each of the
database's first six families (in `families` order).
"""
import csv
import io
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "readme"))
from readme_test import WIDTH, make_clone, run  # noqa: E402

VIEWS = ["top", "families", "variants", "phases", "structure", "windows", "explain", "counters",
         "metrics", "roofline", "passes", "samples"]
# Real captures of different shapes: a uLLM decode loop with counters, a uLLM production trace,
# and the rocprofiler-sdk documentation's sample (a trace and a counter pass of three kernels).
CAPTURES = [
    "uLLM-project/2026-07-28/gemma4-reader-attribution-v0.1",
    "uLLM-project/2026-07-15/qwen35-9b-aq4-production-opt-v0.1",
    "rocprofiler-sdk-docs",
]


def traced_runs(db):
    """The ids of db's runs that hold kernel dispatches (a folder of separate captures ingests as
    several runs, some with counters or statistics only: tests/analysis/untraced_views_test.cpp
    covers those)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return [r for (r,) in con.execute(
            "SELECT id FROM runs WHERE id IN (SELECT p.run_id FROM passes p "
            "JOIN dispatch_rows d ON d.pass_id = p.id WHERE p.kind = 'trace') ORDER BY id")]
    finally:
        con.close()


def families(db, run, env):
    """The family names of a run of db (CSV output, read without a terminal)."""
    p = subprocess.run(["kprof", "query", db, "families", "--run", str(run), "--format", "csv"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    return [row["family"] for row in csv.DictReader(io.StringIO(p.stdout))]


def main():
    src, build = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    failures, checked = [], 0
    with tempfile.TemporaryDirectory(prefix="kprof-views-") as work:
        make_clone(src, build, work)
        env = dict(os.environ)
        env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
        env["COLUMNS"] = str(WIDTH)
        env["KPROF_BIN"] = os.path.join(build, "bin")
        env.pop("LINES", None)
        code, printed = run("scripts/demo", work, env)
        if code != 0:
            print("\n".join(printed[-40:]))
            print("FAIL scripts/demo exited %d" % code)
            return 1
        long = [l for l in printed if len(l) > WIDTH]
        print("$ scripts/demo  (%d lines, widest %d)" % (len(printed), max(map(len, printed))))
        if long:
            failures.append("scripts/demo: %d lines over %d columns, e.g. %r" % (len(long), WIDTH, long[0]))
        dbs = [os.path.join(work, "out", "qwen3-30b-a3b-sim.db")]
        captures = os.path.join(src, "tests", "data", "captures")
        for c in CAPTURES:
            path = os.path.join(captures, c)
            if not os.path.exists(path):
                failures.append("%s: missing (tests/data/SOURCES.md lists the captures)" % path)
                continue
            db = os.path.join(work, os.path.basename(c) + ".db")
            code, printed = run("kprof ingest %s %s" % (db, path), work, env)
            if code != 0:
                failures.append("kprof ingest %s: exit %d\n%s" % (c, code, "\n".join(printed)))
                continue
            dbs.append(db)
        for db, run_id in [(db, r) for db in dbs for r in traced_runs(db)]:
            fams = families(db, run_id, env)
            if not fams:
                failures.append("%s run %d: no families" % (db, run_id))
            for view in VIEWS:
                for fam in (fams[:6] if view == "explain" else [None]):
                    cmd = "kprof query %s %s%s --run %d" % (db, view, " " + fam if fam else "", run_id)
                    code, printed = run(cmd, work, env)
                    checked += 1
                    long = [l for l in printed if len(l) > WIDTH]
                    widest = max((len(l) for l in printed), default=0)
                    print("$ %s  (exit %d, %d lines, widest %d)" % (cmd, code, len(printed), widest))
                    if code != 0 or long or not printed:
                        failures.append(
                            "$ %s: exit %d, %d lines over %d columns%s" %
                            (cmd, code, len(long), WIDTH, (", e.g. %r" % long[0]) if long else ""))
    for f in failures:
        print("FAIL " + f)
    print("%d view commands checked, %d failures" % (checked, len(failures)))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
