#!/bin/sh
# Every refused plug-in: exit 1 and exactly one line on stderr naming the
# problem, through the glassbox command line (before any other input is
# read: the model path given does not exist).
# Usage: plugin_refusals_test.sh GLASSBOX TEST_PLUGIN_DIR TEXT_FILE
set -eu
glassbox=$1
dir=$2
text_file=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/expect_refusal.sh"

model=$work/missing.onnx
expect_refusal "ABI version 999, this glassbox loads version 2" \
  lower "$model" --plugin "$dir/libtest_plugin_wrong_abi.so" -o "$work/x.gbx"
expect_refusal "plug-in built as 'gcc-1 libstdc++-1 glassbox-0.0.0', this glassbox is '" \
  run "$model" --plugin "$dir/libtest_plugin_wrong_tag.so" --etdump "$work/x.etdp"
expect_refusal "no symbol glassbox_plugin_entry" \
  demo --plugin="$dir/libtest_plugin_no_entry.so" --out "$work/demo"
expect_refusal "cannot load: $text_file: invalid ELF header" \
  lower "$model" --plugin "$text_file" -o "$work/x.gbx"
expect_refusal "backend 'demo' is already registered (built in)" \
  lower "$model" --plugin "$dir/libtest_plugin_clash.so" -o "$work/x.gbx"
GLASSBOX_PLUGINS="$dir/libtest_plugin_no_entry.so" expect_refusal "libtest_plugin_no_entry.so: no symbol" \
  lower "$model" -o "$work/x.gbx"
# A valid plug-in's backend is accepted by --backend in the same command
# (then the missing model is the error).
expect_refusal "missing.onnx" \
  lower "$model" --plugin "$dir/libtest_plugin_valid.so" --backend loader_test_backend -o "$work/x.gbx"
# Commands that take no plug-ins ignore GLASSBOX_PLUGINS.
GLASSBOX_PLUGINS="$dir/libtest_plugin_no_entry.so" "$glassbox" --version >/dev/null
[ ! -e "$work/x.gbx" ] && [ ! -e "$work/demo" ] ||
  { echo "plugin_refusals_test: a refused command wrote output"; exit 1; }
echo "plugin_refusals_test: every refusal exited 1 with one line"
