#!/bin/sh
# Installs the checkout with pip into a fresh virtual environment (Debian's
# interpreter, system site packages, no package index: everything comes
# from Debian) and runs one small flow with the installed package, from a
# folder outside the checkout so nothing is imported from the source tree.
# With GLASSBOX_CMAKE_BUILD_DIR set (ctest sets it to its build tree) the
# extension is taken from that tree; without it setup.py configures and
# builds build/pip from nothing (make test-python-install).
# Exit 77 (ctest: skipped) with the reason when a build dependency is missing.
set -eu
source_dir=$1
for module in ensurepip setuptools wheel pip numpy pandas; do
  if ! /usr/bin/python3 -c "import $module" 2>/dev/null; then
    echo "pip_install_test SKIPPED: /usr/bin/python3 has no $module" \
         "(scripts/setup.sh installs it: python3-venv, python3-setuptools, python3-wheel," \
         "python3-pip, python3-numpy, python3-pandas)"
    exit 77
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-build-isolation --no-index --no-cache-dir "$source_dir"
cd "$work"
"$work/venv/bin/python" -I - <<'PY'
import pathlib

import numpy as np

import glassbox

# The package imported is the installed one, with its extension inside it.
assert "site-packages" in glassbox.__file__, glassbox.__file__
assert "demo" in glassbox.backends, glassbox.backends
program = glassbox.to_edge_transform_and_lower(
    glassbox.demo_model(), partitioner=[glassbox.DemoPartitioner()],
    generate_etrecord=True).to_executorch()
program.save("demo.gbx")
program.get_etrecord().save("demo.etrecord")
tracer = glassbox.ETDumpGen()
x = np.ones((4, 3, 64, 64), np.float32)
(y,) = glassbox.load("demo.gbx").run([x], etdump=tracer)
tracer.save("demo.etdp")
frame = glassbox.Inspector(etdump_path="demo.etdp", etrecord="demo.etrecord").to_dataframe()
delegated = frame[frame["is_delegated_op"]]
assert len(delegated) == 5, delegated
assert y.shape == (4, 32, 64, 64), y.shape
print("pip_install_test: installed glassbox ran the demo flow,", len(delegated), "delegate events")
PY
