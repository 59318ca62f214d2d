#!/bin/sh
# Deferred decoding end to end with example_npu: the same model lowered
# with trace=direct (one event per op) and trace=deferred (one raw trace per
# execution, expanded by the plug-in's decoder at inspect time) gives the
# same delegated rows in the ops view (names, counts, times and counters:
# the NPU's simulated cycles are exact, so the times are equal, not merely
# within a cycle); report reads the deferred dump too, and compare and
# report --compare put the two side by side with equal NPU times. Without
# the plug-in (inspect, compare), and with a damaged trace, inspect exits 1
# with one line; so does lower with
# a trace spec example_npu does not know (a malformed spec exits 2).
# Usage: plugin_deferred_test.sh GLASSBOX PLUGIN ONNX_DIR WORK_DIR
set -eu
glassbox=$1
npu=$2
onnx=$3
work=$4
rm -rf "$work"
mkdir -p "$work"

for mode in direct deferred; do
  "$glassbox" lower "$onnx/tiny_cnn.onnx" --plugin "$npu" --backend example_npu \
    --compile-spec trace=$mode -o "$work/$mode.gbx" --etrecord "$work/$mode.etrecord" >/dev/null
  GLASSBOX_PLUGINS=$npu "$glassbox" run "$work/$mode.gbx" --etdump "$work/$mode.etdp" \
    --iterations 3 --input "$onnx/tiny_cnn.input.npy" >/dev/null
  # The delegated rows: label, count and mean time (columns 1, 14, 15),
  # and the counter columns after `percent` (column 23).
  "$glassbox" inspect --etdump "$work/$mode.etdp" --etrecord "$work/$mode.etrecord" \
    --format csv --plugin "$npu" |
    awk -F, '$7 == "true" { row = $1 "," $14 "," $15; for (i = 24; i <= NF; i++) row = row "," $i; print row }' |
    sort >"$work/$mode.rows"
done
if [ ! -s "$work/direct.rows" ] || ! cmp -s "$work/direct.rows" "$work/deferred.rows"; then
  echo "plugin_deferred_test: the delegated rows differ (direct, then deferred):"
  cat "$work/direct.rows" "$work/deferred.rows"
  exit 1
fi
GLASSBOX_PLUGINS=$npu "$glassbox" report --etdump "$work/deferred.etdp" \
  --etrecord "$work/deferred.etrecord" -o "$work/deferred.html" >/dev/null
# compare and report --compare expand the raw traces too: direct against
# deferred, the NPU's ops (backend_a, column 7) take the same simulated time
# (B/A, column 12, is 1), and no op is in one run only.
"$glassbox" compare "$work/direct.etdp" "$work/direct.etrecord" "$work/deferred.etdp" \
  "$work/deferred.etrecord" --plugin "$npu" --format csv >"$work/compare.csv"
awk -F, '$1 == "op" && $7 == "example_npu" { n++; if ($12 != "1") bad++ }
  $1 ~ /^only/ { bad++ } END { exit !(n == 3 && bad == 0) }' "$work/compare.csv" ||
  { echo "plugin_deferred_test: compare direct with deferred:"; cat "$work/compare.csv"; exit 1; }
GLASSBOX_PLUGINS=$npu "$glassbox" report --etdump "$work/direct.etdp" \
  --etrecord "$work/direct.etrecord" --compare "$work/deferred.etdp" \
  --compare-etrecord "$work/deferred.etrecord" -o "$work/compare.html" >/dev/null

. "$(dirname "$0")/expect_refusal.sh"
expect_refusal "raw trace(s) of backend 'example_npu' need its decoder" \
  inspect --etdump "$work/deferred.etdp"
expect_refusal "raw trace(s) of backend 'example_npu' need its decoder" \
  compare "$work/direct.etdp" "$work/direct.etrecord" "$work/deferred.etdp" "$work/deferred.etrecord"
# A damaged trace (its magic changed inside a valid ETDump): the decoder's
# error, one line.
LC_ALL=C sed 's/XNTR/XNTQ/' "$work/deferred.etdp" >"$work/damaged.etdp"
expect_refusal "does not decode: example_npu trace: not an XNTR trace" \
  inspect --etdump "$work/damaged.etdp" --plugin "$npu"
# The backend refuses a value of its spec it does not know.
expect_refusal "example_npu: compile spec trace=bogus (direct or deferred)" \
  lower "$onnx/tiny_cnn.onnx" --plugin "$npu" --backend example_npu \
  --compile-spec trace=bogus -o "$work/bogus.gbx"
# A spec that is not KEY=VALUE is a usage error (exit 2).
status=0
"$glassbox" lower "$onnx/tiny_cnn.onnx" --plugin "$npu" --backend example_npu \
  --compile-spec trace -o "$work/bogus.gbx" 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && grep -qF "expected KEY=VALUE" "$work/err" ||
  { echo "plugin_deferred_test: --compile-spec trace exited $status:"; cat "$work/err"; exit 1; }
echo "plugin_deferred_test: passed"
