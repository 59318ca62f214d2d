#!/usr/bin/python3
"""Writes the small int8 (QDQ and QOperator) ONNX models under testdata/onnx/quant/.

Run with Debian's interpreter and its python3-onnx and python3-numpy
packages (no PyTorch, no ONNX Runtime):

    /usr/bin/python3 scripts/make_quant_testdata.py [OUT_DIR]

OUT_DIR defaults to testdata/onnx/quant. Every file is deterministic (fixed
seeds). testdata/onnx/quant/README.md describes each model.

Debian 12's python3-onnx is 1.12 (opsets up to 17), which has no
onnx.reference.ReferenceEvaluator, so the expected outputs are computed by
this script's own numpy interpreter of the ONNX operators used here, written
from the ONNX operator specification: QuantizeLinear is
saturate(round_half_to_even(x / scale) + zero_point) in float32,
DequantizeLinear (x - zero_point) * scale, float operators in float64 with
each node's output rounded to float32 (as an ONNX float tensor is). The
activation scales are calibrated on the fixed input while the graph is
built (min/max of the value the quantized graph itself computes there).
A runtime may differ from <name>.expected.npy by one quantization step of
the output (a rounding tie decided the other way after a differently
ordered float sum).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = np.float32
NP_OF = {TensorProto.FLOAT: np.float32, TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8,
         TensorProto.INT32: np.int32, TensorProto.INT64: np.int64}
TP_OF = {np.dtype(v): k for k, v in NP_OF.items()}
PRODUCER = "glassbox make_quant_testdata.py"


# ---------------------------------------------------------------------------
# numpy implementations of the ONNX operators used (ONNX semantics)
# ---------------------------------------------------------------------------

def _along(v, axis, ndim):
    """A per-axis 1-D parameter reshaped to broadcast along axis; scalars as they are."""
    v = np.asarray(v)
    if v.ndim == 0 or v.size == 1 and axis is None:
        return v.reshape(())
    shape = [1] * ndim
    shape[axis] = v.size
    return v.reshape(shape)


def quantize(x, scale, zp=None, axis=1):
    """QuantizeLinear: saturate(round_half_to_even(x / scale) + zp), division in float32."""
    zp = np.uint8(0) if zp is None else np.asarray(zp)
    info = np.iinfo(zp.dtype)
    axis = axis % x.ndim if x.ndim else 0
    s = _along(np.asarray(scale, F32), axis, x.ndim)
    z = _along(zp, axis, x.ndim).astype(np.float64)
    r = np.rint((np.asarray(x, F32) / s).astype(F32)).astype(np.float64) + z
    return np.clip(r, info.min, info.max).astype(zp.dtype)


def dequantize(x, scale, zp=None, axis=1):
    """DequantizeLinear: (x - zp) * scale in float32."""
    axis = axis % x.ndim if x.ndim else 0
    zp = np.zeros((), x.dtype) if zp is None else np.asarray(zp)
    s = _along(np.asarray(scale, F32), axis, x.ndim)
    z = _along(zp, axis, x.ndim).astype(np.int64)
    return ((x.astype(np.int64) - z).astype(F32) * s).astype(F32)


def _windows(x, kernel, strides, pads, fill):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, kernel, axis=(2, 3))
    return win[:, :, ::strides[0], ::strides[1]]  # [N, C, OH, OW, kh, kw]


def conv(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), group=1):
    """Conv (2-D, no dilation), in float64 for float inputs, int64 for integers."""
    acc = np.int64 if np.issubdtype(x.dtype, np.integer) else np.float64
    x, w = x.astype(acc), w.astype(acc)
    win = _windows(x, w.shape[2:], strides, pads, 0)
    m, cg = w.shape[0], w.shape[1]
    mg = m // group
    out = np.zeros((x.shape[0], m) + win.shape[2:4], acc)
    for g in range(group):
        out[:, g * mg:(g + 1) * mg] = np.einsum(
            "nchwij,mcij->nmhw", win[:, g * cg:(g + 1) * cg], w[g * mg:(g + 1) * mg])
    if b is not None:
        out += b.astype(acc).reshape(1, -1, 1, 1)
    return out


def pool(x, kernel, strides, pads, kind):
    x = x.astype(np.float64)
    if kind == "max":
        return _windows(x, kernel, strides, pads, -np.inf).max(axis=(4, 5))
    sums = _windows(x, kernel, strides, pads, 0).sum(axis=(4, 5))
    counts = _windows(np.ones_like(x[:1, :1]), kernel, strides, pads, 0).sum(axis=(4, 5))
    return sums / counts  # count_include_pad=0


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def _conv_args(node, w_shape):
    k = attr(node, "kernel_shape", list(w_shape[2:]))
    assert list(k) == list(w_shape[2:]) and attr(node, "dilations", [1, 1]) == [1, 1]
    return dict(strides=attr(node, "strides", [1, 1]), pads=attr(node, "pads", [0, 0, 0, 0]),
                group=attr(node, "group", 1))


def run_node(node, ins, opset):
    """The outputs (a list of arrays) of one node given its inputs' arrays (None for absent)."""
    op = node.op_type
    ax = attr(node, "axis", 1)
    if op == "QuantizeLinear":
        return [quantize(ins[0], ins[1], ins[2] if len(ins) > 2 else None, ax)]
    if op == "DequantizeLinear":
        return [dequantize(ins[0], ins[1], ins[2] if len(ins) > 2 else None, ax)]
    if op == "DynamicQuantizeLinear":
        x = ins[0].astype(F32)
        lo, hi = min(F32(0), x.min()), max(F32(0), x.max())
        scale = F32((hi - lo) / F32(255))
        zp = np.uint8(np.clip(np.rint(F32(0) - lo / scale), 0, 255))
        return [quantize(x, scale, zp), np.array(scale, F32), np.array(zp, np.uint8)]
    if op in ("Conv", "ConvInteger"):
        x, w = ins[0], ins[1]
        if op == "ConvInteger":
            xz = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), x.dtype)
            wz = ins[3] if len(ins) > 3 and ins[3] is not None else np.zeros((), w.dtype)
            x = x.astype(np.int64) - xz.astype(np.int64)
            w = w.astype(np.int64) - _along(wz, 0, 4).astype(np.int64)
            return [conv(x, w, **_conv_args(node, w.shape)).astype(np.int32)]
        b = ins[2] if len(ins) > 2 else None
        return [conv(x, w, b, **_conv_args(node, w.shape)).astype(F32)]
    if op == "QLinearConv":
        x, xs, xz, w, ws, wz, ys, yz = ins[:8]
        b = ins[8] if len(ins) > 8 else None
        xi = x.astype(np.int64) - xz.astype(np.int64)
        wi = w.astype(np.int64) - _along(wz, 0, 4).astype(np.int64)
        acc = conv(xi, wi, b, **_conv_args(node, w.shape))
        real = acc.astype(F32) * _along((xs * ws).astype(F32), 1, 4)
        return [quantize(real.astype(F32), ys, yz)]
    if op in ("MatMulInteger", "QLinearMatMul"):
        if op == "MatMulInteger":
            a, b = ins[0], ins[1]
            az = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), a.dtype)
            bz = ins[3] if len(ins) > 3 and ins[3] is not None else np.zeros((), b.dtype)
        else:
            a, as_, az, b, bs, bz, ys, yz = ins
        acc = (a.astype(np.int64) - az.astype(np.int64)) @ (b.astype(np.int64) - bz.astype(np.int64))
        if op == "MatMulInteger":
            return [acc.astype(np.int32)]
        real = acc.astype(F32) * (as_ * bs).astype(F32)
        return [quantize(real.astype(F32), ys, yz)]
    if op in ("Cast",):
        return [ins[0].astype(NP_OF[attr(node, "to")])]
    if op == "Identity":
        return [ins[0].copy()]
    if op in ("Relu", "Sigmoid", "HardSigmoid", "HardSwish", "Clip"):
        x = ins[0].astype(np.float64)
        if op == "Relu":
            y = np.maximum(x, 0)
        elif op == "Sigmoid":
            y = 1 / (1 + np.exp(-x))
        elif op == "HardSigmoid":
            y = np.clip(attr(node, "alpha", 0.2) * x + attr(node, "beta", 0.5), 0, 1)
        elif op == "HardSwish":
            y = x * np.clip(x / 6 + 0.5, 0, 1)
        else:
            lo = ins[1] if len(ins) > 1 and ins[1] is not None else -np.inf
            hi = ins[2] if len(ins) > 2 and ins[2] is not None else np.inf
            y = np.clip(x, lo, hi)
        return [y.astype(F32)]
    if op in ("Add", "Mul", "MatMul"):
        a, b = ins[0].astype(np.float64), ins[1].astype(np.float64)
        y = a + b if op == "Add" else a * b if op == "Mul" else a @ b
        return [y.astype(ins[0].dtype)]
    if op == "Gemm":
        a, b = ins[0].astype(np.float64), ins[1].astype(np.float64)
        if attr(node, "transA", 0):
            a = a.T
        if attr(node, "transB", 0):
            b = b.T
        y = attr(node, "alpha", 1.0) * (a @ b)
        if len(ins) > 2 and ins[2] is not None:
            y = y + attr(node, "beta", 1.0) * ins[2].astype(np.float64)
        return [y.astype(F32)]
    if op in ("MaxPool", "AveragePool"):
        assert not attr(node, "count_include_pad", 0) and not attr(node, "ceil_mode", 0)
        k = attr(node, "kernel_shape")
        y = pool(ins[0], k, attr(node, "strides", [1, 1]), attr(node, "pads", [0, 0, 0, 0]),
                 "max" if op == "MaxPool" else "avg")
        return [y.astype(F32)]
    if op == "GlobalAveragePool":
        return [ins[0].astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(F32)]
    if op == "Concat":
        return [np.concatenate(ins, axis=ax)]
    if op == "Flatten":
        x = ins[0]
        return [x.reshape(int(np.prod(x.shape[:ax])), -1)]
    if op == "Reshape":
        shape = [d if d != 0 else ins[0].shape[i] for i, d in enumerate(ins[1].tolist())]
        return [ins[0].reshape(shape)]
    raise NotImplementedError(op)


