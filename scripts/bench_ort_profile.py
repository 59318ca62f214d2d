#!/usr/bin/python3
"""ONNX Runtime's own per-node profile of one model, to read beside
`glassbox inspect --view ops` of the same file (docs/benchmarks.md, "Where
the time goes beside ONNX Runtime").

onnxruntime-node 1.20.1 (bench/ort) accepts but ignores the session option
enableProfiling, so this script drives the libonnxruntime.so that ships in
that package through ONNX Runtime's C API with ctypes: CPU execution
provider, graph optimizations all, sequential, N intra-op threads, the
same settings as bench/ort/time_model.js. The C API is a table of function
pointers that only ever grows (ORT's ABI promise), so the indices below
hold for every 1.x release at or after API version 20.

    /usr/bin/python3 scripts/bench_ort_profile.py MODEL.onnx INPUT.npy THREADS
        [--iterations 100] [--warmup 5] [--nodes] [--library PATH]

Prints per op type of ONNX Runtime's optimized graph the mean ms per run
and its share, then with --nodes each node's median microseconds (medians:
a neighbour's burst on a shared machine spoils a mean). The input is a
float32 or int64 .npy; the model's input must be "input" and its output
"logits" (scripts/export_torchvision.py's names).
"""

import argparse
import collections
import ctypes as C
import glob
import json
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = os.path.join(ROOT, "bench/ort/node_modules/onnxruntime-node/bin/napi-v3/linux/x64",
                       "libonnxruntime.so.1")
API_VERSION = 20
ORT_ENABLE_ALL = 99
ONNX_FLOAT, ONNX_INT64 = 1, 7
P = C.c_void_p


class Ort:
    """The few OrtApi entries this script calls, by their index in the table."""

    def __init__(self, library):
        lib = C.CDLL(library)
        lib.OrtGetApiBase.restype = C.POINTER(P)
        get_api = C.CFUNCTYPE(P, C.c_uint32)(lib.OrtGetApiBase()[0])
        table = get_api(API_VERSION)
        if not table:
            raise RuntimeError(f"{library}: no C API version {API_VERSION}")
        self.table = C.cast(table, C.POINTER(P))
        status = [P]
        self.error_message = self.entry(2, [P], C.c_char_p)
        self.create_env = self.entry(3, [C.c_int, C.c_char_p, C.POINTER(P)])
        self.create_session = self.entry(7, [P, C.c_char_p, P, C.POINTER(P)])
        self.run = self.entry(9, [P, P, C.POINTER(C.c_char_p), C.POINTER(P), C.c_size_t,
                                  C.POINTER(C.c_char_p), C.c_size_t, C.POINTER(P)])
        self.create_session_options = self.entry(10, [C.POINTER(P)])
        self.set_execution_mode = self.entry(13, status + [C.c_int])
        self.enable_profiling = self.entry(14, status + [C.c_char_p])
        self.set_optimization_level = self.entry(23, status + [C.c_int])
        self.set_intra_op_threads = self.entry(24, status + [C.c_int])
        self.set_inter_op_threads = self.entry(25, status + [C.c_int])
        self.create_tensor = self.entry(49, [P, P, C.c_size_t, C.POINTER(C.c_int64), C.c_size_t,
                                             C.c_int, C.POINTER(P)])
        self.create_cpu_memory_info = self.entry(69, [C.c_int, C.c_int, C.POINTER(P)])
        self.release_session = self.entry(95, [P], None)
        self.release_value = self.entry(96, [P], None)

    def entry(self, index, argtypes, restype=P):
        function = C.CFUNCTYPE(restype, *argtypes)(self.table[index])
        if restype is not P:
            return function

        def checked(*args):
            status = function(*args)
            if status:
                raise RuntimeError(self.error_message(status).decode())
        return checked


