# The commands a user types. Each one first installs whatever is missing
# (scripts/setup.sh, apt) and configures the build if needed; all are
# idempotent and quick when nothing changed.

JOBS ?= 2
GLASSBOX := build/default/tools/glassbox/glassbox

.PHONY: all setup setup-cross build install demo test check-format test-python-install test-asan test-tsan test-notrace test-aarch64 demo-baremetal size bench fuzz models onnx-testdata report-screenshot clean

all: build

setup:
	@bash scripts/setup.sh

build/%/build.ninja: | setup
	cmake --preset $* >/dev/null

# The cross toolchains (scripts/setup_cross.sh): aarch64 with qemu-user,
# arm-none-eabi with qemu-system-arm.
setup-cross: setup
	@bash scripts/setup_cross.sh

build/aarch64/build.ninja: | setup-cross
	cmake --preset aarch64 >/dev/null
build/size/x86_64/build.ninja: | setup
	cmake --preset size >/dev/null
build/size/aarch64/build.ninja: | setup-cross
	cmake --preset size-aarch64 >/dev/null
build/baremetal/tree/build.ninja: | setup-cross
	cmake --preset baremetal >/dev/null

build: setup build/default/build.ninja
	cmake --build build/default -j $(JOBS)

# Headers, the runtime and etdump static libraries (with core and kernels),
# the CMake package (find_package(glassbox)), glassbox.pc and the CLI.
PREFIX ?= /usr/local
install: build
	cmake --install build/default --prefix $(PREFIX)

demo: build
	@bash scripts/demo.sh $(GLASSBOX)

# The whole test suite: unit tests, the tracing-off build, then the
# sanitizer build with a short fuzz run.
test: build check-format test-notrace
	ctest --test-dir build/default --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory test-asan

# The device layers (core, runtime with the portable kernels, etdump, the
# demo and XNNPACK delegates' runtime halves) and their tests cross-built
# for aarch64 and run under qemu-aarch64, among them the check that an
# ETDump written there is byte-identical to the host's and XNNPACK's check
# on a model the host's glassbox lowers (hence `build` first; tests/device).
test-aarch64: build setup-cross build/aarch64/build.ninja
	cmake --build build/aarch64 -j $(JOBS)
	ctest --test-dir build/aarch64 --output-on-failure -j $(JOBS)

# The demo on bare metal (docs/device.md): the demo model, lowered by the
# host's glassbox (hence `build` first), embedded in a Cortex-M3 image with
# the device layers (the baremetal preset), run under qemu-system-arm's
# mps2-an385; its ETDump comes back through semihosting into
# build/baremetal/demo.etdp and `glassbox inspect` reads it with the host's
# demo.etrecord beside it (tests/baremetal/demo.sh checks the rows).
demo-baremetal: build setup-cross build/baremetal/tree/build.ninja
	cmake --build build/baremetal/tree -j $(JOBS)
	@bash tests/baremetal/demo.sh build/baremetal/tree/tests/baremetal/demo.elf \
	  build/baremetal/tree/tests/baremetal/demo.etrecord $(GLASSBOX)

# The size test (docs/benchmarks.md "Size"): tests/size's programs built
# -Os without exceptions or RTTI for x86-64 and aarch64, measured into
# build/size/size.json; fails when core + executor + ETDumpGen pass 64 KiB.
size: setup-cross build/size/x86_64/build.ninja build/size/aarch64/build.ninja
	cmake --build build/size/x86_64 -j $(JOBS) --target size_report
	cmake --build build/size/aarch64 -j $(JOBS) --target size_report

# Every tracked .h/.cc follows .clang-format (checks only; never rewrites).
check-format: setup
	@bash scripts/check_format.sh

# pip install of the checkout into a fresh venv with the extension built from
# nothing in build/pip (minutes; make test's python_pip_install reuses
# build/default and takes seconds).
test-python-install: setup
	/bin/sh python/tests/pip_install_test.sh $(CURDIR)

test-notrace: setup build/notrace/build.ninja
	cmake --build build/notrace -j $(JOBS)
	ctest --test-dir build/notrace --output-on-failure -j $(JOBS)

