#!/usr/bin/env bash
# Render time of `glassbox report` pages for 1,000,000-event dumps in
# headless Chromium (tests/browser/measure_render.js: from navigation start
# until every chart is drawn, median of 5 fresh loads), and the C++ time
# that made them (report_benchmark, median of 3). Two shapes: 1,000
# executions of 1,000 events, and one execution of 1,000,000 events (its
# timeline sampled to the 20,000 longest). Writes the table between the
# REPORT markers of docs/benchmarks.md.
# Usage: bench_report.sh REPORT_BENCHMARK
set -euo pipefail
report_benchmark=${1:?usage: bench_report.sh REPORT_BENCHMARK}
root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/benchmarks.md"
if [ ! -x /usr/bin/chromium ]; then
  echo "bench_report: /usr/bin/chromium is missing (scripts/setup.sh installs it); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

GLASSBOX_REPORT_BENCH_PAGES="$work" "$report_benchmark" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_out="$work/cpp.json" \
  --benchmark_out_format=json >/dev/null
node "$root/tests/browser/measure_render.js" 5 "$work/many_executions.html" \
  "$work/one_execution.html" > "$work/render.txt"

cpp_ms() {
  python3 -c 'import json, sys
rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"]
        if b.get("aggregate_name") == "median" and "/" + sys.argv[2] + "/" in b["run_name"] + "/"]
print(round(rows[0]["real_time"]))' "$work/cpp.json" "$1"
}
render_ms() { awk -v p="$work/$1.html" '$1 == p { print $2 }' "$work/render.txt"; }
page_mb() { awk -v p="$work/$1.html" '$1 == p { print $3 }' "$work/render.txt"; }

cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
table="Machine: $cpu, $(nproc) cores; $(chromium --version 2>/dev/null | head -1). Date: $(date -u +%Y-%m-%d).

| 1,000,000-event dump | C++: verify, join, aggregate, page | page | browser render, median of 5 |
|---|---:|---:|---:|
| 1,000 executions x 1,000 events; timeline: the median execution | $(cpp_ms many_executions) ms | $(page_mb many_executions) MB | $(render_ms many_executions) ms |
| one execution of 1,000,000 events; timeline: its 20,000 longest | $(cpp_ms one_execution) ms | $(page_mb one_execution) MB | $(render_ms one_execution) ms |"
echo "$table"
python3 "$root/scripts/replace_section.py" "$doc" "REPORT RESULTS" "Report render time" "$table"
