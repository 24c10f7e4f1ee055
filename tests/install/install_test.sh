#!/usr/bin/env bash
# Installs kprof the two ways a user does, and runs the installed kprof with the source and build
# trees out of reach:
#   1. `cmake --install BUILD --prefix P`, then P is moved elsewhere (the install is relocatable);
#   2. the .deb that CPack makes (`cpack -G DEB`): its Depends line, then its files, unpacked with
#      dpkg-deb -x (a test must not install packages on the developer's machine; .ci/run installs
#      the same .deb with apt, see scripts/package-check).
# "Out of reach": the installed kprof runs in a private mount namespace (unshare -rm) where the
# source and build trees are empty tmpfs mounts, so a path compiled into the binary or a lookup
# that wanders into the tree fails.
# usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs "$@" with $build, then $src, hidden (the build folder may lie inside the source tree) and KPROF_CONFIG_DIR unset, in $tmp/cwd.
hidden() {
  mkdir -p "$tmp/cwd"
  if unshare -rm true 2>/dev/null; then
    (cd "$tmp/cwd" && env -u KPROF_CONFIG_DIR unshare -rm sh -c \
      'mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"' \
      hidden "$build" "$src" "$@")
  else
    # Without user namespaces the trees stay visible; the run still proves the prefix is
    # self-contained only as far as the lookups go, so say so.
    echo "note: unshare -rm is not permitted here; the source tree stays visible" >&2
    (cd "$tmp/cwd" && env -u KPROF_CONFIG_DIR "$@")
  fi
}

check_prefix() {  # PREFIX: files, then plan / validate / one-line simulated run from there
  local p=$1
  for f in bin/kprof bin/rocprofv3-sim share/kprof/configs/hw/gfx942.yaml \
           share/kprof/configs/metrics/roofline.yaml share/kprof/runbooks/qwen3-30b-a3b-sim.yaml \
           share/man/man1/kprof.1 share/man/man1/kprof-query.1 share/man/man1/kprof-run.1 \
           share/bash-completion/completions/kprof; do
    [ -e "$p/$f" ] || fail "$p/$f is not installed"
  done
  hidden "$p/bin/kprof" plan "$p/share/kprof/runbooks/qwen3-30b-a3b-sim.yaml" --simulate >"$tmp/plan.txt" ||
    fail "installed kprof plan failed: $(cat "$tmp/plan.txt")"
  grep -q '^passes: 3 ' "$tmp/plan.txt" || fail "unexpected plan: $(head -5 "$tmp/plan.txt")"
  # an installed runbook writes where the user runs it, never into the installation
  grep -qF "in $tmp/cwd/qwen3-30b-a3b-sim.db, exactly" "$tmp/plan.txt" ||
    fail "installed runbook's database is not in the working directory: $(grep -A1 'commands of run' "$tmp/plan.txt")"
  hidden "$p/bin/kprof" counters --explain FETCH_SIZE >"$tmp/counters.txt" ||
    fail "installed kprof counters failed"
  grep -q 'slots in one pass:' "$tmp/counters.txt" || fail "unexpected counters output"
  # the man page says what --help says; the completion knows query's options
  grep -q 'jsonl' "$p/share/man/man1/kprof-query.1" || fail "kprof-query.1 lacks --format jsonl"
  grep -q 'query) opts=.*--wide' "$p/share/bash-completion/completions/kprof" ||
    fail "completion lacks query --wide"
  # one-line profiling with no runbook, on the installed test double
  rm -rf "$tmp/cwd"
  hidden "$p/bin/kprof" run --simulate --quiet --metric-set roofline --kernels fused_moe -- true \
    >"$tmp/run.txt" 2>&1 || fail "installed one-line kprof run failed: $(tail -5 "$tmp/run.txt")"
  # replay: auto: the trace shows every fused-MoE variant reaching 30 launches of each of the 3
  # groups in one run, so trace + ONE rotated counter pass
  grep -q '^2/2 passes done' "$tmp/run.txt" || fail "unexpected run: $(tail -5 "$tmp/run.txt")"
  # configs are found from the prefix, not from a tree the binary was built in
  if hidden sh -c "'$p/bin/kprof' plan /nonexistent.yaml" 2>"$tmp/err.txt"; then
    fail "plan of a missing runbook succeeded"
  fi
  grep -q "$src" "$tmp/err.txt" && fail "an error names the source tree: $(cat "$tmp/err.txt")"
  return 0
}

# 1. cmake --install, then moved
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mv "$tmp/prefix" "$tmp/moved"
check_prefix "$tmp/moved"
echo "ok: cmake --install into a prefix, moved, runs with the source and build trees hidden"

# A kprof without its share/ folder must say it cannot find its configs (no fallback into a tree),
# and KPROF_CONFIG_DIR (documented in the README) must bring them back.
mkdir -p "$tmp/lonely/bin" && cp "$tmp/moved/bin/kprof" "$tmp/lonely/bin/"
if hidden "$tmp/lonely/bin/kprof" counters FETCH 2>"$tmp/err.txt" >/dev/null; then
  fail "a kprof without share/kprof/configs found configs"
fi
grep -q "cannot find kprof's configs" "$tmp/err.txt" || fail "unexpected error: $(cat "$tmp/err.txt")"
KPROF_CONFIG_DIR="$tmp/moved/share/kprof/configs" "$tmp/lonely/bin/kprof" counters FETCH_SIZE \
  >/dev/null 2>&1 || fail "KPROF_CONFIG_DIR was not used"
echo "ok: without share/kprof/configs kprof says so; KPROF_CONFIG_DIR points it at configs"

# 2. the Debian package
(cd "$build" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack failed: $(tail -20 "$tmp/cpack.log")"
deb=$(ls "$tmp"/deb/kprof_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libyaml-cpp libboost-program-options libsqlite3 libstdc++6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/kprof ./usr/bin/rocprofv3-sim ./usr/share/kprof/configs/hw/gfx942.yaml; do
  grep -q " $f$" <<<"$contents" || fail ".deb has no $f"
done
dpkg-deb -x "$deb" "$tmp/root"
check_prefix "$tmp/root/usr"
echo "ok: $(basename "$deb") Depends: $depends"
echo "ok: its files run with the source and build trees hidden"
