#!/usr/bin/env bash
# Build the C core with AddressSanitizer + UndefinedBehaviorSanitizer into a separate directory
# (never touching the in-place build) and run the test suite against it.
#
#   scripts/sanitize.sh [pytest args...]     default: the whole suite, tests/
#   scripts/sanitize.sh -m c_core tests      the tests that drive the C core (what CI runs)
#
# Any sanitizer report fails the run: reports abort the process (-fno-sanitize-recover, and
# halt_on_error), and they are also written to log files (log_path) so that a report from a
# subprocess a test started, which the test itself might tolerate, still fails the script.
#
# Environment:
#   PYTH_SAN_DIR     where to build (default: a fresh temporary directory, removed afterwards)
#   PYTH_SAN_KEEP=1  keep that directory (reuse it with PYTH_SAN_DIR to skip rebuilding)
#   PYTH_SAN_BUILD_ONLY=1  build (into PYTH_SAN_DIR) and stop: CI builds while other tests run
#   PYTH_SAN_PREPARED=1    PYTH_SAN_DIR holds a build-only run's result of these sources: run
#                    against it as it is (no rebuild check, no fresh copy of the package), so
#                    that several runs can share the directory at once
#   PYTH_SHARD=k/n   run the k-th of n interleaved parts of the selected tests (tests/conftest.py),
#                    with its own log directory; CI runs two at once, one per core
#   PYTH_FUZZ        hypothesis profile for the fuzz tests (see tests/conftest.py)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-python3}"

dir="${PYTH_SAN_DIR:-}"
if [[ -z "$dir" ]]; then
  dir="$(mktemp -d "${TMPDIR:-/tmp}/pyth-san.XXXXXX")"
  [[ "${PYTH_SAN_KEEP:-0}" == 1 ]] || trap 'rm -rf "$dir"' EXIT
