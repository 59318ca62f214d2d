#!/usr/bin/env bash
# One big dump, as a user meets it: mobilenet_v3_small (make models) lowered
# to XNNPACK and run 6,330 times, about 1,000,000 events in one ETDump. Times
# `glassbox inspect --view ops` and `--format chrome -o FILE` (best and
# median of 5 runs each, wall clock: other work on a shared machine only
# slows a run, so the best is the nearest to a quiet one) and their peak memory (GNU time's maximum resident
# set, the whole process), beside the dump's size. Writes the table between
# the BIG DUMP markers of docs/benchmarks.md. Skips without the model.
# Usage: bench_big_dump.sh GLASSBOX [MODELS_DIR]
set -euo pipefail
glassbox=$(realpath "${1:?usage: bench_big_dump.sh GLASSBOX [MODELS_DIR]}")
models=${2:-$HOME/.cache/glassbox/models}
root=$(cd "$(dirname "$0")/.." && pwd)
model="$models/mobilenet_v3_small"
if [ ! -f "$model.onnx" ]; then
  echo "bench_big_dump: no $model.onnx (run make models); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$glassbox" lower "$model.onnx" --backend xnnpack -o "$work/m.gbx" --etrecord "$work/m.etrecord" \
  >/dev/null
"$glassbox" run "$work/m.gbx" --etdump "$work/m.etdp" --iterations 6330 --input "$model.input.npy" \
  >"$work/run.txt"
events=$(sed -n 's/.*ETDump: .* (\([0-9]*\) events.*/\1/p' "$work/run.txt")
dump_bytes=$(stat -c %s "$work/m.etdp")

# Best and median wall seconds and the largest peak RSS (KiB) of 5 runs of "$@".
measure() {
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null
    cat "$work/time.txt"
  done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { printf "%s %s %s\n", t[1], t[3], m }'
}
read -r ops_best ops_s ops_kib < <(measure "$glassbox" inspect --etdump "$work/m.etdp" \
  --etrecord "$work/m.etrecord" --view ops -o "$work/ops.txt")
read -r chrome_best chrome_s chrome_kib < <(measure "$glassbox" inspect --etdump "$work/m.etdp" \
  --etrecord "$work/m.etrecord" --format chrome -o "$work/trace.json")
trace_bytes=$(stat -c %s "$work/trace.json")

row() {  # name best-seconds median-seconds kib
  awk -v n="$1" -v b="$2" -v s="$3" -v k="$4" -v d="$dump_bytes" \
    'BEGIN { printf "| %s | %.2f s | %.2f s | %.0f MB | %.2fx |\n", n, b, s, k * 1024 / 1e6, k * 1024 / d }'
}
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
table="Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores of $cpu (load average $(cut -d' ' -f1-3 /proc/loadavg) at the start);
the dump: $events events, $(awk -v d="$dump_bytes" 'BEGIN { printf "%.1f", d / 1e6 }') MB; the chrome trace written: $(awk -v d="$trace_bytes" 'BEGIN { printf "%.0f", d / 1e6 }') MB.

| command | best of 5 | median of 5 | peak memory (whole process) | over the dump's size |
|---|---:|---:|---:|---:|
$(row '`inspect --view ops`' "$ops_best" "$ops_s" "$ops_kib")
$(row '`inspect --format chrome -o FILE`' "$chrome_best" "$chrome_s" "$chrome_kib")"
python3 "$root/scripts/replace_section.py" "$root/docs/benchmarks.md" "BIG DUMP" \
  "One big dump" "$table"
echo "$table"