def run_model(model, feeds):
    """Every value of the model (a dict by name) for the given graph inputs."""
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    vals = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    vals.update(feeds)
    vals[""] = None
    for node in model.graph.node:
        outs = run_node(node, [vals[n] for n in node.input], opset)
        vals.update(zip(node.output, outs))
    return vals


# ---------------------------------------------------------------------------
# A graph builder that evaluates (and so calibrates) as it goes
# ---------------------------------------------------------------------------

class Builder:
    def __init__(self, name, opset, seed, x, input_name="input"):
        self.name, self.opset = name, opset
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.vals, self.qp = [], [], {"": None}, {}
        self.x = x
        self.input = helper.make_tensor_value_info(input_name, TP_OF[x.dtype], list(x.shape))
        self.vals[input_name] = x
        self.counts = {}

    def init(self, name, value):
        value = np.asarray(value)
        self.inits.append(numpy_helper.from_array(value, name))
        self.vals[name] = value
        return name

    def node(self, op, inputs, scope, outputs=1, **attrs):
        """Adds a node named <scope>/<op> (PyTorch style) and evaluates it."""
        key = f"{scope}/{op}"
        self.counts[key] = self.counts.get(key, -1) + 1
        name = key if self.counts[key] == 0 else f"{key}_{self.counts[key]}"
        outs = [f"{name}_output_{i}" for i in range(outputs)]
        node = helper.make_node(op, inputs, outs, name=name, **attrs)
        self.nodes.append(node)
        self.vals.update(zip(outs, run_node(node, [self.vals[i] for i in inputs], self.opset)))
        return outs[0] if outputs == 1 else outs

    def act_qparams(self, v, dtype, symmetric):
        lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
        info = np.iinfo(dtype)
        if symmetric:
            scale = F32(max(-lo, hi) / info.max)
            return scale, dtype(0)
        scale = F32((hi - lo) / (info.max - info.min))
        return scale, dtype(np.clip(np.rint(info.min - lo / scale), info.min, info.max))

    def qdq(self, x, scope, dtype=np.int8, symmetric=False, between=None, qparams=None):
        """x -> QuantizeLinear -> [Cast/Identity] -> DequantizeLinear, scale and zero point
        from x's calibration range unless given; returns the DequantizeLinear's output."""
        scale, zp = qparams or self.act_qparams(self.vals[x], dtype, symmetric)
        s = self.init(f"{scope}.scale", np.array(scale, F32))
        z = self.init(f"{scope}.zero_point", np.array(zp, dtype))
        q = self.node("QuantizeLinear", [x, s, z], scope)
        if between == "Cast":
            q = self.node("Cast", [q], scope, to=TP_OF[np.dtype(dtype)])
        elif between == "Identity":
            q = self.node("Identity", [q], scope)
        y = self.node("DequantizeLinear", [q, s, z], scope)
        self.qp[y] = (F32(scale), zp)
        return y

    def weight(self, name, w, per_channel=True, dtype=np.int8):
        """int8 symmetric weights (per output channel, axis 0) behind a DequantizeLinear."""
        axes = tuple(range(1, w.ndim))
        amax = np.abs(w).max(axis=axes) if per_channel else np.abs(w).max()
        scale = (np.maximum(amax, 1e-8) / 127).astype(F32)
        q = quantize(w, scale, np.zeros(np.shape(scale), dtype), axis=0)
        self.init(name + "_quantized", q)
        self.init(name + "_scale", scale)
        self.init(name + "_zero_point", np.zeros(np.shape(scale), dtype))
        attrs = {"axis": 0} if per_channel else {}
        y = self.node("DequantizeLinear", [name + "_quantized", name + "_scale",
                                           name + "_zero_point"], "/" + name, **attrs)
        self.qp[y] = (scale, None)
        return y

    def bias(self, name, b, x_dq, w_dq):
        """An int32 bias behind a DequantizeLinear with scale x_scale * w_scale, zero point 0."""
        scale = (self.qp[x_dq][0] * self.qp[w_dq][0]).astype(F32)
        per_channel = np.ndim(scale) == 1
        q = quantize(b, scale, np.zeros(np.shape(scale), np.int32), axis=0)
        self.init(name + "_quantized", q)
        self.init(name + "_scale", scale)
        self.init(name + "_zero_point", np.zeros(np.shape(scale), np.int32))
        attrs = {"axis": 0} if per_channel else {}
        return self.node("DequantizeLinear", [name + "_quantized", name + "_scale",
                                              name + "_zero_point"], "/" + name, **attrs)

    def conv(self, x, scope, cin, cout, k, group=1, stride=1, pad=None, per_channel=True):
        pad = k // 2 if pad is None else pad
        fan_in = cin // group * k * k
        w = self.rng.uniform(-1, 1, (cout, cin // group, k, k)).astype(F32) * F32(
            np.sqrt(3.0 / fan_in))
        b = self.rng.uniform(-0.2, 0.2, cout).astype(F32)
        wn = scope.strip("/").replace("/", ".")
        wq = self.weight(wn + ".weight", w, per_channel)
        bq = self.bias(wn + ".bias", b, x, wq)
        return self.node("Conv", [x, wq, bq], scope, kernel_shape=[k, k], strides=[stride] * 2,
                         pads=[pad] * 4, group=group)

    def model(self, output, ir_version=None):
        out = helper.make_tensor_value_info("output", TP_OF[self.vals[output].dtype],
                                            list(self.vals[output].shape))
        # The last node writes the graph output "output".
        last = self.nodes[-1]
        assert last.output[0] == output
        last.output[0] = "output"
        self.vals["output"] = self.vals[output]
        graph = helper.make_graph(self.nodes, self.name, [self.input], [out],
                                  initializer=self.inits)
        m = helper.make_model(graph, producer_name=PRODUCER,
                              opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = ir_version or {10: 5, 13: 7, 21: 10}[self.opset]
        return m


def save(model, out_dir, name, x=None, check=True):
    path = os.path.join(out_dir, name + ".onnx")
    if check:
        onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    size = os.path.getsize(path)
    assert size < 50_000, (path, size)
    line = f"{path}: {size} bytes"
    if x is not None:
        y = run_model(model, {model.graph.input[0].name: x})[model.graph.output[0].name]
        np.save(os.path.join(out_dir, name + ".input.npy"), x)
        np.save(os.path.join(out_dir, name + ".expected.npy"), y)
        line += f", output {list(y.shape)} {y.dtype}"
    print(line)
    return model


# ---------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------

def self_test():
    """The quantization rules the expected outputs rest on."""
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 300, -300, 126.6], F32)
    assert quantize(x, F32(1), np.int8(0)).tolist() == [0, 2, 2, 0, -2, -2, 127, -128, 127]
    assert quantize(x, F32(1), np.uint8(3)).tolist() == [3, 5, 5, 3, 1, 1, 255, 0, 130]
    assert dequantize(np.array([0, 255], np.uint8), F32(0.5), np.uint8(128)).tolist() == [-64, 63.5]
    # Per-axis, axis 0 of a [2, 2]
    q = quantize(np.array([[1, 2], [1, 2]], F32), np.array([1, 2], F32), np.array([0, 1], np.int8), 0)
    assert q.tolist() == [[1, 2], [1, 2]]  # 0.5 rounds to 0


