#!/usr/bin/env bash
# Render time of `glassbox report` pages for 1,000,000-event dumps, in
# headless Chromium (tests/browser/measure_render.js: navigation start to
# the last chart drawn, median of 5 loads), and the C++ side that made them.
# Two shapes: the demo run 142,858 times (7 events per execution: many
# small executions), and one execution of 1,000,000 delegate events (written
# by report_benchmark; its timeline is sampled to the 20,000 longest).
# Writes the table between the REPORT markers of docs/benchmarks.md.
# Usage: bench_report.sh GLASSBOX [REPORT_BENCHMARK]
set -euo pipefail
glassbox=${1:?usage: bench_report.sh GLASSBOX [REPORT_BENCHMARK]}
report_benchmark=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/benchmarks.md"
if [ ! -x /usr/bin/chromium ]; then
  echo "bench_report: /usr/bin/chromium is missing (scripts/setup.sh installs it); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ms() { date +%s%3N; }

"$glassbox" lower --model demo --backend demo -o "$work/m.gbx" --etrecord "$work/m.etrecord" >/dev/null
"$glassbox" run "$work/m.gbx" --etdump "$work/m.etdp" --iterations 142858 | tail -1
start=$(now_ms)
"$glassbox" report --etdump "$work/m.etdp" --etrecord "$work/m.etrecord" -o "$work/many.html" >/dev/null
many_cpp=$(( $(now_ms) - start ))
pages=("$work/many.html")

one_cpp=""
if [ -n "$report_benchmark" ] && [ -x "$report_benchmark" ]; then
  GLASSBOX_REPORT_BENCH_PAGE="$work/one.html" "$report_benchmark" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_out="$work/one.json" \
    --benchmark_out_format=json >/dev/null
  one_cpp=$(python3 -c 'import json,sys
rows=[b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name")=="median"]
print(round(rows[0]["real_time"]))' "$work/one.json")
  pages+=("$work/one.html")
fi

node "$root/tests/browser/measure_render.js" 5 "${pages[@]}" > "$work/render.txt"
cat "$work/render.txt"
render_of() { awk -v p="$1" '$1 == p { print $2 }' "$work/render.txt"; }
size_of() { awk -v p="$1" '$1 == p { print $3 }' "$work/render.txt"; }

cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
table="Machine: $cpu, $(nproc) cores; $(chromium --version 2>/dev/null | head -1). Date: $(date -u +%Y-%m-%d).

| dump (1,000,000 events) | glassbox report, C++ | page | browser render, median of 5 |
|---|---:|---:|---:|
| demo run 142,858 times (7 events each); timeline: the median execution | $many_cpp ms (whole command: read, join, aggregate, write) | $(size_of "$work/many.html") MB | $(render_of "$work/many.html") ms |"
if [ -n "$one_cpp" ]; then
  table+=$'\n'"| one execution of 1,000,000 delegate events; timeline sampled to the 20,000 longest | $one_cpp ms (report_benchmark: verify, join, aggregate, page) | $(size_of "$work/one.html") MB | $(render_of "$work/one.html") ms |"
fi
echo "$table"
python3 "$root/scripts/replace_section.py" "$doc" "REPORT RESULTS" "Report render time" "$table"
