#!/usr/bin/env bash
# ctest fixture of the report tests: simulated Qwen3-30B-A3B runs made by `kprof run` as a user
# makes them (it stores their join and outline, so the tests only read them):
#   qwen3-64/qwen3-64.db          runbooks/qwen3-30b-a3b-sim.yaml as shipped (64 tokens, seed 42)
#   qwen3-64-s43/qwen3-64-s43.db  the same with seed 43
#   qwen3-32/qwen3-32.db          32 output tokens: the workload script asks for them
#                                 (--tokens 32) and the double's model gives 31 decode steps
# Each in its own folder: a run writes its captures beside its database.
# usage: make_sim_runs.sh KPROF SOURCE_DIR OUT_DIR
set -euo pipefail
kprof=$1 src=$2 out=$(realpath -m "$3")
rm -rf "$out"
mkdir -p "$out"
runbook=$src/runbooks/qwen3-30b-a3b-sim.yaml
mkdir -p "$out/qwen3-64" "$out/qwen3-64-s43" "$out/qwen3-32"
# Copies, so that the captures are written beside them and not into the source tree.
cp "$runbook" "$out/qwen3-64/qwen3-64.yaml"
sed 's/^  seed: 42$/  seed: 43/' "$runbook" > "$out/qwen3-64-s43/qwen3-64-s43.yaml"
# The workload script under the double's stand-ins (in-process engine), asking for 32 tokens.
sed -e "s|^  command: \\[\"true\"\\]$|  command: [python3, $src/runbooks/workloads/qwen3_generate.py, --tokens, \"32\"]\\n  env: {VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"}|" \
    -e 's/^  output_tokens: 64$/  output_tokens: 32/' "$runbook" > "$out/qwen3-32/qwen3-32.yaml"
grep -q 'seed: 43' "$out/qwen3-64-s43/qwen3-64-s43.yaml" &&
  grep -q -- '--tokens, "32"' "$out/qwen3-32/qwen3-32.yaml" &&
  grep -q 'output_tokens: 32' "$out/qwen3-32/qwen3-32.yaml" || { echo "the runbook changed shape"; exit 1; }
make_run() {
  "$kprof" run "$out/$1/$1.yaml" --simulate --db "$out/$1/$1.db" > "$out/$1.log" 2>&1 ||
    { cat "$out/$1.log"; exit 1; }
}
make_run qwen3-64 &
make_run qwen3-64-s43 &
make_run qwen3-32 &
wait %1 && wait %2 && wait %3