def qdq_conv_relu(out_dir):
    """(a) The PyTorch exporter's quantized conv: uint8 activations, int8 per-channel weights."""
    x = np.random.default_rng(101).uniform(-1, 1, (1, 3, 8, 8)).astype(F32)
    b = Builder("qdq_conv_relu", 13, 102, x)
    h = b.qdq("input", "/quant", np.uint8)
    h = b.conv(h, "/conv", 3, 4, 3)
    h = b.node("Relu", [h], "/relu")
    h = b.qdq(h, "/relu/quant", np.uint8)
    model = save(b.model(h), out_dir, "qdq_conv_relu", x)
    # An independent check: the same computation written out directly.
    ini = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    xs, xz = ini["/quant.scale"], ini["/quant.zero_point"]
    xd = (quantize(x, xs, xz).astype(np.float64) - xz) * xs
    w = ini["conv.weight_quantized"].astype(np.float64) * ini["conv.weight_scale"].reshape(-1, 1, 1, 1)
    bias = ini["conv.bias_quantized"] * (xs * ini["conv.weight_scale"]).astype(F32)
    y = np.maximum(conv(xd.astype(F32), w.astype(F32), bias.astype(F32), pads=(1, 1, 1, 1)), 0)
    ys, yz = ini["/relu/quant.scale"], ini["/relu/quant.zero_point"]
    yq = quantize(y.astype(F32), ys, yz)
    expected = np.load(os.path.join(out_dir, "qdq_conv_relu.expected.npy"))
    steps = np.abs(((yq.astype(np.float64) - yz) * ys) - expected).max() / ys
    assert steps <= 1, steps
    qdq_conv_relu_float(out_dir, ini, x)


