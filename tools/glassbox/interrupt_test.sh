#!/usr/bin/env bash
# Ctrl-C (or SIGTERM) during `glassbox run` or `glassbox demo`: the command
# finishes the current execution, writes the files of the completed ones
# (renamed into place, no temporary file left), says so and exits 130.
#
# usage: interrupt_test.sh GLASSBOX WORKDIR
set -u
glassbox=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "interrupt_test: $*"; cat "$dir/out.txt" 2>/dev/null; exit 1; }

# Runs "$@" in the background, sends SIGNAL after SECONDS (long enough for
# the command to be running: its handler is in place from its start; how
# many executions complete does not matter) and checks the exit code is 130.
interrupt_after() {
  local seconds=$1 signal=$2
  shift 2
  "$@" > "$dir/out.txt" 2>&1 &
  local pid=$!
  sleep "$seconds"
  kill "-$signal" "$pid"
  wait "$pid"
  local rc=$?
  [[ $rc -eq 130 ]] || fail "$2: exit code $rc, expected 130"
}

"$glassbox" lower --backend demo -o "$dir/m.gbx" > /dev/null || fail "lower failed"
interrupt_after 2 INT "$glassbox" run "$dir/m.gbx" --etdump "$dir/m.etdp" --iterations 1000000
grep -q "interrupted: saved the ETDump of the [0-9]* completed execution" "$dir/out.txt" ||
  fail "run: no 'interrupted' line"
"$glassbox" etdump show "$dir/m.etdp" > /dev/null || fail "the ETDump does not read back"
if ls -A "$dir" | grep -q partial; then fail "a temporary file was left"; fi

interrupt_after 3 TERM "$glassbox" demo --out "$dir/demo" --iterations 100000
grep -q "interrupted: the files hold the [0-9]* completed execution" "$dir/out.txt" ||
  fail "demo: no 'interrupted' line"
for f in demo.gbx demo.etrecord demo.etdp demo.trace.json demo.html; do
  [[ -s "$dir/demo/$f" ]] || fail "demo: $f missing"
done
echo "interrupt_test: exit 130 and the completed executions written (run and demo)"
