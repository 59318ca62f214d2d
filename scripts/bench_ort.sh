#!/usr/bin/env bash
# Glassbox (XNNPACK and oneDNN delegates) beside ONNX Runtime on the model
# zoo (make models): 1 and 2 intra-op threads, median of ITERATIONS runs after 3
# warm-ups on both sides, the same input. Each side runs ROUNDS times (default
# 3), the three sides one after the other in every round, and the table gives
# the median of each side's round medians: on a shared machine a neighbour's
# burst then spoils one round of one side, not the comparison. ONNX Runtime comes from npm
# (bench/ort: `npm ci --ignore-scripts`; its binary ships in the package).
# Writes the table between the ORT COMPARISON markers of docs/benchmarks.md.
# Skips quietly without the models or without bench/ort/node_modules.
# Usage: bench_ort.sh GLASSBOX [MODELS_DIR] [ITERATIONS] [ROUNDS]
# Environment: BENCH_ORT_MODELS, the models to time (names in MODELS_DIR,
# space-separated; default the zoo's classifiers and encoders; Makefile's
# BEYOND_IMAGES_MODELS are issue 33's audio, video, detection, segmentation
# and token-id models, float32 or int64 inputs);
# BENCH_ORT_SECTION, the marker of the docs/benchmarks.md section to
# rewrite (default "ORT COMPARISON"; "-" prints the table only) and
# BENCH_ORT_TITLE, the heading of a section not yet in the file.
set -euo pipefail
glassbox=${1:?usage: bench_ort.sh GLASSBOX [MODELS_DIR] [ITERATIONS] [ROUNDS]}
models=${2:-$HOME/.cache/glassbox/models}
iterations=${3:-20}
rounds=${4:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/benchmarks.md"
ort="$root/bench/ort"
if ! compgen -G "$models/*.onnx" >/dev/null; then
  echo "bench_ort: no models in $models (run make models); skipped"
  exit 0
fi
if [ ! -d "$ort/node_modules/onnxruntime-node" ] || ! command -v node >/dev/null; then
  echo "bench_ort: no onnxruntime-node (cd bench/ort && npm ci --ignore-scripts); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Median ms per execute: the p50 of the Method::execute events the run
# recorded (warm-ups are not recorded).
glassbox_ms() {
  "$glassbox" run "$1" --etdump "$work/x.etdp" --iterations "$iterations" --warmup 3 \
    --threads "$3" --profiling-level method --input "$models/$2.input.npy" >/dev/null
  "$glassbox" inspect --etdump "$work/x.etdp" --view events --format csv |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "p50_ns") col = i }
             $2 == "Method::execute" { printf "%.3f", $col / 1e6 }'
}

# The median of its arguments (numbers), with three decimals.
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
version=$(node -p "require('$ort/node_modules/onnxruntime-node/package.json').version")
load=$(cut -d' ' -f1-3 /proc/loadavg)
table="Measured $(date -u +%F) on $(nproc) cores of $cpu (load average $load at the start);
onnxruntime-node $version (CPU
execution provider, graph optimizations all); median of $iterations runs after 3 warm-ups on
both sides, in $rounds interleaved rounds (the table: the median of each side's round medians); Glassbox: \`glassbox run --threads N --profiling-level method\` of the
\`lower --backend xnnpack\` and \`lower --backend onednn\` programs. Ratio: the faster
Glassbox backend over ONNX Runtime (> 1: Glassbox slower).

| model | threads | Glassbox XNNPACK | Glassbox oneDNN | ONNX Runtime | ratio (fastest) |
|---|---:|---:|---:|---:|---:|"
for m in ${BENCH_ORT_MODELS:-resnet18 mobilenet_v2 mobilenet_v3_small mobilenet_v3_large \
           squeezenet1_1 googlenet shufflenet_v2_x1_0 regnet_x_400mf efficientnet_b0 resnet50 \
           vit_b_16 encoder_opset14 encoder_opset17}; do
  [ -f "$models/$m.onnx" ] || continue
  # A model that does not lower (an op the importer lacks) gets one row
  # saying so, with lower's message, instead of stopping the table.
  if ! "$glassbox" lower "$models/$m.onnx" --backend xnnpack -o "$work/$m.xnnpack.gbx" \
         >"$work/log" 2>&1 ||
     ! "$glassbox" lower "$models/$m.onnx" --backend onednn -o "$work/$m.onednn.gbx" \
         >"$work/log" 2>&1; then
    echo "bench_ort: $m: $(tail -1 "$work/log")" >&2
    table+=$'\n'"| $m | - | does not lower | | | |"
    continue
  fi
  for threads in 1 2; do
    xs=() os=() ts=()
    for ((round = 0; round < rounds; ++round)); do
      xs+=("$(glassbox_ms "$work/$m.xnnpack.gbx" "$m" "$threads")")
      os+=("$(glassbox_ms "$work/$m.onednn.gbx" "$m" "$threads")")
      ts+=("$(node "$ort/time_model.js" "$models/$m.onnx" "$models/$m.input.npy" "$threads" \
        "$iterations" 3)")
    done
    xnnpack=$(median "${xs[@]}")
    onednn=$(median "${os[@]}")
    theirs=$(median "${ts[@]}")
    ratio=$(awk -v a="$xnnpack" -v b="$onednn" -v c="$theirs" \
      'BEGIN { best = a < b ? a : b; printf "%.2fx", best / c }')
    table+=$'\n'"| $m | $threads | $xnnpack ms | $onednn ms | $theirs ms | $ratio |"
  done
done
echo "$table"
section=${BENCH_ORT_SECTION:-ORT COMPARISON}
[ "$section" = "-" ] && exit 0
python3 "$root/scripts/replace_section.py" "$doc" "$section" \
  "${BENCH_ORT_TITLE:-Glassbox beside ONNX Runtime}" "$table"
