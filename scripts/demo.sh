#!/usr/bin/env bash
# `make demo`: the main job. Lowers the demo model to the demo
# delegate, runs it under ETDumpGen and prints the Inspector's
# per-operator table (see `glassbox demo --help`).
set -euo pipefail
glassbox=${1:?usage: demo.sh PATH_TO_GLASSBOX}
"$glassbox" demo --out glassbox-demo