def qdq_conv_relu_float(out_dir, ini, x):
    """qdq_conv_relu's float twin: Conv + Relu on its dequantized weights, named as a float
    PyTorch export names them (not as the quantized one), for `glassbox compare`'s join by
    structure."""
    w = (ini["conv.weight_quantized"].astype(np.float64) *
         ini["conv.weight_scale"].reshape(-1, 1, 1, 1)).astype(F32)
    bias = (ini["conv.bias_quantized"] * ini["conv.bias_scale"]).astype(F32)
    nodes = [helper.make_node("Conv", ["input", "features.0.weight", "features.0.bias"],
                              ["/features/features.0/Conv_output_0"], name="/features/features.0/Conv",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["/features/features.0/Conv_output_0"], ["output"],
                              name="/features/features.1/Relu")]
    graph = helper.make_graph(
        nodes, "qdq_conv_relu_float",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])],
        initializer=[numpy_helper.from_array(w, "features.0.weight"),
                     numpy_helper.from_array(bias, "features.0.bias")])
    m = helper.make_model(graph, producer_name=PRODUCER, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    save(m, out_dir, "qdq_conv_relu_float")


def qdq_cnn_small(out_dir):
    """(b) A small int8 QDQ CNN with most of what a quantized mobile CNN uses."""
    x = np.random.default_rng(201).uniform(0, 1, (1, 3, 16, 16)).astype(F32)
    b = Builder("qdq_cnn_small", 13, 202, x)
    x0 = b.qdq("input", "/quant", np.int8)                      # zp -128: asymmetric
    h = b.conv(x0, "/stem/Conv", 3, 8, 3)                      # [1,8,16,16]
    h = b.node("Relu", [h], "/stem/relu")
    a = b.qdq(h, "/stem/relu/quant")
    h = b.conv(a, "/dw/Conv", 8, 8, 3, group=8)                # depthwise
    lo, hi = b.init("/dw/clip.min", np.array(0, F32)), b.init("/dw/clip.max", np.array(6, F32))
    h = b.node("Clip", [h, lo, hi], "/dw/relu6")
    h = b.qdq(h, "/dw/relu6/quant", between="Cast")            # Q -> Cast -> DQ
    h = b.conv(h, "/pw/Conv", 8, 8, 1, group=2)                # grouped 1x1, no activation
    c = b.qdq(h, "/pw/quant", symmetric=True)                  # zp 0
    h = b.node("Add", [a, c], "/residual")                     # inputs from two scales
    d = b.qdq(h, "/residual/quant", symmetric=True)
    s = b.node("Sigmoid", [d], "/silu")
    s = b.qdq(s, "/silu/sigmoid/quant")
    h = b.node("Mul", [d, s], "/silu")
    e = b.qdq(h, "/silu/quant", between="Identity")            # Q -> Identity -> DQ
    m = b.node("MaxPool", [e], "/pool", kernel_shape=[2, 2], strides=[2, 2])  # [1,8,8,8]
    m = b.qdq(m, "/pool/quant", qparams=b.qp[e])               # same scale as its input
    p = b.node("AveragePool", [m], "/avg", kernel_shape=[3, 3], strides=[1, 1], pads=[1] * 4)
    p = b.qdq(p, "/avg/quant")
    hs = b.conv(m, "/hs/Conv", 8, 8, 1)
    hq = b.qdq(hs, "/hs/Conv/quant")
    g = b.node("HardSigmoid", [hq], "/hs/hardswish", alpha=1.0 / 6, beta=0.5)
    g = b.qdq(g, "/hs/hardswish/gate/quant")
    h = b.node("Mul", [hq, g], "/hs/hardswish")                # hardswish, as opset 13 writes it
    h = b.qdq(h, "/hs/hardswish/quant")
    cat = b.node("Concat", [p, h], "/cat", axis=1)             # [1,16,8,8], two input scales
    cat = b.qdq(cat, "/cat/quant")
    se = b.node("GlobalAveragePool", [cat], "/se/pool")
    se = b.qdq(se, "/se/pool/quant")
    se = b.node("HardSigmoid", [se], "/se/gate", alpha=0.2, beta=0.5)
    se = b.qdq(se, "/se/gate/quant")
    h = b.node("Mul", [cat, se], "/se")                        # broadcast [1,16,1,1]
    h = b.qdq(h, "/se/quant")
    h = b.node("GlobalAveragePool", [h], "/gap")
    gap = b.qdq(h, "/gap/quant")
    h = b.node("Flatten", [gap], "/flatten", axis=1)
    h = b.qdq(h, "/flatten/quant", qparams=b.qp[gap])         # same scale as its input
    fc_w = b.rng.uniform(-0.5, 0.5, (10, 16)).astype(F32)
    fc_b = b.rng.uniform(-0.1, 0.1, 10).astype(F32)
    wq = b.weight("fc.weight", fc_w)
    bq = b.bias("fc.bias", fc_b, h, wq)
    h = b.node("Gemm", [h, wq, bq], "/fc", transB=1)
    h = b.qdq(h, "/fc/quant", symmetric=False)
    save(b.model(h), out_dir, "qdq_cnn_small", x)


def qoperator_small(out_dir):
    """(c) QOperator form: QuantizeLinear -> QLinearConv -> Reshape -> QLinearMatMul -> DQ."""
    x = np.random.default_rng(301).uniform(-1, 1, (1, 3, 8, 8)).astype(F32)
    b = Builder("qoperator_small", 13, 302, x)
    xs, xz = b.act_qparams(x, np.uint8, False)
    b.init("input_scale", np.array(xs, F32))
    b.init("input_zero_point", np.array(xz, np.uint8))
    xq = b.node("QuantizeLinear", ["input", "input_scale", "input_zero_point"], "/quant")
    w = b.rng.uniform(-0.35, 0.35, (4, 3, 3, 3)).astype(F32)
    ws = (np.abs(w).max(axis=(1, 2, 3)) / 127).astype(F32)
    b.init("conv.weight_quantized", quantize(w, ws, np.zeros(4, np.int8), 0))
    b.init("conv.weight_scale", ws)
    b.init("conv.weight_zero_point", np.zeros(4, np.int8))
    bias = b.rng.uniform(-0.2, 0.2, 4).astype(F32)
    b.init("conv.bias_quantized", quantize(bias, (xs * ws).astype(F32), np.zeros(4, np.int32), 0))
    # Output scale: calibrated on the float result of the same integer conv.
    acc = conv(b.vals[xq].astype(np.int64) - int(xz), b.vals["conv.weight_quantized"],
               b.vals["conv.bias_quantized"], strides=(2, 2), pads=(1, 1, 1, 1))
    ys, yz = b.act_qparams(acc * (xs * ws).reshape(1, -1, 1, 1), np.uint8, False)
    b.init("conv.output_scale", np.array(ys, F32))
    b.init("conv.output_zero_point", np.array(yz, np.uint8))
    h = b.node("QLinearConv", [xq, "input_scale", "input_zero_point", "conv.weight_quantized",
                               "conv.weight_scale", "conv.weight_zero_point", "conv.output_scale",
                               "conv.output_zero_point", "conv.bias_quantized"], "/conv",
               kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])   # [1,4,4,4] uint8
    b.init("flat_shape", np.array([1, 64], np.int64))
    h = b.node("Reshape", [h, "flat_shape"], "/flatten")                # uint8 [1,64]
    fw = b.rng.uniform(-0.3, 0.3, (64, 10)).astype(F32)
    fs = F32(np.abs(fw).max() / 127)
    b.init("fc.weight_quantized", quantize(fw, fs, np.int8(0)))
    b.init("fc.weight_scale", np.array(fs, F32))
    b.init("fc.weight_zero_point", np.array(0, np.int8))
    acc = (b.vals[h].astype(np.int64) - int(yz)) @ b.vals["fc.weight_quantized"].astype(np.int64)
    os_, oz = b.act_qparams(acc * ys * fs, np.uint8, False)
    b.init("fc.output_scale", np.array(os_, F32))
    b.init("fc.output_zero_point", np.array(oz, np.uint8))
    h = b.node("QLinearMatMul", [h, "conv.output_scale", "conv.output_zero_point",
                                 "fc.weight_quantized", "fc.weight_scale", "fc.weight_zero_point",
                                 "fc.output_scale", "fc.output_zero_point"], "/fc")
    h = b.node("DequantizeLinear", [h, "fc.output_scale", "fc.output_zero_point"], "/dequant")
    save(b.model(h), out_dir, "qoperator_small", x)


