#!/usr/bin/env bash
# Debugging on issue 33's zoo models (make models): for each model below,
# `inspect --view modules` must show the listed modules (the LSTM layers;
# the detector's heads and its post-processing), and numeric debugging with
# a fault planted in one delegated operator (`lower --perturb`) must name
# exactly that operator as the first failure. Prints one line per model
# and exits 1 if any check fails; skips quietly without the models. Not
# part of make test (the ctest glassbox_e2e_numeric_* cases cover the same
# path on the committed small models).
# Usage: zoo_debug.sh GLASSBOX BACKEND [MODELS_DIR]
set -euo pipefail
glassbox=${1:?usage: zoo_debug.sh GLASSBOX BACKEND [MODELS_DIR]}
backend=${2:?usage: zoo_debug.sh GLASSBOX BACKEND [MODELS_DIR]}
models=${3:-$HOME/.cache/glassbox/models}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# model | the operator to fault (a delegated one) | modules the view must list
cases=(
  "kws_lstm|/lstm1/Squeeze|lstm1 lstm2 classifier"
  # The layer itself (both delegates run it as one operator logging its Y).
  "kws_lstm|/lstm2/LSTM|lstm1 lstm2 classifier"
  "ssdlite320_mobilenet_v3_large|/head/classification_head/module_list.2/module_list.2.1/Conv|head.classification_head head.regression_head postprocess"
)
failed=0
ran=0
for case in "${cases[@]}"; do
  IFS='|' read -r m fault modules <<<"$case"
  [ -f "$models/$m.onnx" ] || continue
  ran=1
  input="$models/$m.input.npy"
  # The clean program: its modules view.
  if ! "$glassbox" lower "$models/$m.onnx" --backend "$backend" --ids string \
      -o "$work/$m.gbx" --etrecord "$work/$m.etrec" >"$work/log" 2>&1; then
    echo "$m: lower failed: $(tail -1 "$work/log")"
    failed=1
    continue
  fi
  "$glassbox" run "$work/$m.gbx" --etdump "$work/$m.etdp" --input "$input" >/dev/null
  "$glassbox" inspect --etdump "$work/$m.etdp" --etrecord "$work/$m.etrec" --view modules \
    --format csv >"$work/modules.csv"
  missing=()
  for module in $modules; do
    cut -d, -f1 "$work/modules.csv" | grep -qx "$module" || missing+=("$module")
  done
  # The faulted program: numeric debugging must stop at the planted fault.
  "$glassbox" lower "$models/$m.onnx" --backend "$backend" --ids string --perturb "$fault" \
    -o "$work/$m.f.gbx" --etrecord "$work/$m.f.etrec" --reference-inputs "$input" >/dev/null
  "$glassbox" run "$work/$m.f.gbx" --etdump "$work/$m.f.etdp" --input "$input" \
    --debug-level intermediates --debug-data "$work/$m.f.dbg" >/dev/null
  first=$("$glassbox" inspect --etdump "$work/$m.f.etdp" --etrecord "$work/$m.f.etrec" \
    --debug-data "$work/$m.f.dbg" --numeric | sed -n 's/^first failure: //p')
  if [ ${#missing[@]} -gt 0 ]; then
    echo "$m: FAILED: modules view lacks ${missing[*]}"
    failed=1
  elif [[ "$first" != *"identifier(s) $fault;"* ]]; then
    echo "$m: FAILED: fault planted in $fault, numeric debugging says: ${first:-no failure}"
    failed=1
  else
    echo "$m: ok (modules ${modules// /, }; the fault in $fault is the first failure)"
  fi
done
[ $ran -eq 1 ] || echo "zoo_debug: no models in $models (run make models); skipped"
exit $failed