test-asan: setup build/asan/build.ninja
	cmake --build build/asan -j $(JOBS)
	ctest --test-dir build/asan --output-on-failure -j $(JOBS)
	@bash scripts/fuzz_smoke.sh build/asan 10

# The multi-threaded logging tests under ThreadSanitizer: only their two
# test binaries are built (not part of `make test`).
TSAN_TESTS := etdump_gen_test etdump_gen_threads_test
test-tsan: setup build/tsan/build.ninja
	cmake --build build/tsan -j $(JOBS) --target $(TSAN_TESTS)
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/tsan --output-on-failure -j $(JOBS) -R 'ETDumpGen'

# The int8 models of `make models` (scripts/export_quantized.py) and their
# float twins, timed beside ONNX Runtime on the same files.
INT8_BENCH_MODELS := resnet18_int8 resnet18_int8_float mobilenet_v2_int8 mobilenet_v2_int8_float \
  encoder_dynint8 encoder_dynint8_float

# Issue 33's models beyond images (make models), timed the same way.
BEYOND_IMAGES_MODELS := kws_lstm audio_conv1d gpt_decoder deeplabv3_mobilenet_v3_large r3d_18 \
  ssdlite320_mobilenet_v3_large

bench: setup build/bench/build.ninja build/bench-notrace/build.ninja
	cmake --build build/bench -j $(JOBS)
	cmake --build build/bench-notrace -j $(JOBS) --target whole_model_benchmark
	@bash scripts/run_benchmarks.sh build/bench build/bench-notrace
	@bash scripts/bench_zoo.sh build/bench/tools/glassbox/glassbox
	@bash scripts/bench_ort.sh build/bench/tools/glassbox/glassbox
	@BENCH_ORT_MODELS="$(INT8_BENCH_MODELS)" BENCH_ORT_SECTION="INT8 COMPARISON" \
	  BENCH_ORT_TITLE="Int8 (QDQ) models beside ONNX Runtime, and their float twins" \
	  bash scripts/bench_ort.sh build/bench/tools/glassbox/glassbox
	@BENCH_ORT_MODELS="$(BEYOND_IMAGES_MODELS)" BENCH_ORT_SECTION="ORT BEYOND IMAGES" \
	  BENCH_ORT_TITLE="Beyond images: audio, video, detection, segmentation, tokens" \
	  bash scripts/bench_ort.sh build/bench/tools/glassbox/glassbox "$$HOME/.cache/glassbox/models" 10 3
	@bash scripts/bench_report.sh build/bench/src/report/report_benchmark
	@bash scripts/bench_report_graph.sh build/bench/tools/glassbox/glassbox
	@bash scripts/bench_big_dump.sh build/bench/tools/glassbox/glassbox

# The README's picture: a fresh `glassbox demo`'s report, screenshot by
# headless chromium into docs/images/demo-report.png.
report-screenshot: build
	$(GLASSBOX) demo --out build/report-screenshot >/dev/null
	node tests/browser/screenshot.js build/report-screenshot/demo.html docs/images/demo-report.png

fuzz: setup build/asan/build.ninja
	cmake --build build/asan -j $(JOBS)
	@bash scripts/fuzz_smoke.sh build/asan 120

# The torchvision model zoo as ONNX, with reference inputs and outputs, in
# ~/.cache/glassbox/models (PyTorch from Debian: about 600 MB, so only here).
models: build
	@bash scripts/install_torch.sh
	/usr/bin/python3 scripts/export_torchvision.py
	@dpkg-query -W python3-onnx >/dev/null 2>&1 || apt-get install -y -q --no-install-recommends python3-onnx
	/usr/bin/python3 scripts/export_quantized.py

# Regenerates testdata/onnx and its int8 models in testdata/onnx/quant
# (python3-onnx and python3-numpy from Debian).
onnx-testdata: setup
	@dpkg-query -W python3-onnx >/dev/null 2>&1 || apt-get install -y -q --no-install-recommends python3-onnx
	/usr/bin/python3 scripts/make_onnx_testdata.py
	/usr/bin/python3 scripts/make_quant_testdata.py

clean:
	rm -rf build
