#!/bin/sh
# Builds and runs the ingest benchmark with its defaults (1M trace rows, 5M counter rows, peak RSS
# on 10M rows). Extra arguments go to kprof_ingest_bench, e.g. --rss-rows 0 to skip the RSS step.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${KPROF_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKPROF_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target kprof_ingest_bench
exec "$build/bin/kprof_ingest_bench" "$@"
