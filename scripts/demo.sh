#!/usr/bin/env bash
# `make demo`: the main job as far as it exists today. Records a synthetic
# delegated run through the real hooks and ETDumpGen, then decodes the
# ETDump it wrote with `glassbox etdump show`.
set -euo pipefail
glassbox=${1:?usage: demo.sh PATH_TO_GLASSBOX}
out=glassbox-demo
"$glassbox" demo --out "$out"
echo
"$glassbox" etdump show "$out/demo.etdp" --debug-data "$out/demo.bin"
