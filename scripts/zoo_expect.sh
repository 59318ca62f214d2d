#!/usr/bin/env bash
# Lowers every model of the zoo (make models) to one backend and runs it
# once on its reference input with --expect against PyTorch's output.
# Prints one line per model and exits 1 if any model fails to lower, run
# or match; skips quietly without the models. Not part of make test (the
# zoo takes minutes); the committed small models cover the same paths there.
# Usage: zoo_expect.sh GLASSBOX BACKEND [MODELS_DIR]
# Tolerance: 1e-3 absolute plus 1e-5 relative: resnet50's float32 sums over
# thousands of channels, in another order than PyTorch's, differ from its
# output by up to 5.5e-4 on every backend, the portable kernels included.
# An int8 model (NAME.output_step beside it, from export_quantized.py) is
# held to PyTorch's fake-quant output within NAME.tolerance_steps steps of
# its output scale: ONNX Runtime's own distance on the same file plus one.
set -euo pipefail
glassbox=${1:?usage: zoo_expect.sh GLASSBOX BACKEND [MODELS_DIR]}
backend=${2:?usage: zoo_expect.sh GLASSBOX BACKEND [MODELS_DIR]}
models=${3:-$HOME/.cache/glassbox/models}
if [ ! -f "$models/resnet18.onnx" ]; then
  echo "zoo_expect: no models in $models (run make models); skipped"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for onnx in "$models"/*.onnx; do
  m=$(basename "$onnx" .onnx)
  [ -f "$models/$m.expected.npy" ] || continue
  if ! "$glassbox" lower "$onnx" --backend "$backend" -o "$work/$m.gbx" >"$work/log" 2>&1; then
    echo "$m: lower failed: $(tail -1 "$work/log")"
    failed=1
    continue
  fi
  partition=$(sed -n 's/^partition: *//p' "$work/log")
  tolerance=(--tolerance 1e-3 --rtol 1e-5)
  within=""
  if [ -f "$models/$m.output_step" ]; then
    if [ ! -f "$models/$m.tolerance_steps" ]; then
      echo "$m: skipped (no $m.tolerance_steps: export_quantized.py writes it when ONNX Runtime ran)"
      continue
    fi
    steps=$(cat "$models/$m.tolerance_steps")
    tolerance=(--tolerance "$(awk -v s="$(cat "$models/$m.output_step")" -v n="$steps" \
      'BEGIN { printf "%.9g", s * (n + 0.01) }')" --rtol 0)
    within="within $steps output steps"
  fi
  if "$glassbox" run "$work/$m.gbx" --etdump "$work/$m.etdp" --input "$models/$m.input.npy" \
      --expect "$models/$m.expected.npy" "${tolerance[@]}" >"$work/log" 2>&1; then
    echo "$m: ok (${partition:-portable}${within:+; $within})"
  else
    echo "$m: FAILED: $(tail -1 "$work/log")"
    failed=1
  fi
done
exit $failed
