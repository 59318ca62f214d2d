#!/usr/bin/env python3
"""Writes one architecture's entry of build/size/size.json (`make size`).

    size_report.py --arch x86_64 --json build/size/size.json --strip strip \
        --nm nm --size size --work DIR empty_program=BIN core_etdump=BIN \
        demo_backend=BIN demo_model=BIN

Each program (tests/size/size_program.cc) is measured stripped, as the
bytes a device loads: text + data of binutils' `size` (code, read-only
data, unwind tables, initialised data; not the zero-filled .bss, which here
is the static buffers, and not the file's padding between segments, which
depends on the target's page size: 4 KiB on x86-64, 64 KiB on aarch64). The
entry holds the core program's size (core + executor + ETDumpGen), what the
demo backend's runtime half and the demo model's portable kernel add, an
empty program's size (the toolchain's fixed cost), the stripped file sizes,
and the core program's largest symbols. Other architectures' entries in
the file are kept. Exits 1 when the core program is larger than the budget
(docs/benchmarks.md "Size").
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

BUDGET_BYTES = 64 * 1024
LARGEST_SYMBOLS = 25
PROGRAMS = ("empty_program", "core_etdump", "demo_backend", "demo_model")


def parse_nm(text, count=LARGEST_SYMBOLS):
    """The `count` largest symbols of `nm --print-size --size-sort
    --radix=d -C` output (lines "address size type name"), largest first,
    without zero-filled data."""
    symbols = []
    seen = set()
    for line in text.splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) != 4 or not parts[1].isdigit():
            continue
        # Aliases (a constructor's complete and base object versions) share
        # one address and one body: count it once. Zero-filled data (.bss,
        # here the static buffers) is not among the measured bytes.
        if parts[0] in seen or parts[2] in ("b", "B"):
            continue
        seen.add(parts[0])
        symbols.append({"bytes": int(parts[1]), "type": parts[2], "name": parts[3]})
    symbols.sort(key=lambda s: (-s["bytes"], s["name"]))
    return symbols[:count]


def parse_berkeley_size(text):
    """text + data from binutils `size` (Berkeley format) of one file."""
    lines = text.strip().splitlines()
    if len(lines) < 2:
        raise ValueError("size printed no row")
    fields = lines[1].split()
    return int(fields[0]) + int(fields[1])


def arch_entry(sizes, file_sizes, symbols, compiler, budget=BUDGET_BYTES):
    """The size.json entry of one architecture from loaded sizes (text +
    data) and stripped file sizes."""
    return {
        "core_etdump": sizes["core_etdump"],
        "demo_backend": sizes["demo_backend"] - sizes["core_etdump"],
        "portable_kernels_demo": sizes["demo_model"] - sizes["demo_backend"],
        "empty_program": sizes["empty_program"],
        "core_etdump_budget": budget,
        "stripped_file_bytes": dict(sorted(file_sizes.items())),
        "compiler": compiler,
        "largest_symbols": symbols,
    }


def merge(existing_text, arch, entry):
    """The report with `arch`'s entry replaced, other entries kept; an
    unreadable old report is started afresh."""
    try:
        report = json.loads(existing_text) if existing_text else {}
    except json.JSONDecodeError:
        report = {}
    if not isinstance(report, dict):
        report = {}
    report[arch] = entry
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def over_budget(arch, entry):
    """A message when the core program is past its budget, else None."""
    if entry["core_etdump"] <= entry["core_etdump_budget"]:
        return None
    return (f"size: {arch}: core + executor + ETDumpGen is {entry['core_etdump']} "
            f"bytes, over the budget of {entry['core_etdump_budget']}")


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".size.json.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--strip", required=True)
    parser.add_argument("--nm", required=True)
    parser.add_argument("--size", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--compiler", default="")
    parser.add_argument("programs", nargs="+", help="NAME=PATH for " + ", ".join(PROGRAMS))
    args = parser.parse_args(argv)
    paths = dict(p.split("=", 1) for p in args.programs)
    if sorted(paths) != sorted(PROGRAMS):
        parser.error("give exactly " + ", ".join(PROGRAMS))

    os.makedirs(args.work, exist_ok=True)
    sizes = {}
    file_sizes = {}
    for name, path in paths.items():
        stripped = os.path.join(args.work, name)
        shutil.copyfile(path, stripped)
        subprocess.run([args.strip, "--strip-all", stripped], check=True)
        file_sizes[name] = os.path.getsize(stripped)
        berkeley = subprocess.run([args.size, stripped], check=True, capture_output=True,
                                  text=True)
        sizes[name] = parse_berkeley_size(berkeley.stdout)
    nm = subprocess.run([args.nm, "--print-size", "--size-sort", "--radix=d", "-C",
                         paths["core_etdump"]], check=True, capture_output=True, text=True)
    entry = arch_entry(sizes, file_sizes, parse_nm(nm.stdout), args.compiler)

    existing = ""
    if os.path.exists(args.json):
        with open(args.json) as f:
            existing = f.read()
    write_atomically(args.json, merge(existing, args.arch, entry))
    print(f"size: {args.arch}: core + executor + ETDumpGen {entry['core_etdump']} bytes "
          f"(budget {entry['core_etdump_budget']}); demo backend +{entry['demo_backend']}; "
          f"its portable kernel +{entry['portable_kernels_demo']}; "
          f"empty program {entry['empty_program']} -> {args.json}")
    message = over_budget(args.arch, entry)
    if message:
        print(message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