def qinteger_small(out_dir):
    """(c) The same net with ConvInteger and MatMulInteger and float rescaling around them."""
    x = np.random.default_rng(401).uniform(-1, 1, (1, 3, 8, 8)).astype(F32)
    b = Builder("qinteger_small", 13, 402, x)
    xs, xz = b.act_qparams(x, np.uint8, False)
    b.init("input_scale", np.array(xs, F32))
    b.init("input_zero_point", np.array(xz, np.uint8))
    xq = b.node("QuantizeLinear", ["input", "input_scale", "input_zero_point"], "/quant")
    # uint8 weights with a per-tensor zero point: ONNX allows int8 and per-channel zero
    # points here too, but ONNX Runtime's ConvInteger takes uint8 x uint8 only.
    w = b.rng.uniform(-0.3, 0.4, (4, 3, 3, 3)).astype(F32)
    ws, wz = b.act_qparams(w, np.uint8, False)
    b.init("conv.weight_quantized", quantize(w, ws, wz))
    b.init("conv.weight_zero_point", np.array(wz, np.uint8))
    h = b.node("ConvInteger", [xq, "conv.weight_quantized", "input_zero_point",
                               "conv.weight_zero_point"], "/conv", kernel_shape=[3, 3],
               strides=[2, 2], pads=[1, 1, 1, 1])                        # int32 [1,4,4,4]
    h = b.node("Cast", [h], "/conv", to=TensorProto.FLOAT)
    b.init("conv.output_scale", np.array(xs * ws, F32))
    h = b.node("Mul", [h, "conv.output_scale"], "/conv")
    b.init("conv.bias", b.rng.uniform(-0.2, 0.2, (1, 4, 1, 1)).astype(F32))
    h = b.node("Add", [h, "conv.bias"], "/conv")
    h = b.node("Relu", [h], "/relu")
    hs, hz = b.act_qparams(b.vals[h], np.uint8, False)
    b.init("relu.scale", np.array(hs, F32))
    b.init("relu.zero_point", np.array(hz, np.uint8))
    h = b.node("QuantizeLinear", [h, "relu.scale", "relu.zero_point"], "/relu/quant")
    b.init("flat_shape", np.array([1, 64], np.int64))
    h = b.node("Reshape", [h, "flat_shape"], "/flatten")
    fw = b.rng.uniform(-0.3, 0.3, (64, 10)).astype(F32)
    fs = F32(np.abs(fw).max() / 127)
    b.init("fc.weight_quantized", quantize(fw, fs, np.int8(0)))
    b.init("fc.weight_zero_point", np.array(0, np.int8))
    h = b.node("MatMulInteger", [h, "fc.weight_quantized", "relu.zero_point",
                                 "fc.weight_zero_point"], "/fc")
    h = b.node("Cast", [h], "/fc", to=TensorProto.FLOAT)
    b.init("fc.output_scale", np.array(hs * fs, F32))
    h = b.node("Mul", [h, "fc.output_scale"], "/fc")
    save(b.model(h), out_dir, "qinteger_small", x)


