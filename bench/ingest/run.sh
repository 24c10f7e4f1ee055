#!/bin/sh
# Builds kprof and the ingest benchmark (Release) and runs it with its defaults (1M trace rows, 1M
# counter rows, median of 3 paired rounds). Extra arguments go to kprof_ingest_bench, e.g.
# --rss-rows 10000000 for the peak RSS of a 10M-row ingest.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${KPROF_BUILD_DIR:-$root/build-bench}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPROF_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j2 --target kprof kprof_ingest_bench
exec "$build/bin/kprof_ingest_bench" --kprof "$build/bin/kprof" "$@"
