#!/usr/bin/env python3
"""Turns Google Benchmark JSON results into the table in docs/benchmarks.md.

Every per-event figure is also given as a ratio to the floor measured in the
same run with the same clock: BM_TwoClockReads (two raw clock reads).
Only the part of the file between the BEGIN/END markers is replaced.
Two more tables have their own markers: the memory-bound kernels beside a
memcpy of the same bytes (KERNEL BANDWIDTH), and the whole-model cost of
each profiling level on real programs (PROFILING OVERHEAD).
"""
import json
import pathlib
import platform
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from replace_section import replace_section  # noqa: E402

BEGIN = "<!-- BEGIN GENERATED RESULTS -->"
END = "<!-- END GENERATED RESULTS -->"


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    return f"{model}, {cores} cores, {mem} RAM, Linux {platform.release()}"


def main():
    results_dir, doc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    rows, floors, context = [], {}, None
    whole = {}  # (model, mode) -> ms per execute
    bandwidth = {}  # case -> {"kernel"|"memcpy": (us per call, GB/s)}
    overhead = []  # (program, counters)
    for path in sorted(results_dir.glob("*.json")):
        text = path.read_text()
        if not text.strip():
            # A program that registered nothing (profiling_overhead_benchmark
            # without $GLASSBOX_OVERHEAD_PROGRAMS) writes an empty file.
            print(f"benchmarks_to_markdown: {path.name} is empty, skipped")
            continue
        data = json.loads(text)
        context = context or data.get("context", {})
        has_aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
        for b in data["benchmarks"]:
            # The median of repetitions, or the single run of a program run
            # once (profiling_overhead_benchmark takes its own medians).
            if has_aggregates and b.get("aggregate_name") != "median":
                continue
            name = b["run_name"]
            label = b.get("label", "")
            scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
            ns = b["real_time"] * scale
            if name.startswith("BM_WholeModel_"):
                # BM_WholeModel_<model>_<mode>; the tracing-off build labels
                # its runs, which all behave as "compiled out".
                _, _, model, mode = name.split("_", 3)
                if label == "tracing compiled out":
                    if mode != "NullTracer":
                        continue
                    mode = "CompiledOut"
                whole[(model, mode)] = ns / 1e6
                continue
            if name.startswith("BM_Bandwidth/"):
                _, case, side = name.split("/")
                bandwidth.setdefault(case, {})[side] = (ns / 1e3, b["bytes_per_second"] / 1e9)
                continue
            if name.startswith("BM_ProfilingOverhead/"):
                overhead.append((name.split("/")[1], b))
                continue
            if name.startswith("BM_TwoClockReads"):
                floors[label] = ns
            counters = {k: v for k, v in b.items()
                        if k in ("GFLOP", "bytes_per_event", "memcpy_ns_per_event",
                                 "ratio_to_memcpy", "floor_ns", "ratio_to_floor")}
            if "items_per_second" in b:
                per_item = 1e9 / b["items_per_second"]
                rows.append((name, label, per_item, ns, counters))
            elif path.name.startswith("etdump_benchmark"):
                rows.append((name, label, ns, None, counters))  # one call = one event
            else:
                rows.append((name, label, None, ns, counters))
    lines = [
        BEGIN,
        f"Machine: {machine()}. Date: {context.get('date', '?')}. "
        f"Median of 3 repetitions; per event (or per call for the hooks).",
        "",
        "| benchmark | clock | ns per event | ratio to two clock reads | time per iteration | counters |",
        "|---|---|---:|---:|---:|---|",
    ]
    def human(ns):
        for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
            if ns >= f:
                return f"{ns / f:.2f} {unit}"
        return f"{ns:.2f} ns"
    for name, label, per_event, total, counters in rows:
        floor = floors.get(label)
        ratio = f"{per_event / floor:.2f}x" if per_event is not None and floor and label else "-"
        event = f"{per_event:.2f}" if per_event is not None else "-"
        names = {"GFLOP": "GFLOP/s"}
        extra = ", ".join(f"{names.get(k, k)}={v:.3g}"
                          for k, v in sorted(counters.items())) or "-"
        lines.append(f"| {name} | {label or '-'} | {event} | {ratio} | "
                     f"{human(total) if total is not None else '-'} | {extra} |")
    if whole:
        lines += [
            "",
            "Whole-model cost of tracing (ms per `Method::execute`, and the ratio to the",
            "same build with no tracer):",
            "",
            "| model | tracing compiled out | compiled in, no tracer | ETDumpGen, method only | ETDumpGen, all events |",
            "|---|---:|---:|---:|---:|",
        ]
        for model in sorted({m for m, _ in whole}):
            base = whole.get((model, "NullTracer"))
            cells = []
            for mode in ("CompiledOut", "NullTracer", "MethodOnly", "AllEvents"):
                v = whole.get((model, mode))
                cells.append("-" if v is None else f"{v:.3f} ({v / base:.3f}x)" if base else f"{v:.3f}")
            lines.append(f"| {model} | " + " | ".join(cells) + " |")
    lines.append(END)
    text = doc.read_text() if doc.exists() else f"# Benchmarks\n\n{BEGIN}\n{END}\n"
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    if rows or whole:  # a folder of one program's results leaves the main table alone
        doc.write_text(head + "\n".join(lines) + tail)
    if bandwidth:
        table = [
            f"Machine: {machine()}. Median of 3 repetitions; bytes are read plus written.",
            "",
            "| kernel case | time | GB/s | memcpy of the same bytes | memcpy GB/s | kernel / memcpy time |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for case, sides in bandwidth.items():
            if "kernel" not in sides or "memcpy" not in sides:
                continue
            (k_us, k_gbs), (m_us, m_gbs) = sides["kernel"], sides["memcpy"]
            table.append(f"| {case} | {k_us:.1f} us | {k_gbs:.1f} | {m_us:.1f} us | {m_gbs:.1f} | "
                         f"{k_us / m_us:.2f}x |")
        replace_section(str(doc), "KERNEL BANDWIDTH", "Portable kernels against memcpy",
                        "\n".join(table))
    if overhead:
        table = [
            f"Machine: {machine()}. Median ms per execute over interleaved rounds, 1 thread;",
            "in parentheses the change against no tracer: the median over the rounds of the",
            "ratio to the untraced execution of the same round.",
            "",
            "| program | no tracer | level none | level method | level all |",
            "|---|---:|---:|---:|---:|",
        ]
        for program, c in overhead:
            cells = [f"{c['no_tracer_ms']:.3f}"]
            for level in ("none", "method", "all"):
                cells.append(f"{c[level + '_ms']:.3f} ({c[level + '_overhead_pct']:+.2f}%)")
            table.append(f"| {program} | " + " | ".join(cells) + " |")
        replace_section(str(doc), "PROFILING OVERHEAD", "Profiling overhead on real programs",
                        "\n".join(table))


if __name__ == "__main__":
    main()
