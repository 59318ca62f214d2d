#!/bin/sh
# A vendor's backend plug-in built the way docs/backend-authors.md says:
# installs the build tree into a temporary prefix, copies
# examples/out_of_tree_backend out of the source tree, builds it with
# find_package(glassbox) against the prefix alone, and runs the installed
# glassbox with it: lower (--plugin), run (GLASSBOX_PLUGINS), inspect and
# report.
# Usage: plugin_test.sh SOURCE_DIR BUILD_DIR CXX_COMPILER
set -eu
source_dir=$1
build_dir=$2
cxx=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
glassbox=$prefix/bin/glassbox
onnx=$source_dir/testdata/onnx

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
[ -f "$prefix/include/glassbox/backends/plugin.h" ] ||
  { echo "plugin_test: glassbox/backends/plugin.h was not installed"; exit 1; }
cp -R "$source_dir/examples/out_of_tree_backend" "$work/example"
cmake -S "$work/example" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build"
plugin=$work/build/libexample_npu.so

"$glassbox" lower "$onnx/tiny_cnn.onnx" --plugin "$plugin" --backend example_npu \
  -o "$work/m.gbx" --etrecord "$work/m.etrecord" >"$work/lower.txt"
grep -q "3 ops delegated in 2 delegates" "$work/lower.txt" ||
  { echo "plugin_test: lower did not delegate to example_npu:"; cat "$work/lower.txt"; exit 1; }
GLASSBOX_PLUGINS=$plugin "$glassbox" run "$work/m.gbx" --etdump "$work/m.etdp" --iterations 2 \
  --input "$onnx/tiny_cnn.input.npy" --expect "$onnx/tiny_cnn.expected.npy" --tolerance 1e-5
"$glassbox" inspect --etdump "$work/m.etdp" --etrecord "$work/m.etrecord" >"$work/inspect.txt"
# The conv's events are the NPU's cycles, converted with its declared clock.
grep -q "example_npu.*2/1 ns per tick" "$work/inspect.txt" && grep -q "/features/features.0/Conv .*example_npu" "$work/inspect.txt" ||
  { echo "plugin_test: inspect shows no example_npu operators:"; cat "$work/inspect.txt"; exit 1; }
# Its counters are ops-view columns: the conv's MACs, 4x8x8 outputs x 3x3x3
# taps = 6912 an execution, summed over the two.
"$glassbox" inspect --etdump "$work/m.etdp" --etrecord "$work/m.etrecord" --format csv \
  >"$work/inspect.csv"
grep -q "^/features/features.0/Conv,.*,13824,6912.000,[0-9]*,[0-9.]*$" "$work/inspect.csv" ||
  { echo "plugin_test: inspect shows no example_npu MAC counter of 6912:"; cat "$work/inspect.csv"; exit 1; }
# Its clock's declared offset from the host clock places its events.
grep -q "example_npu.*placed on the host timeline with its declared offset" "$work/inspect.txt" ||
  { echo "plugin_test: example_npu's clock offset was not used:"; cat "$work/inspect.txt"; exit 1; }
"$glassbox" report --etdump "$work/m.etdp" --etrecord "$work/m.etrecord" -o "$work/m.html" >/dev/null
grep -q "example_npu" "$work/m.html" || { echo "plugin_test: the report names no example_npu"; exit 1; }
# Deferred decoding: trace=deferred logs one raw trace an execution, which
# the plug-in's decoder expands at inspect time into the rows direct
# logging gives (same counts, times and counters; the cycles are exact).
"$glassbox" lower "$onnx/tiny_cnn.onnx" --plugin "$plugin" --backend example_npu \
  --compile-spec trace=deferred -o "$work/d.gbx" --etrecord "$work/d.etrecord" >/dev/null
GLASSBOX_PLUGINS=$plugin "$glassbox" run "$work/d.gbx" --etdump "$work/d.etdp" --iterations 2 \
  --input "$onnx/tiny_cnn.input.npy" >/dev/null
for m in m d; do
  "$glassbox" inspect --etdump "$work/$m.etdp" --etrecord "$work/$m.etrecord" --format csv \
    --plugin "$plugin" |
    awk -F, '$7 == "true" { row = $1 "," $14 "," $15; for (i = 24; i <= NF; i++) row = row "," $i; print row }' |
    sort >"$work/$m.rows"
done
[ -s "$work/m.rows" ] && cmp -s "$work/m.rows" "$work/d.rows" ||
  { echo "plugin_test: deferred decoding gave other rows:"; cat "$work/m.rows" "$work/d.rows"; exit 1; }
echo "plugin_test: example_npu built out of tree; lower, run, inspect and report used it, directly and deferred"