fi
logs="$dir/logs${PYTH_SHARD:+-${PYTH_SHARD%%/*}of${PYTH_SHARD##*/}}"
mkdir -p "$dir/lib" "$dir/build" "$logs"
rm -f "$logs"/*

# ---- build (skipped for a prepared directory) ----
if [[ "${PYTH_SAN_PREPARED:-0}" != 1 ]]; then
  # setuptools writes only below $dir (build_ext -b/-t); the sources stay untouched
  san_so=$(ls "$dir"/lib/pyth/_th*.so 2>/dev/null | head -1 || true)
  if [[ -z "$san_so" || -n "$(find "$repo/lib" "$repo/generic" "$repo/build_ffi.py" -newer "$san_so" -print -quit)" ]]; then
    echo "== building the sanitized core in $dir =="
    start=$SECONDS
    (cd "$repo" && PYTH_SANITIZE=address,undefined "$py" setup.py -q build_ext --force \
        -b "$dir/lib" -t "$dir/build" -j 2 >"$dir/build.log" 2>&1) || {
      tail -50 "$dir/build.log"; echo "sanitized build FAILED"; exit 1; }
    echo "   built in $((SECONDS - start)) s"
  fi
  # The Python package beside the sanitized module, subpackages included (copied fresh: the
  # sources may have changed).
  find "$dir/lib/pyth" -name '*.py' -delete
  (cd "$repo" && find pyth -name '*.py' -print0) |
    while IFS= read -r -d '' f; do install -D -m 644 "$repo/$f" "$dir/lib/$f"; done
fi
san_so=$(ls "$dir"/lib/pyth/_th*.so 2>/dev/null | head -1 || true)
[[ -n "$san_so" ]] || { echo "sanitize.sh: no sanitized core in $dir/lib/pyth"; exit 1; }

[[ "${PYTH_SAN_BUILD_ONLY:-0}" != 1 ]] || { echo "sanitize.sh: built $san_so"; exit 0; }

# ---- run ----
asan="$(gcc -print-file-name=libasan.so)"
ubsan="$(gcc -print-file-name=libubsan.so)"
[[ -f "$asan" && -f "$ubsan" ]] || { echo "libasan/libubsan not found (gcc -print-file-name)"; exit 1; }
export LD_PRELOAD="$asan:$ubsan${LD_PRELOAD:+:$LD_PRELOAD}"
# detect_leaks=0: CPython, numpy and torch keep allocations alive until exit by design, and
# LeakSanitizer suppressions match ANY frame of a stack, so one for the interpreter would also
# hide pyth's leaks (every pyth call has the interpreter below it). pyth's own leaks are caught
# by tests/test_leaks.py (memory_stats, the core's live metadata blocks, RSS) and by
# scripts/valgrind.sh (definite leaks with a frame in _th*.so).
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:log_path=$logs/asan:allocator_may_return_null=1:detect_stack_use_after_return=0:strict_init_order=1:check_initialization_order=1:handle_segv=1:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan:suppressions=$repo/scripts/ubsan.supp"
# pytest's tests import `pyth` from the first path entry: the sanitized copy. The conftest
# checks this (PYTH_EXPECT_CORE) so a run can never silently test the normal build.
export PYTH_EXPECT_CORE="$san_so"
# Storage memory from aligned malloc, so ASan bounds every block with its own redzones (the
# caching allocator packs blocks into segments and poisons only the cached ones); its own
# tests select it explicitly. PYTH_ALLOCATOR=caching runs the suite sanitized through it.
export PYTH_ALLOCATOR="${PYTH_ALLOCATOR:-default}"
# the sanitized package first; then the repo and tests/, for the helpers that tests and their
# child processes import (`tests.x`, `test_random`)
export PYTHONPATH="$dir/lib:$repo:$repo/tests${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
export PYTHONMALLOC=malloc   # let ASan see Python-level buffers too (no pymalloc arenas)
export PYTH_FUZZ="${PYTH_FUZZ:-san}"   # fewer fuzz examples: everything runs ~3x slower

[[ $# -gt 0 ]] || set -- "$repo/tests"
# pytest runs from $dir/lib: make path arguments (tests/x.py::test_y) absolute first
args=()
for a in "$@"; do
  p="${a%%::*}"
  if [[ "$a" != -* && -e "$p" ]]; then a="$(cd "$(dirname "$p")" && pwd)/$(basename "$p")${a:${#p}}"; fi
  args+=("$a")
done
set -- "${args[@]}"
echo "== pytest under ASan+UBSan: $* =="
start=$SECONDS
status=0
# --capture=sys: pytest captures Python's sys.stdout/err only, so a report the sanitizer writes
# to file descriptor 2 reaches the log even when the process dies mid-test (UBSan ignores
# log_path when it runs inside the ASan runtime).
set +e
(cd "$dir/lib" && "$py" -m pytest -q -p no:cacheprovider --capture=sys --rootdir "$repo" "$@") \
  2>&1 | tee "$logs/pytest.out"
status=${PIPESTATUS[0]}
set -e
echo "   tests took $((SECONDS - start)) s (pytest exit $status)"

# A report is an ERROR (ASan, LSan), a "runtime error" (UBSan) or a SUMMARY; the logs may
# also hold harmless WARNINGs (e.g. "failed to allocate" for the tests' impossible sizes,
# which allocator_may_return_null turns into MemoryError).
reports=$(grep -lE 'ERROR: |runtime error|SUMMARY: ' "$logs"/* 2>/dev/null || true)
if [[ -n "$reports" ]]; then
  echo "== sanitizer reports =="
  for f in $reports; do
    echo "--- $f"
    grep -vE 'WARNING: AddressSanitizer failed to allocate' "$f" | grep -E -A40 'ERROR: |runtime error' | head -60 || true
  done
  echo "sanitize.sh: FAILED (sanitizer reported errors)"
  exit 1
fi
if [[ $status -ne 0 ]]; then
  echo "sanitize.sh: FAILED (pytest exit $status)"
  exit "$status"
fi
echo "sanitize.sh: OK (no sanitizer reports)"
