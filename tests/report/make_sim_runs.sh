#!/usr/bin/env bash
# ctest fixture of the report tests: simulated Qwen3-30B-A3B runs made by `kprof run` as a user
# makes them, then joined once (kprof query) so the tests only read them:
#   qwen3-64/qwen3-64.db          runbooks/qwen3-30b-a3b-sim.yaml as shipped (64 tokens, seed 42)
#   qwen3-64-s43/qwen3-64-s43.db  the same with seed 43
#   qwen3-32/qwen3-32.db          32 output tokens: the model with 31 decode steps instead of 63
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
sed 's/{repeat: 63, /{repeat: 31, /' "$src/configs/sim/qwen3-30b-a3b-mi300x.yaml" > "$out/qwen3-32/model.yaml"
# The model names its system file (mi300x-node) relative to its own folder.
cp "$src/configs/sim/mi300x-node.yaml" "$out/qwen3-32/"
sed -e "s|^  model: qwen3-30b-a3b-mi300x$|  model: $out/qwen3-32/model.yaml|" \
    -e 's/^  output_tokens: 64$/  output_tokens: 32/' "$runbook" > "$out/qwen3-32/qwen3-32.yaml"
grep -q 'seed: 43' "$out/qwen3-64-s43/qwen3-64-s43.yaml" && grep -q 'repeat: 31' "$out/qwen3-32/model.yaml" &&
  grep -q "model: $out" "$out/qwen3-32/qwen3-32.yaml" || { echo "the runbook or model changed shape"; exit 1; }
make_run() {
  "$kprof" run "$out/$1/$1.yaml" --simulate --db "$out/$1/$1.db" > "$out/$1.log" 2>&1 ||
    { cat "$out/$1.log"; exit 1; }
  "$kprof" query "$out/$1/$1.db" passes > /dev/null 2>&1
}
make_run qwen3-64 &
make_run qwen3-64-s43 &
make_run qwen3-32 &
wait %1 && wait %2 && wait %3
