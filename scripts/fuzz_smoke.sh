#!/usr/bin/env bash
# Smoke-runs every libFuzzer target of a build for a few seconds each.
#
# usage: scripts/fuzz_smoke.sh BUILD_DIR SECONDS
#
# BUILD_DIR is a build configured with clang and -DGLASSBOX_BUILD_FUZZERS=ON
# (sanitizers recommended: -DCMAKE_CXX_FLAGS='-fsanitize=address,undefined').
# The seed corpus is testdata/etdump/*, ExecuTorch's ETRecords of
# testdata/executorch/, the ONNX models of testdata/onnx/ and the binary fixtures the build and its tests
# generated (*.etdp, and the XNNPACK delegate blobs *.xnnblob),
# copied to a temporary directory so that the fuzzer's new inputs never land
# in the source tree. Prints one summary line per fuzzer; exits non-zero if
# any fuzzer crashed (or none was found).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build_dir=$1
seconds=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
# UBSan only prints and continues by default; make undefined behaviour a
# crash like any other.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

mapfile -t fuzzers < <(find "$build_dir" -name '*_fuzzer' -type f -executable | sort)
if [[ ${#fuzzers[@]} -eq 0 ]]; then
  echo "fuzz_smoke: no *_fuzzer binaries under $build_dir" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds="$work/seeds"
mkdir -p "$seeds"
find "$repo/testdata/etdump" -type f -exec cp {} "$seeds/" \;
find "$repo/testdata/executorch" -type f -name '*.etrecord' -exec cp {} "$seeds/" \;
# The committed ONNX models (the importer fuzzer's seeds: recurrent layers,
# a detector's data-sized post-processing, int8 graphs).
find "$repo/testdata/onnx" -type f -name '*.onnx' -exec cp {} "$seeds/" \;
# Generated fixtures may share a name (prefixed and unprefixed variants).
n=0
while IFS= read -r f; do
  cp "$f" "$seeds/generated_$n.etdp"
  n=$((n + 1))
done < <(find "$build_dir" -name '*.etdp' -type f)
# XNNPACK delegate blobs the parser test left (one per operator kind).
find "$build_dir" -name '*.xnnblob' -type f -exec cp {} "$seeds/" \;

# Real programs and ETRecords as seeds for their readers' fuzzers.
if [[ -x "$build_dir/tools/glassbox/glassbox" ]]; then
  for ids in int string; do
    "$build_dir/tools/glassbox/glassbox" lower --model demo --backend demo --ids "$ids" \
      -o "$seeds/demo_$ids.gbx" --etrecord "$seeds/demo_$ids.etrecord" >/dev/null
  done
fi

failed=0
passed_count=0
failed_count=0
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  corpus="$work/corpus_$name"
  artifacts="$work/artifacts_$name/"
  mkdir -p "$corpus" "$artifacts"
  log="$work/$name.log"
  if "$fuzzer" -max_total_time="$seconds" -artifact_prefix="$artifacts" \
       -print_final_stats=1 "$corpus" "$seeds" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "$name: ok ($runs runs in ${seconds}s)"
    passed_count=$((passed_count + 1))
  else
    failed=1
    failed_count=$((failed_count + 1))
    echo "$name: FAILED (log follows)"
    tail -n 40 "$log" | sed 's/^/  /'
    for a in "$artifacts"*; do
      [[ -e $a ]] && cp "$a" "$build_dir/" && echo "  crash input kept: $build_dir/$(basename "$a")"
    done
  fi
done
echo "fuzz: $passed_count passed, $failed_count failed"
exit $failed
