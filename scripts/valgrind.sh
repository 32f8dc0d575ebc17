#!/usr/bin/env bash
# Run a smoke subset of pyth under valgrind memcheck and fail on errors in pyth's own code.
#
#   scripts/valgrind.sh [python script or -m module args...]   default: scripts/valgrind_smoke.py
#
# The core is built with -O0 -g (PYTH_DEBUG=1) into a separate directory, so the in-place build
# is never touched and reports carry file:line. Python runs with PYTHONMALLOC=malloc (no pymalloc
# arenas for memcheck to misread) and scripts/valgrind-python.supp silences the interpreter's own
# leaks. The verdict comes from valgrind's XML: the run fails if any invalid access, use of
# uninitialised memory, bad free or DEFINITE leak has a stack frame in pyth's core (_th*.so),
# or if the program itself fails.
#
# Environment: PYTH_VG_DIR (build directory; default a temporary one, removed afterwards),
#              PYTH_VG_KEEP=1 (keep it), PYTH_VG_SELFTEST=1 (the smoke script leaks on purpose:
#              the run must then FAIL, which shows the gate works).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-python3}"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }

dir="${PYTH_VG_DIR:-}"
if [[ -z "$dir" ]]; then
  dir="$(mktemp -d "${TMPDIR:-/tmp}/pyth-vg.XXXXXX")"
  [[ "${PYTH_VG_KEEP:-0}" == 1 ]] || trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir/lib" "$dir/build"

so=$(ls "$dir"/lib/pyth/_th*.so 2>/dev/null | head -1 || true)
if [[ -z "$so" || -n "$(find "$repo/lib" "$repo/generic" "$repo/build_ffi.py" -newer "$so" -print -quit)" ]]; then
  echo "== building the debug core (-O0 -g) in $dir =="
  start=$SECONDS
  (cd "$repo" && PYTH_DEBUG=1 "$py" setup.py -q build_ext --force -b "$dir/lib" -t "$dir/build" -j 2 \
      >"$dir/build.log" 2>&1) || { tail -50 "$dir/build.log"; echo "debug build FAILED"; exit 1; }
  echo "   built in $((SECONDS - start)) s"
fi
find "$dir/lib/pyth" -name '*.py' -delete
(cd "$repo" && find pyth -name '*.py' -print0) |   # the whole package, subpackages included
  while IFS= read -r -d '' f; do install -D -m 644 "$repo/$f" "$dir/lib/$f"; done

[[ $# -gt 0 ]] || set -- "$repo/scripts/valgrind_smoke.py"
# valgrind must start the interpreter itself, not a wrapper script (pyenv shims are bash)
pyexe="$("$py" -c 'import sys; print(sys.executable)')"
xml="$dir/memcheck.xml"
echo "== valgrind memcheck: python $* =="
start=$SECONDS
status=0
(cd "$dir/lib" && PYTHONPATH="$dir/lib" PYTHONMALLOC=malloc PYTHONDONTWRITEBYTECODE=1 \
  OMP_NUM_THREADS=2 valgrind --tool=memcheck --leak-check=full \
  --show-leak-kinds=definite --errors-for-leak-kinds=definite --track-origins=no \
  --num-callers=40 --suppressions="$repo/scripts/valgrind-python.supp" \
  --xml=yes --xml-file="$xml" "$pyexe" -P "$@") || status=$?
echo "   took $((SECONDS - start)) s (program exit $status)"

verdict=0
"$py" - "$xml" <<'PY' || verdict=$?
"""Judge valgrind's XML: errors whose stack has a frame in pyth's core fail the run."""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
bad, other = [], 0
for err in root.iter("error"):
    kind = err.findtext("kind", "")
    frames = err.findall("./stack/frame")
    ours = [f for f in frames if "_th" in (f.findtext("obj") or "").rsplit("/", 1)[-1]]
    if kind.startswith("Leak_") and kind != "Leak_DefinitelyLost":
        continue
    if not ours:
        other += 1
        continue
    what = err.findtext("what") or err.findtext("./xwhat/text") or kind
    where = []
    for f in frames[:12]:
        fn, file, line = f.findtext("fn") or "?", f.findtext("file"), f.findtext("line")
        where.append(f"    {fn}" + (f" ({file}:{line})" if file else f" [{f.findtext('obj')}]"))
    bad.append(f"{kind}: {what}\n" + "\n".join(where))
print(f"valgrind: {len(bad)} error(s) in pyth's core, {other} elsewhere (interpreter, "
      f"numpy, libc: not judged)")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
if [[ $verdict -ne 0 ]]; then echo "valgrind.sh: FAILED (errors in pyth's core)"; exit 1; fi
if [[ $status -ne 0 ]]; then echo "valgrind.sh: FAILED (the program exited $status)"; exit "$status"; fi
echo "valgrind.sh: OK"
