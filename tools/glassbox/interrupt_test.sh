#!/usr/bin/env bash
# Ctrl-C during `glassbox run`: the run finishes the current execution,
# writes the ETDump of the completed ones (renamed into place, no temporary
# file left), says so and exits 130.
#
# usage: interrupt_test.sh GLASSBOX WORKDIR
set -u
glassbox=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "interrupt_test: $*"; cat "$dir/out.txt" 2>/dev/null; exit 1; }

"$glassbox" lower --backend demo -o "$dir/m.gbx" > /dev/null || fail "lower failed"
"$glassbox" run "$dir/m.gbx" --etdump "$dir/m.etdp" --iterations 1000000 > "$dir/out.txt" 2>&1 &
pid=$!
# Long enough for the command to be running (the signal handler is in place
# from the start of the command; how many executions complete does not
# matter).
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 130 ]] || fail "exit code $rc, expected 130"
grep -q "interrupted: saved the ETDump of the [0-9]* completed execution" "$dir/out.txt" ||
  fail "no 'interrupted' line"
"$glassbox" etdump show "$dir/m.etdp" > /dev/null || fail "the ETDump does not read back"
if ls -A "$dir" | grep -q partial; then fail "a temporary file was left"; fi
echo "interrupt_test: exit 130, ETDump of the completed executions written"
