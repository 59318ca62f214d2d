#!/usr/bin/env bash
# Runs every Google Benchmark program of a build and writes the results,
# with the machine description and each figure's ratio to the clock floor,
# to docs/benchmarks.md (between the BEGIN/END markers).
# Usage: run_benchmarks.sh BUILD_DIR [TRACING_OFF_BUILD_DIR]
# The second build (tracing compiled out) contributes whole_model_benchmark.
set -euo pipefail
build=${1:?usage: run_benchmarks.sh BUILD_DIR [TRACING_OFF_BUILD_DIR]}
notrace=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
out_dir="$build/benchmark-results"
mkdir -p "$out_dir"

rm -f "$out_dir"/*.json
mapfile -t programs < <(find "$build" -name '*_benchmark' -type f -executable | sort)
if [ -n "$notrace" ]; then
  programs+=("$notrace/backends/demo/whole_model_benchmark")
fi
if [ ${#programs[@]} -eq 0 ]; then
  echo "run_benchmarks: no *_benchmark programs in $build" >&2
  exit 1
fi
for p in "${programs[@]}"; do
  name=$(basename "$p")
  case "$p" in "$notrace"/*) [ -n "$notrace" ] && name="$name-notrace" ;; esac
  echo "== $name"
  # Three repetitions; the table reports their median.
  "$p" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
       --benchmark_min_time=0.5 --benchmark_out="$out_dir/$name.json" \
       --benchmark_out_format=json
done

python3 "$root/scripts/benchmarks_to_markdown.py" "$out_dir" "$root/docs/benchmarks.md"
echo "run_benchmarks: updated docs/benchmarks.md"