def profile(ort, model, x, threads, runs, prefix):
    """Runs the model `runs` times with profiling on; returns the profile's events."""
    env, options, session = P(), P(), P()
    ort.create_env(3, b"bench_ort_profile", C.byref(env))
    ort.create_session_options(C.byref(options))
    ort.set_optimization_level(options, ORT_ENABLE_ALL)
    ort.set_intra_op_threads(options, threads)
    ort.set_inter_op_threads(options, 1)
    ort.set_execution_mode(options, 0)
    ort.enable_profiling(options, prefix.encode())
    ort.create_session(env, model.encode(), options, C.byref(session))
    info, value = P(), P()
    ort.create_cpu_memory_info(0, 0, C.byref(info))
    shape = (C.c_int64 * x.ndim)(*x.shape)
    ort.create_tensor(info, x.ctypes.data_as(P), x.nbytes, shape, x.ndim,
                      ONNX_INT64 if x.dtype == np.int64 else ONNX_FLOAT, C.byref(value))
    inputs, outputs = (C.c_char_p * 1)(b"input"), (C.c_char_p * 1)(b"logits")
    values = (P * 1)(value)
    for _ in range(runs):
        out = (P * 1)()
        ort.run(session, None, inputs, values, 1, outputs, 1, out)
        ort.release_value(out[0])
    # The profile file is written when the session ends.
    ort.release_session(session)
    files = glob.glob(prefix + "*.json")
    if not files:
        raise RuntimeError("ONNX Runtime wrote no profile")
    with open(files[0]) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("input")
    parser.add_argument("threads", type=int)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--nodes", action="store_true", help="also each node's median")
    parser.add_argument("--library", default=LIBRARY)
    args = parser.parse_args()
    if args.iterations < 1 or args.warmup < 0 or args.threads < 1:
        parser.error("--iterations and THREADS must be at least 1, --warmup at least 0")
    try:
        x = np.ascontiguousarray(np.load(args.input))
        if x.dtype not in (np.float32, np.int64):
            raise ValueError(f"{args.input}: {x.dtype} input (float32 or int64 only)")
        with tempfile.TemporaryDirectory() as tmp:
            events = profile(Ort(args.library), args.model, x, args.threads,
                             args.warmup + args.iterations, os.path.join(tmp, "profile"))
    except (OSError, RuntimeError, ValueError) as e:
        print(f"bench_ort_profile: {e}", file=sys.stderr)
        return 1
    runs = sorted((e for e in events if e.get("cat") == "Session" and e["name"] == "model_run"),
                  key=lambda e: e["ts"])
    measured = runs[args.warmup:]
    start = measured[0]["ts"]
    by_type = collections.defaultdict(float)
    type_nodes = collections.defaultdict(set)
    by_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time") or e["ts"] < start:
            continue
        node = e["name"][:-len("_kernel_time")]
        by_type[e["args"]["op_name"]] += e["dur"]
        type_nodes[e["args"]["op_name"]].add(node)
        by_node[node].append(e["dur"])
    total = sum(by_type.values())
    run_median = sorted(r["dur"] for r in measured)[len(measured) // 2]
    print(f"{os.path.basename(args.model)}, {args.threads} thread(s), {len(measured)} runs: "
          f"model_run median {run_median / 1000:.3f} ms (profiling on), nodes {total / len(measured) / 1000:.3f} ms")
    print(f"{'op type':28s} {'ms/run':>8s} {'share':>6s} nodes")
    for op, us in sorted(by_type.items(), key=lambda kv: -kv[1]):
        print(f"{op:28s} {us / len(measured) / 1000:8.3f} {100 * us / total:5.1f}% {len(type_nodes[op])}")
    if args.nodes:
        medians = {n: sorted(d)[len(d) // 2] for n, d in by_node.items()}
        print(f"\n{'node':60s} {'median us':>9s}")
        for node, us in sorted(medians.items(), key=lambda kv: -kv[1]):
            print(f"{node:60s} {us:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
