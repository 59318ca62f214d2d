#!/usr/bin/env bash
# Layout time of the report's graph section in headless Chromium
# (tests/browser/graph_layout_bench.js: synthetic transformer-shaped graphs
# of 100 to 2,000 nodes in a real report page, median of 5 fresh loads).
# Writes the table between the REPORT GRAPH markers of docs/benchmarks.md.
# Usage: bench_report_graph.sh GLASSBOX_BINARY
set -euo pipefail
glassbox=${1:?usage: bench_report_graph.sh GLASSBOX_BINARY}
root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/benchmarks.md"
if [ ! -x /usr/bin/chromium ]; then
  echo "bench_report_graph: /usr/bin/chromium is missing (scripts/setup.sh installs it); skipped"
  exit 0
fi
load_before=$(cut -d" " -f1 /proc/loadavg)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Any report made with an ETRecord carries the page; its data is replaced.
"$glassbox" demo --out "$work/demo" --iterations 2 >/dev/null
node "$root/tests/browser/graph_layout_bench.js" "$work/demo/demo.html" 5 100 300 1000 2000 > "$work/graph.txt"

cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
rows=$(awk '{ printf "| %\047d | %\047d | %d ms | %d ms |\n", $1, $2, $3, $4 }' "$work/graph.txt")
table="Machine: $cpu, $(nproc) cores, load average $load_before before the run; $(chromium --version 2>/dev/null | head -1). Date: $(date -u +%Y-%m-%d).

| nodes | boxes (fused pairs as one) | layout (chains, slices, dagre), median of 5 | whole page drawn, median of 5 |
|---:|---:|---:|---:|
$rows"
echo "$table"
python3 "$root/scripts/replace_section.py" "$doc" "REPORT GRAPH RESULTS" "Report graph layout" "$table"