def dyn_quant_linear(out_dir):
    """(c) ONNX Runtime's dynamic quantization of two Linear layers (with a Relu between)."""
    x = np.random.default_rng(501).normal(0, 1, (1, 8, 16)).astype(F32)
    b = Builder("dyn_quant_linear", 13, 502, x)
    h = "input"
    for i, (k, n) in enumerate([(16, 32), (32, 16)]):
        sc = f"/linear{i}"
        w = b.rng.uniform(-1, 1, (k, n)).astype(F32) / F32(np.sqrt(k))
        ws = F32(np.abs(w).max() / 127)
        b.init(f"linear{i}.weight_quantized", quantize(w, ws, np.int8(0)))
        b.init(f"linear{i}.weight_scale", np.array(ws, F32))
        b.init(f"linear{i}.weight_zero_point", np.array(0, np.int8))
        q, s, z = b.node("DynamicQuantizeLinear", [h], sc, outputs=3)
        m = b.node("MatMulInteger", [q, f"linear{i}.weight_quantized", z,
                                     f"linear{i}.weight_zero_point"], sc)
        m = b.node("Cast", [m], sc, to=TensorProto.FLOAT)
        scale = b.node("Mul", [s, f"linear{i}.weight_scale"], sc)   # the scale product
        m = b.node("Mul", [m, scale], sc)
        b.init(f"linear{i}.bias", b.rng.uniform(-0.1, 0.1, n).astype(F32))
        h = b.node("Add", [m, f"linear{i}.bias"], sc)
        if i == 0:
            h = b.node("Relu", [h], "/relu")
    save(b.model(h), out_dir, "dyn_quant_linear", x)


