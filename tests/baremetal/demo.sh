#!/usr/bin/env bash
# The bare-metal demo (issue 34, `make demo-baremetal`, docs/device.md):
# runs the image the baremetal preset built on qemu-system-arm's
# mps2-an385 (Cortex-M3) under a timeout; the image writes its ETDump to
# build/baremetal/demo.etdp through semihosting. Then the host's glassbox
# inspects it with the ETRecord the host wrote when it lowered the program,
# and the check fails with one line unless the status was 0 and the ops view
# has the conv+relu rows and the tan row. -icount shift=0: qemu's virtual
# time advances 1 ns an instruction, so SysTick (the delegate's clock)
# counts executed instructions, the same every run. Run from the source
# root: tests/baremetal/demo.sh IMAGE ETRECORD GLASSBOX
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: tests/baremetal/demo.sh IMAGE.elf DEMO.etrecord GLASSBOX" >&2
  exit 2
fi
image=$1 etrecord=$2 glassbox=$3
out=build/baremetal
mkdir -p "$out"
rm -f "$out/demo.etdp"
status=0
timeout 300 qemu-system-arm -M mps2-an385 -nographic -icount shift=0 \
  -semihosting-config enable=on,target=native -kernel "$image" || status=$?
if [ "$status" -ne 0 ]; then
  echo "glassbox: the bare-metal demo image failed (status $status)" >&2
  exit 1
fi
if [ ! -s "$out/demo.etdp" ]; then
  echo "glassbox: the bare-metal demo wrote no $out/demo.etdp" >&2
  exit 1
fi
cp "$etrecord" "$out/demo.etrecord"
view=$("$glassbox" inspect --etdump "$out/demo.etdp" --etrecord "$out/demo.etrecord")
echo "$view"
for row in '^conv2d\+relu ' '^conv2d_1\+relu_1 ' '^tan '; do
  if ! grep -Eq "$row" <<<"$view"; then
    echo "glassbox: the bare-metal demo's ops view has no row matching '$row'" >&2
    exit 1
  fi
done
echo "baremetal demo: ok ($out/demo.etdp with $out/demo.etrecord)"
