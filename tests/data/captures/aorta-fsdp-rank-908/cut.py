#!/usr/bin/env python3
"""Cuts 908_results.json (this folder) out of the rocprofv3 JSON capture that AMD-AGI/TraceLens
keeps as tests/rocprof/908_results.json.gz (PROVENANCE.md says which commit and blob), and prints
the truths the ingest test checks, counted from the excerpt's raw records.

usage: cut.py ORIGINAL.json[.gz] [OUT_DIR]   (OUT_DIR defaults to this script's folder)
       cut.py --truths EXCERPT.json            (only print the truths of an excerpt)

What is kept, record by record and unchanged (same keys, same order, compact like the original):
  - metadata, strings: whole;
  - agents: the two CPU agents, the GPU agent every dispatch ran on (logical_node_id 2) and the
    next GPU (logical_node_id 3, which no dispatch uses), so that a reader must map the handle;
    the other six GPU agents are left out (about 100 kB each, mostly their cache tables);
  - kernel_symbols: the symbol with kernel_id 0 (the SDK's empty entry) and those the kept
    dispatches use;
  - buffer_records.kernel_dispatch: every record whose start_timestamp lies in
    [WINDOW_START_NS, WINDOW_END_NS), in the original's order;
  - every other list (code_objects, host_functions, other buffer and callback record kinds, ...)
    is emptied: its key stays, so the document has the original's structure.
"""
import collections
import gzip
import json
import os
import sys

# The window: from the start of the 801st dispatch in time order to the start of the dispatch
# after the 13th RCCL collective (ncclDevKernel_Generic_1) of the run; the first collectives are at
# time-order positions 2,650 on. Chosen so that the excerpt holds 13 collectives among about 2,000
# dispatches on four queues and stays under 1.5 MB.
WINDOW_START_NS = 63860075331517
WINDOW_END_NS = 63866401011918
KEEP_AGENT_LOGICAL_IDS = {0, 1, 2, 3}


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def cut(doc):
    procs = doc["rocprofiler-sdk-tool"]
    assert len(procs) == 1, "expected one process"
    p = procs[0]
    rows = [r for r in p["buffer_records"]["kernel_dispatch"]
            if WINDOW_START_NS <= r["start_timestamp"] < WINDOW_END_NS]
    used = {r["dispatch_info"]["kernel_id"] for r in rows} | {0}
    out = {}
    for key, value in p.items():
        if key in ("metadata", "strings"):
            out[key] = value
        elif key == "agents":
            out[key] = [a for a in value if a["logical_node_id"] in KEEP_AGENT_LOGICAL_IDS]
        elif key == "kernel_symbols":
            out[key] = [k for k in value if k["kernel_id"] in used]
        elif key in ("buffer_records", "callback_records"):
            out[key] = {k: (rows if (key, k) == ("buffer_records", "kernel_dispatch") else [])
                        for k in value}
        elif isinstance(value, list):
            out[key] = []
        else:
            out[key] = value
    return {"rocprofiler-sdk-tool": [out]}


def truths(doc):
    """Counted from the raw records: no kprof code involved."""
    p = doc["rocprofiler-sdk-tool"][0]
    sym = {k["kernel_id"]: k for k in p["kernel_symbols"]}
    agents = {a["id"]["handle"]: a for a in p["agents"]}
    rows = p["buffer_records"]["kernel_dispatch"]
    name = lambda r: sym[r["dispatch_info"]["kernel_id"]]["formatted_kernel_name"]
    dur = lambda r: r["end_timestamp"] - r["start_timestamp"]
    coll = [r for r in rows if name(r).startswith("ncclDevKernel_")]
    per_agent = collections.Counter(
        agents[r["dispatch_info"]["agent_id"]["handle"]]["logical_node_id"] for r in rows)
    per_queue = collections.Counter(r["dispatch_info"]["queue_id"]["handle"] for r in rows)
    print("pid", p["metadata"]["pid"])
    print("dispatches", len(rows))
    print("distinct kernels (formatted_kernel_name)", len({name(r) for r in rows}))
    print("distinct kernel_ids", len({r["dispatch_info"]["kernel_id"] for r in rows}))
    print("dispatches per agent logical_node_id", dict(sorted(per_agent.items())))
    print("dispatches per queue handle", dict(sorted(per_queue.items())))
    print("collective (ncclDevKernel_*) dispatches", len(coll))
    print("collective names", dict(collections.Counter(name(r) for r in coll)))
    print("collective sum(end-start) ns", sum(map(dur, coll)))
    print("all dispatches sum(end-start) ns", sum(map(dur, rows)))
    print("first start ns", min(r["start_timestamp"] for r in rows))
    print("last end ns", max(r["end_timestamp"] for r in rows))
    print("agents kept (logical_node_id, name)",
          [(a["logical_node_id"], a["name"]) for a in p["agents"]])


def main(argv):
    if len(argv) == 3 and argv[1] == "--truths":
        truths(load(argv[2]))
        return 0
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[2] if len(argv) == 3 else os.path.dirname(os.path.abspath(__file__))
    excerpt = cut(load(argv[1]))
    path = os.path.join(out_dir, "908_results.json")
    with open(path, "w") as f:
        json.dump(excerpt, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")
    truths(load(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
