#!/usr/bin/env python3
"""Paired rounds of `sqlite3 DB '.mode csv' '.import FILE t'` and `kprof ingest DB FILE` (one or
more kprof binaries), alternated round by round, each into a fresh database in a temporary folder.
Prints the medians and, per kprof, the median of the per-round ratios to .import: wall, CPU
seconds (user + system of the process tree) and the load phase's wall time (until kprof prints
the file's line, after the load's commit and before it stores the run's outline).

usage: vs_import.py ROUNDS FILE.csv KPROF [KPROF...]"""
import glob
import os
import resource
import statistics as st
import subprocess
import sys
import tempfile
import time


def run(argv, marker=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, tm = time.time(), None
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if marker and tm is None and marker in line:
            tm = time.time() - t0
    p.wait()
    t = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: " + " ".join(argv))
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), tm


def main():
    rounds, csv, kprofs = int(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    work = tempfile.mkdtemp(prefix="kprof-vs-import-")
    imp_db, k_db = os.path.join(work, "imp.db"), os.path.join(work, "k.db")

    def clean(db):
        for f in glob.glob(db + "*"):
            os.remove(f)

    imp, kp = [], {k: [] for k in kprofs}
    for r in range(rounds):
        for c in (["import"] + kprofs) if r % 2 == 0 else (kprofs[::-1] + ["import"]):
            if c == "import":
                clean(imp_db)
                imp.append(run(["sqlite3", imp_db, ".mode csv", ".import " + csv + " t"]))
            else:
                clean(k_db)
                # stdbuf: kprof's lines arrive as it prints them, so the load phase can be timed
                kp[c].append(run(["stdbuf", "-oL", c, "ingest", k_db, csv], "kernel_trace"))
    clean(imp_db)
    clean(k_db)
    os.rmdir(work)
    print("sqlite3 .import: wall %.3f cpu %.3f (medians of %d)" %
          (st.median(x[0] for x in imp), st.median(x[1] for x in imp), rounds))
    for k in kprofs:
        v = kp[k]
        ratio = lambda i, j: st.median(v[n][i] / imp[n][j] for n in range(rounds))
        print("%s: wall %.3f cpu %.3f load-phase wall %.3f | per-round median ratio to .import: "
              "wall %.2fx cpu %.2fx load-phase wall %.2fx" %
              (k, st.median(x[0] for x in v), st.median(x[1] for x in v),
               st.median(x[2] for x in v), ratio(0, 0), ratio(1, 1), ratio(2, 0)))
    print("load average", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
