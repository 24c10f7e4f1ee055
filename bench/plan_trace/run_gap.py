#!/usr/bin/env python3
"""Times `kprof run` on bench/plan_trace/run_trace.yaml (a trace of about 1M dispatches, SIMULATED)
and the pause after its trace pass: from the progress line `pass 0 (trace) done` to the next
`(counters ...) started`, stamped as the lines arrive. That pause is kprof alone (ranking the
kernels, previewing rotation on the trace, recording the counter passes).

usage: bench/plan_trace/run_gap.py KPROF DB [LABEL]   (from the repository root; DB is replaced)
Prints one line: wall, CPU of kprof and its children (getrusage), the pause. Asserts nothing.
"""
import os
import resource
import shutil
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    kprof, db = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) > 3 else kprof
    for p in (db, db + "-wal", db + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(os.path.splitext(db)[0] + "-captures", ignore_errors=True)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    cmd = [kprof, "run", "bench/plan_trace/run_trace.yaml", "--simulate", "--db", db]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    trace_done = counters_started = None
    for line in proc.stdout:
        t = time.monotonic() - t0
        if "pass 0 (trace) done" in line:
            trace_done = t
        if "(counters" in line and "started" in line and counters_started is None:
            counters_started = t
    proc.wait()
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    pause = (counters_started - trace_done) if trace_done is not None and counters_started else -1
    print("%s: exit %d, wall %.1f s, CPU %.1f s, trace done -> counter pass started %.2f s"
          % (label, proc.returncode, wall, cpu, pause))
    return 0


if __name__ == "__main__":
    sys.exit(main())