def qdq_opset(out_dir, opset):
    """(d) QDQ at opset 10 (per-tensor only: Q/DQ have no axis) or 21 (per-channel)."""
    x = np.random.default_rng(600 + opset).uniform(-1, 1, (1, 3, 8, 8)).astype(F32)
    b = Builder(f"qdq_opset{opset}", opset, 700 + opset, x)
    h = b.qdq("input", "/quant", np.uint8)
    h = b.conv(h, "/conv", 3, 8, 3, per_channel=opset >= 13)
    h = b.node("Relu", [h], "/relu")
    r = b.qdq(h, "/relu/quant", np.uint8)
    h = b.node("MaxPool", [r], "/pool", kernel_shape=[2, 2], strides=[2, 2])
    h = b.qdq(h, "/pool/quant", np.uint8, qparams=b.qp[r])
    h = b.conv(h, "/conv2", 8, 4, 1, per_channel=opset >= 13)
    h = b.qdq(h, "/conv2/quant", np.int8, symmetric=True)
    # Debian's onnx 1.12 knows opsets up to 17: its checker cannot check opset 21.
    save(b.model(h), out_dir, f"qdq_opset{opset}", x, check=opset <= onnx.defs.onnx_opset_version())


# --- bad models: each a node or two, for the importer's error messages ---

