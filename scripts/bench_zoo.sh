#!/usr/bin/env bash
# Latency of the model zoo (make models) with the portable kernels and the
# XNNPACK delegate, 1 and 2 threads, delegate profiling off (method-level
# events only) and on (every delegate operator). Writes the table between
# the ZOO markers of docs/benchmarks.md. Skips quietly without the models.
# Usage: bench_zoo.sh GLASSBOX [MODELS_DIR] [ITERATIONS]
set -euo pipefail
glassbox=${1:?usage: bench_zoo.sh GLASSBOX [MODELS_DIR] [ITERATIONS]}
models=${2:-$HOME/.cache/glassbox/models}
iterations=${3:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/benchmarks.md"
if [ ! -f "$models/resnet18.onnx" ]; then
  echo "bench_zoo: no models in $models (run make models); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ms per execute as `glassbox run` reports it (median of its runs is not
# printed; the mean over ITERATIONS after 2 warm-up runs).
ms() {
  "$glassbox" run "$1" --etdump "$work/x.etdp" --iterations "$iterations" --warmup 2 \
    --input "$models/$2.input.npy" "${@:3}" | sed -n 's/.*: \([0-9.]*\) ms per execute.*/\1/p'
}

table="| model | portable | XNNPACK 1 thread, profiling off | XNNPACK 1 thread, profiling on | overhead | XNNPACK 2 threads, profiling on | oneDNN 1 thread, profiling off |
|---|---:|---:|---:|---:|---:|---:|"
for m in resnet18 mobilenet_v2 mobilenet_v3_large resnet50 lraspp_mobilenet_v3_large \
         vit_b_16 encoder_opset14 encoder_opset17; do
  [ -f "$models/$m.onnx" ] || continue
  "$glassbox" lower "$models/$m.onnx" --backend portable -o "$work/$m.p.gbx" >/dev/null
  "$glassbox" lower "$models/$m.onnx" --backend xnnpack -o "$work/$m.x.gbx" >/dev/null
  portable=$(ms "$work/$m.p.gbx" "$m" --profiling-level method)
  off=$(ms "$work/$m.x.gbx" "$m" --threads 1 --profiling-level method)
  on=$(ms "$work/$m.x.gbx" "$m" --threads 1 --profiling-level all)
  two=$(ms "$work/$m.x.gbx" "$m" --threads 2 --profiling-level all)
  onednn=$("$glassbox" lower "$models/$m.onnx" --backend onednn -o "$work/$m.o.gbx" >/dev/null 2>&1 \
    && ms "$work/$m.o.gbx" "$m" --threads 1 --profiling-level method || echo "-")
  overhead=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%+.1f%%", 100 * (a / b - 1) }')
  table+=$'\n'"| $m | $portable ms | $off ms | $on ms | $overhead | $two ms | $onednn ms |"
done
echo "$table"
python3 "$root/scripts/replace_section.py" "$doc" "ZOO RESULTS" "Model zoo latency" "$table"