def bad(out_dir, name, nodes, inits, inp=("input", TensorProto.FLOAT, [1, 4]),
        out=("output", TensorProto.FLOAT, [1, 4]), opset=13):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(*inp)],
                              [helper.make_tensor_value_info(*out)],
                              initializer=[numpy_helper.from_array(np.asarray(v), k)
                                           for k, v in inits.items()])
    model = helper.make_model(graph, producer_name=PRODUCER,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7 if opset >= 13 else 5
    try:
        onnx.checker.check_model(model, full_check=True)
        verdict = "accepted by onnx.checker (full_check)"
    except Exception as e:  # noqa: BLE001 - report whatever the checker says
        verdict = "rejected by onnx.checker: " + str(e).strip().splitlines()[0][:120]
    save(model, out_dir, name, check=False)
    print(f"  {verdict}")
    return verdict


def bad_models(out_dir):
    verdicts = {}

    def qdq_pair(name, scale, zp_q, zp_dq=None):
        zp_dq = zp_q if zp_dq is None else zp_dq
        inits = {"s": scale, "zq": zp_q, "zd": zp_dq}
        nodes = [helper.make_node("QuantizeLinear", ["input", "s", "zq"], ["q"], name="/quant"),
                 helper.make_node("DequantizeLinear", ["q", "s", "zd"], ["output"], name="/dequant")]
        verdicts[name] = bad(out_dir, name, nodes, inits)

    qdq_pair("bad_zero_scale", np.array(0, F32), np.array(128, np.uint8))
    qdq_pair("bad_negative_scale", np.array(-0.05, F32), np.array(128, np.uint8))
    qdq_pair("bad_nan_scale", np.array(np.nan, F32), np.array(128, np.uint8))
    qdq_pair("bad_inf_scale", np.array(np.inf, F32), np.array(128, np.uint8))
    # Quantized as uint8, dequantized with an int8 zero point.
    qdq_pair("bad_zero_point_dtype", np.array(0.05, F32), np.array(128, np.uint8),
             np.array(0, np.int8))
    # A zero point of 300 for a "uint8" tensor can only be written as int32: not a Q/DQ type.
    qdq_pair("bad_zero_point_int32", np.array(0.05, F32), np.array(300, np.int32))

    def conv_weight(name, w_scale, w_zp, axis=0, b_zp=None, opset=13):
        rng = np.random.default_rng(800)
        inits = {"w": rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8), "ws": w_scale,
                 "wz": w_zp}
        attrs = {} if axis is None else {"axis": axis}
        nodes = [helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], name="/w/dequant",
                                  **attrs)]
        conv_in = ["input", "wf"]
        if b_zp is not None:
            inits.update(b=np.array([10, -20, 30, -40], np.int32), bs=np.full(4, 0.001, F32),
                         bz=b_zp)
            nodes.append(helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"],
                                          name="/b/dequant", axis=0))
            conv_in.append("bf")
        nodes.append(helper.make_node("Conv", conv_in, ["output"], name="/conv",
                                      kernel_shape=[3, 3]))
        verdicts[name] = bad(out_dir, name, nodes, inits,
                             inp=("input", TensorProto.FLOAT, [1, 3, 8, 8]),
                             out=("output", TensorProto.FLOAT, [1, 4, 6, 6]), opset=opset)

    conv_weight("bad_axis_scale_length", np.full(3, 0.01, F32), np.zeros(3, np.int8))
    conv_weight("bad_axis_zero_point_length", np.full(4, 0.01, F32), np.zeros(3, np.int8))
    conv_weight("bad_axis_out_of_range", np.full(4, 0.01, F32), np.zeros(4, np.int8), axis=4)
    conv_weight("bad_int32_bias_zero_point", np.full(4, 0.01, F32), np.zeros(4, np.int8),
                b_zp=np.array([0, 5, 0, 0], np.int32))
    # Opset 10's DequantizeLinear takes a scalar scale only.
    conv_weight("bad_opset10_per_axis", np.full(4, 0.01, F32), np.zeros(4, np.int8), axis=None,
                opset=10)

    rng = np.random.default_rng(801)
    nodes = [helper.make_node("Conv", ["input", "w"], ["output"], name="/conv", kernel_shape=[3, 3])]
    verdicts["bad_int8_input_no_scale"] = bad(
        out_dir, "bad_int8_input_no_scale", nodes,
        {"w": rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)},
        inp=("input", TensorProto.INT8, [1, 3, 8, 8]), out=("output", TensorProto.INT8, [1, 4, 6, 6]))
    return verdicts


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "onnx", "quant")
    os.makedirs(out_dir, exist_ok=True)
    self_test()
    qdq_conv_relu(out_dir)
    qdq_cnn_small(out_dir)
    qoperator_small(out_dir)
    qinteger_small(out_dir)
    dyn_quant_linear(out_dir)
    qdq_opset(out_dir, 10)
    qdq_opset(out_dir, 21)
    bad_models(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
