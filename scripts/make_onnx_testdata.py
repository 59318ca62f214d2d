#!/usr/bin/python3
"""Writes the small ONNX models under testdata/onnx/ that the tests use.

Run with Debian's interpreter and its python3-onnx and python3-numpy
packages (no PyTorch needed):

    /usr/bin/python3 scripts/make_onnx_testdata.py [OUT_DIR]

OUT_DIR defaults to testdata/onnx. Every file is deterministic (fixed seed):

- tiny_cnn.onnx: Conv(3->4, 3x3, pad 1) -> Relu -> MaxPool(2) -> Flatten
  -> Gemm(64->5), with PyTorch-style node names (/features/features.0/Conv)
  so the importer's module paths can be checked. tiny_cnn.input.npy is a
  fixed input and tiny_cnn.expected.npy the output computed here with plain
  numpy loops (an implementation independent of Glassbox's kernels).
- unsupported_op.onnx: uses Hardmax, which Glassbox does not import.
- dynamic_batch.onnx: its input has a symbolic batch dimension.
- tiny_embedding.onnx: an int64 [1, 6] input of token ids through Gather
  into a [50, 8] table and a mean over the tokens (a BERT-style embedding);
  tiny_embedding.{input,expected}.npy (the input as int64).
- tiny_transformer.onnx: two pre-norm transformer encoder layers (d_model
  16, 2 heads, MLP 32) written as PyTorch exports them at opset 14: the
  LayerNorm chain (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul,
  Add), MatMul + Add projections, Reshape/Transpose into heads,
  activation x activation MatMul, Softmax, the Erf form of GELU, with
  PyTorch-style node names (/layers.1/self_attn/MatMul). Its input and
  expected output (numpy in float64) are tiny_transformer.{input,expected}.npy.
- tiny_nd_conv.onnx: a video-shaped input [1, 2, 4, 6, 6] through a
  Conv3d (strided, padded), a rank-5 BatchNormalization, Relu, a 3-D
  AveragePool and GlobalMaxPool, and, reshaped to [1, 2, 144], through a
  grouped, dilated Conv1d, InstanceNormalization, a ceil-mode 1-D MaxPool
  and GlobalAveragePool; the two [1, 4] results concatenated. Its input and
  expected output (numpy loops in float64, its own seed) are
  tiny_nd_conv.{input,expected}.npy. Run the script with --only
  tiny_nd_conv to write just these files.
- tiny_detector.onnx (--only tiny_detector): a small SSD-style head and
  torchvision's postprocess_detections as opset 11 exports it (per-class
  threshold, NonZero, GatherND, TopK with a computed k, the class offsets,
  NonMaxSuppression, the cap), so its output's size follows the data.
  Two inputs with their outputs by plain numpy loops in float64:
  tiny_detector.{input,expected}.npy (the output at its bound) and
  tiny_detector.{input_few,expected_few}.npy (below it). The script
  checks that no score or IoU lies within 1e-3 of its threshold, so that
  float32 rounding cannot change a decision.
"""

import itertools
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
rng = np.random.default_rng(20261122)


def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, oc, h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1), dtype=np.float64)
    for o in range(oc):
        for i in range(out.shape[2]):
            for j in range(out.shape[3]):
                out[:, o, i, j] = (xp[:, :, i:i + kh, j:j + kw] * w[o]).sum(axis=(1, 2, 3)) + b[o]
    return out


def max_pool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)
    print(f"{path}: {os.path.getsize(path)} bytes")


def tiny_cnn(out_dir):
    w1 = rng.uniform(-0.5, 0.5, (4, 3, 3, 3)).astype(np.float32)
    b1 = rng.uniform(-0.1, 0.1, (4,)).astype(np.float32)
    w2 = rng.uniform(-0.3, 0.3, (5, 64)).astype(np.float32)
    b2 = rng.uniform(-0.1, 0.1, (5,)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["input", "features.0.weight", "features.0.bias"],
                         ["/features/features.0/Conv_output_0"], name="/features/features.0/Conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["/features/features.0/Conv_output_0"],
                         ["/features/features.1/Relu_output_0"], name="/features/features.1/Relu"),
        helper.make_node("MaxPool", ["/features/features.1/Relu_output_0"],
                         ["/pool/MaxPool_output_0"], name="/pool/MaxPool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["/pool/MaxPool_output_0"], ["/Flatten_output_0"],
                         name="/Flatten", axis=1),
        helper.make_node("Gemm", ["/Flatten_output_0", "fc.weight", "fc.bias"], ["logits"],
                         name="/fc/Gemm", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 5])],
        initializer=[numpy_helper.from_array(w1, "features.0.weight"),
                     numpy_helper.from_array(b1, "features.0.bias"),
                     numpy_helper.from_array(w2, "fc.weight"),
                     numpy_helper.from_array(b2, "fc.bias")])
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "tiny_cnn.onnx"))

    x = rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
    y = conv2d(x.astype(np.float64), w1, b1, 1)
    y = max_pool2(np.maximum(y, 0)).reshape(1, -1) @ w2.T.astype(np.float64) + b2
    np.save(os.path.join(out_dir, "tiny_cnn.input.npy"), x)
    np.save(os.path.join(out_dir, "tiny_cnn.expected.npy"), y.astype(np.float32))


def unsupported_op(out_dir):
    nodes = [helper.make_node("Hardmax", ["x"], ["y"], name="/act/Hardmax")]
    graph = helper.make_graph(
        nodes, "unsupported_op",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "unsupported_op.onnx"))


def dynamic_batch(out_dir):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="/act/Relu")]
    graph = helper.make_graph(
        nodes, "dynamic_batch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "dynamic_batch.onnx"))


def tiny_transformer(out_dir):
    gen = np.random.default_rng(20261123)
    d, heads, hidden, tokens = 16, 2, 32, 8
    head = d // heads
    nodes, inits = [], []
    ref = {}  # numpy values of initializers, by name

    def init(name, value):
        value = np.asarray(value, dtype=np.float32) if not isinstance(value, np.ndarray) else value
        inits.append(numpy_helper.from_array(value, name))
        ref[name] = value
        return name

    def node(op, inputs, scope, index="", **attrs):
        name = f"{scope}/{op}{index}"
        out = f"{name}_output_0"
        nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    init("two", np.float32(2.0))
    init("one", np.float32(1.0))
    init("half", np.float32(0.5))
    init("sqrt2", np.float32(np.sqrt(2.0)))
    init("eps", np.float32(1e-5))
    init("scale", np.float32(np.sqrt(head)))
    init("heads_shape", np.array([1, tokens, heads, head], dtype=np.int64))
    init("model_shape", np.array([1, tokens, d], dtype=np.int64))

    def layer_norm(x, scope, prefix):
        g = init(f"{prefix}.weight", gen.uniform(0.5, 1.5, d).astype(np.float32))
        b = init(f"{prefix}.bias", gen.uniform(-0.1, 0.1, d).astype(np.float32))
        mean = node("ReduceMean", [x], scope, axes=[-1])
        diff = node("Sub", [x, mean], scope)
        sq = node("Pow", [diff, "two"], scope)
        var = node("ReduceMean", [sq], scope, "_1", axes=[-1])
        ve = node("Add", [var, "eps"], scope)
        sd = node("Sqrt", [ve], scope)
        norm = node("Div", [diff, sd], scope)
        scaled = node("Mul", [norm, g], scope)
        return node("Add", [scaled, b], scope, "_1")

    def linear(x, scope, prefix, n_in, n_out, index=""):
        w = init(f"{prefix}.weight_t", gen.uniform(-0.4, 0.4, (n_in, n_out)).astype(np.float32))
        b = init(f"{prefix}.bias", gen.uniform(-0.1, 0.1, n_out).astype(np.float32))
        return node("Add", [node("MatMul", [x, w], scope, index), b], scope, index)

    x = "input"
    for layer in range(2):
        s = f"/layers.{layer}"
        p = f"layers.{layer}"
        h = layer_norm(x, f"{s}/norm1", f"{p}.norm1")
        qkv = []
        for i, which in enumerate("qkv"):
            t = linear(h, f"{s}/self_attn/{which}_proj", f"{p}.self_attn.{which}_proj", d, d)
            t = node("Reshape", [t, "heads_shape"], f"{s}/self_attn", f"_{i}")
            qkv.append(node("Transpose", [t], f"{s}/self_attn", f"_{i}", perm=[0, 2, 1, 3]))
        kt = node("Transpose", [qkv[1]], f"{s}/self_attn", "_k", perm=[0, 1, 3, 2])
        scores = node("Div", [node("MatMul", [qkv[0], kt], f"{s}/self_attn"), "scale"],
                      f"{s}/self_attn")
        probs = node("Softmax", [scores], f"{s}/self_attn", axis=-1)
        ctx = node("MatMul", [probs, qkv[2]], f"{s}/self_attn", "_1")
        ctx = node("Transpose", [ctx], f"{s}/self_attn", "_out", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "model_shape"], f"{s}/self_attn", "_out")
        attn = linear(ctx, f"{s}/self_attn/out_proj", f"{p}.self_attn.out_proj", d, d)
        x = node("Add", [x, attn], s)
        h = layer_norm(x, f"{s}/norm2", f"{p}.norm2")
        h = linear(h, f"{s}/linear1", f"{p}.linear1", d, hidden)
        erf = node("Erf", [node("Div", [h, "sqrt2"], f"{s}/activation")], f"{s}/activation")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, "one"], f"{s}/activation")],
                                 f"{s}/activation"), "half"], f"{s}/activation", "_1")
        h = linear(gelu, f"{s}/linear2", f"{p}.linear2", hidden, d)
        x = node("Add", [x, h], s, "_1")
    nodes.append(helper.make_node("Identity", [x], ["output"], name="/Identity"))
    graph = helper.make_graph(
        nodes, "tiny_transformer",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, tokens, d])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, tokens, d])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "tiny_transformer.onnx"))

    # The same computation in float64 numpy.
    def ln(v, prefix):
        mu = v.mean(-1, keepdims=True)
        var = ((v - mu) ** 2).mean(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-5) * ref[f"{prefix}.weight"] + ref[f"{prefix}.bias"]

    def lin(v, prefix):
        return v @ ref[f"{prefix}.weight_t"].astype(np.float64) + ref[f"{prefix}.bias"]

    from math import erf as erf_scalar
    verf = np.vectorize(erf_scalar)
    inp = gen.uniform(-1, 1, (1, tokens, d)).astype(np.float32)
    v = inp.astype(np.float64)
    for layer in range(2):
        p = f"layers.{layer}"
        h = ln(v, f"{p}.norm1")
        q, k, val = (lin(h, f"{p}.self_attn.{w}_proj").reshape(1, tokens, heads, head)
                     .transpose(0, 2, 1, 3) for w in "qkv")
        sc = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head)
        pr = np.exp(sc - sc.max(-1, keepdims=True))
        pr /= pr.sum(-1, keepdims=True)
        c = (pr @ val).transpose(0, 2, 1, 3).reshape(1, tokens, d)
        v = v + lin(c, f"{p}.self_attn.out_proj")
        h = lin(ln(v, f"{p}.norm2"), f"{p}.linear1")
        h = 0.5 * h * (1 + verf(h / np.sqrt(2.0)))
        v = v + lin(h, f"{p}.linear2")
    np.save(os.path.join(out_dir, "tiny_transformer.input.npy"), inp)
    np.save(os.path.join(out_dir, "tiny_transformer.expected.npy"), v.astype(np.float32))


def tiny_embedding(out_dir):
    gen = np.random.default_rng(20261124)
    table = gen.uniform(-1, 1, (50, 8)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["embeddings.weight", "input_ids"], ["/embeddings/Gather_output_0"],
                         name="/embeddings/Gather", axis=0),
        helper.make_node("ReduceMean", ["/embeddings/Gather_output_0"], ["pooled"],
                         name="/pool/ReduceMean", axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "tiny_embedding",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, 6])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, 8])],
        initializer=[numpy_helper.from_array(table, "embeddings.weight")])
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "tiny_embedding.onnx"))
    ids = np.array([[3, 49, 0, 17, 3, 42]], dtype=np.int64)
    np.save(os.path.join(out_dir, "tiny_embedding.input.npy"), ids)
    np.save(os.path.join(out_dir, "tiny_embedding.expected.npy"),
            table.astype(np.float64)[ids[0]].mean(axis=0, keepdims=True).astype(np.float32))


def conv_nd(x, w, b, strides, pads, dilations, group):
    """ONNX Conv of any spatial rank, by the definition, in float64."""
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[n + i]) for i in range(n)])
    out_sizes = [(xp.shape[2 + i] - dilations[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1
                 for i in range(n)]
    out = np.zeros((x.shape[0], w.shape[0], *out_sizes))
    cin, cout = w.shape[1], w.shape[0] // group
    for g in range(group):
        for k in itertools.product(*[range(s) for s in w.shape[2:]]):
            taps = tuple(slice(k[i] * dilations[i],
                               k[i] * dilations[i] + strides[i] * (out_sizes[i] - 1) + 1,
                               strides[i]) for i in range(n))
            patch = xp[(slice(None), slice(g * cin, (g + 1) * cin)) + taps]
            wk = w[(slice(g * cout, (g + 1) * cout), slice(None)) + k]
            out[:, g * cout:(g + 1) * cout] += np.einsum("nc...,oc->no...", patch, wk)
    return out + b.reshape((1, -1) + (1,) * n)


def pool_nd(x, kernel, strides, pads, avg, ceil_mode):
    """ONNX MaxPool / AveragePool (count_include_pad 0) of any spatial rank."""
    n = x.ndim - 2
    sizes = []
    for i in range(n):
        room = x.shape[2 + i] + pads[i] + pads[n + i] - kernel[i]
        size = (room + (strides[i] - 1 if ceil_mode else 0)) // strides[i] + 1
        if ceil_mode and (size - 1) * strides[i] >= x.shape[2 + i] + pads[i]:
            size -= 1
        sizes.append(size)
    out = np.zeros(x.shape[:2] + tuple(sizes))
    for o in itertools.product(*[range(s) for s in sizes]):
        window = tuple(slice(max(o[i] * strides[i] - pads[i], 0),
                             min(o[i] * strides[i] - pads[i] + kernel[i], x.shape[2 + i]))
                       for i in range(n))
        part = x[(slice(None), slice(None)) + window].reshape(x.shape[0], x.shape[1], -1)
        out[(slice(None), slice(None)) + o] = part.mean(axis=2) if avg else part.max(axis=2)
    return out


def tiny_nd_conv(out_dir):
    local = np.random.default_rng(20261128)  # its own seed: the other files stay as they are

    def uniform(lo, hi, shape):
        return local.uniform(lo, hi, shape).astype(np.float32)

    w3, b3 = uniform(-0.5, 0.5, (4, 2, 3, 3, 3)), uniform(-0.1, 0.1, (4,))
    bn = [uniform(0.5, 1.5, (4,)), uniform(-0.2, 0.2, (4,)), uniform(-0.3, 0.3, (4,)),
          uniform(0.5, 2.0, (4,))]  # scale, B, mean, var
    w1, b1 = uniform(-0.5, 0.5, (4, 1, 5)), uniform(-0.1, 0.1, (4,))
    in_scale, in_bias = uniform(0.5, 1.5, (4,)), uniform(-0.2, 0.2, (4,))
    conv3 = dict(kernel_shape=[3, 3, 3], strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1])
    pool3 = dict(kernel_shape=[2, 2, 2], strides=[2, 1, 1], pads=[0, 1, 0, 0, 0, 1])
    conv1 = dict(kernel_shape=[5], strides=[3], pads=[2, 1], dilations=[2], group=2)
    pool1 = dict(kernel_shape=[3], strides=[2], pads=[1, 1], ceil_mode=1)
    nodes = [
        helper.make_node("Conv", ["video", "video.conv.weight", "video.conv.bias"], ["v1"],
                         name="/video/conv/Conv", **conv3),
        helper.make_node("BatchNormalization", ["v1", "video.bn.weight", "video.bn.bias",
                                                "video.bn.running_mean", "video.bn.running_var"],
                         ["v2"], name="/video/bn/BatchNormalization"),
        helper.make_node("Relu", ["v2"], ["v3"], name="/video/relu/Relu"),
        helper.make_node("AveragePool", ["v3"], ["v4"], name="/video/pool/AveragePool", **pool3),
        helper.make_node("GlobalMaxPool", ["v4"], ["v5"], name="/video/gmp/GlobalMaxPool"),
        helper.make_node("Flatten", ["v5"], ["v6"], name="/video/Flatten", axis=1),
        helper.make_node("Reshape", ["video", "audio_shape"], ["a0"], name="/audio/Reshape"),
        helper.make_node("Conv", ["a0", "audio.conv.weight", "audio.conv.bias"], ["a1"],
                         name="/audio/conv/Conv", **conv1),
        helper.make_node("InstanceNormalization", ["a1", "audio.norm.weight", "audio.norm.bias"],
                         ["a2"], name="/audio/norm/InstanceNormalization"),
        helper.make_node("MaxPool", ["a2"], ["a3"], name="/audio/pool/MaxPool", **pool1),
        helper.make_node("GlobalAveragePool", ["a3"], ["a4"], name="/audio/gap/GlobalAveragePool"),
        helper.make_node("Flatten", ["a4"], ["a5"], name="/audio/Flatten", axis=1),
        helper.make_node("Concat", ["v6", "a5"], ["logits"], name="/Concat", axis=1),
    ]
    initializers = [
        numpy_helper.from_array(w3, "video.conv.weight"),
        numpy_helper.from_array(b3, "video.conv.bias"),
        numpy_helper.from_array(bn[0], "video.bn.weight"),
        numpy_helper.from_array(bn[1], "video.bn.bias"),
        numpy_helper.from_array(bn[2], "video.bn.running_mean"),
        numpy_helper.from_array(bn[3], "video.bn.running_var"),
        numpy_helper.from_array(np.array([1, 2, 144], dtype=np.int64), "audio_shape"),
        numpy_helper.from_array(w1, "audio.conv.weight"),
        numpy_helper.from_array(b1, "audio.conv.bias"),
        numpy_helper.from_array(in_scale, "audio.norm.weight"),
        numpy_helper.from_array(in_bias, "audio.norm.bias"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_nd_conv",
        [helper.make_tensor_value_info("video", TensorProto.FLOAT, [1, 2, 4, 6, 6])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 8])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "tiny_nd_conv.onnx"))

    x = local.uniform(-1, 1, (1, 2, 4, 6, 6)).astype(np.float32)
    f = [t.astype(np.float64) for t in (w3, b3, *bn, w1, b1, in_scale, in_bias)]
    w3d, b3d, scale, shift, mean, var, w1d, b1d, gamma, beta = f
    per_channel = (1, -1, 1, 1, 1)
    v = conv_nd(x.astype(np.float64), w3d, b3d, conv3["strides"], conv3["pads"], [1, 1, 1], 1)
    v = (v - mean.reshape(per_channel)) / np.sqrt(var.reshape(per_channel) + 1e-5)
    v = np.maximum(v * scale.reshape(per_channel) + shift.reshape(per_channel), 0)
    v = pool_nd(v, pool3["kernel_shape"], pool3["strides"], pool3["pads"], True, False)
    v = v.max(axis=(2, 3, 4))
    a = conv_nd(x.astype(np.float64).reshape(1, 2, 144), w1d, b1d, conv1["strides"],
                conv1["pads"], conv1["dilations"], conv1["group"])
    a = (a - a.mean(axis=2, keepdims=True)) / np.sqrt(a.var(axis=2, keepdims=True) + 1e-5)
    a = a * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1)
    a = pool_nd(a, pool1["kernel_shape"], pool1["strides"], pool1["pads"], False, True)
    a = a.mean(axis=2)
    np.save(os.path.join(out_dir, "tiny_nd_conv.input.npy"), x)
    np.save(os.path.join(out_dir, "tiny_nd_conv.expected.npy"),
            np.concatenate([v, a], axis=1).astype(np.float32))


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_ref(x, w, r, b):
    """ONNX LSTM, one forward direction, x [T, N, I] in float64: Y [T, 1, N, H]."""
    hidden = r.shape[-1]
    h = np.zeros((x.shape[1], hidden))
    c = np.zeros_like(h)
    ys = []
    for t in range(x.shape[0]):
        g = x[t] @ w[0].T + h @ r[0].T + b[0, :4 * hidden] + b[0, 4 * hidden:]
        i, o, f, cand = (g[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(cand)
        h = sigmoid(o) * np.tanh(c)
        ys.append(h)
    return np.stack(ys)[:, None]


def gru_ref(x, w, r, b, reverse):
    """ONNX GRU with linear_before_reset = 1 (PyTorch's), one direction: Y_h [N, H]."""
    hidden = r.shape[-1]
    h = np.zeros((x.shape[1], hidden))
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in steps:
        gx = x[t] @ w.T + b[:3 * hidden]
        gh = h @ r.T + b[3 * hidden:]
        z = sigmoid(gx[:, :hidden] + gh[:, :hidden])
        rr = sigmoid(gx[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
        cand = np.tanh(gx[:, 2 * hidden:] + rr * gh[:, 2 * hidden:])
        h = (1 - z) * cand + z * h
    return h


def tiny_recurrent(out_dir):
    """tiny_kws: a 2-layer LSTM keyword spotter; tiny_gru: a bidirectional GRU."""
    local = np.random.default_rng(20261129)  # its own seed: the other files stay as they are

    def uniform(lo, hi, shape):
        return local.uniform(lo, hi, shape).astype(np.float32)

    steps, feats, hidden, words = 8, 10, 12, 4
    w1, r1, b1 = uniform(-0.4, 0.4, (1, 48, feats)), uniform(-0.4, 0.4, (1, 48, hidden)), \
        uniform(-0.2, 0.2, (1, 96))
    w2, r2, b2 = uniform(-0.4, 0.4, (1, 48, hidden)), uniform(-0.4, 0.4, (1, 48, hidden)), \
        uniform(-0.2, 0.2, (1, 96))
    fc_w, fc_b = uniform(-0.5, 0.5, (words, hidden)), uniform(-0.1, 0.1, (words,))
    nodes = [
        helper.make_node("LSTM", ["mfcc", "lstm.weight_ih_l0", "lstm.weight_hh_l0",
                                  "lstm.bias_l0"], ["l0_y"], name="/lstm/LSTM", hidden_size=hidden),
        helper.make_node("Reshape", ["l0_y", "seq_shape"], ["l0_seq"], name="/lstm/Reshape"),
        helper.make_node("LSTM", ["l0_seq", "lstm.weight_ih_l1", "lstm.weight_hh_l1",
                                  "lstm.bias_l1"], ["", "l1_h", "l1_c"], name="/lstm/LSTM_1",
                         hidden_size=hidden),
        helper.make_node("Reshape", ["l1_h", "h_shape"], ["last"], name="/Reshape"),
        helper.make_node("Gemm", ["last", "fc.weight", "fc.bias"], ["logits"], name="/fc/Gemm",
                         transB=1),
    ]
    initializers = [
        numpy_helper.from_array(w1, "lstm.weight_ih_l0"),
        numpy_helper.from_array(r1, "lstm.weight_hh_l0"),
        numpy_helper.from_array(b1, "lstm.bias_l0"),
        numpy_helper.from_array(np.array([steps, 1, hidden], dtype=np.int64), "seq_shape"),
        numpy_helper.from_array(w2, "lstm.weight_ih_l1"),
        numpy_helper.from_array(r2, "lstm.weight_hh_l1"),
        numpy_helper.from_array(b2, "lstm.bias_l1"),
        numpy_helper.from_array(np.array([1, hidden], dtype=np.int64), "h_shape"),
        numpy_helper.from_array(fc_w, "fc.weight"),
        numpy_helper.from_array(fc_b, "fc.bias"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_kws",
        [helper.make_tensor_value_info("mfcc", TensorProto.FLOAT, [steps, 1, feats])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, words])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "tiny_kws.onnx"))
    x = local.uniform(-1, 1, (steps, 1, feats)).astype(np.float32)
    f64 = [t.astype(np.float64) for t in (w1, r1, b1, w2, r2, b2, fc_w, fc_b)]
    y0 = lstm_ref(x.astype(np.float64), *f64[0:3])
    y1 = lstm_ref(y0.reshape(steps, 1, hidden), *f64[3:6])
    logits = y1[-1, 0] @ f64[6].T + f64[7]
    np.save(os.path.join(out_dir, "tiny_kws.input.npy"), x)
    np.save(os.path.join(out_dir, "tiny_kws.expected.npy"), logits.astype(np.float32))

    steps, batch, feats, hidden = 6, 2, 5, 4
    w, r, b = uniform(-0.5, 0.5, (2, 12, feats)), uniform(-0.5, 0.5, (2, 12, hidden)), \
        uniform(-0.2, 0.2, (2, 24))
    nodes = [
        helper.make_node("GRU", ["x", "gru.weight", "gru.recurrence", "gru.bias"], ["", "h"],
                         name="/gru/GRU", hidden_size=hidden, direction="bidirectional",
                         linear_before_reset=1),
        helper.make_node("Transpose", ["h"], ["h_t"], name="/Transpose", perm=[1, 0, 2]),
        helper.make_node("Reshape", ["h_t", "out_shape"], ["features"], name="/Reshape"),
    ]
    initializers = [
        numpy_helper.from_array(w, "gru.weight"),
        numpy_helper.from_array(r, "gru.recurrence"),
        numpy_helper.from_array(b, "gru.bias"),
        numpy_helper.from_array(np.array([batch, 2 * hidden], dtype=np.int64), "out_shape"),
    ]
    graph = helper.make_graph(
        nodes, "tiny_gru",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, batch, feats])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, [batch, 2 * hidden])],
        initializer=initializers)
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 7
    save(model, os.path.join(out_dir, "tiny_gru.onnx"))
    x = local.uniform(-1, 1, (steps, batch, feats)).astype(np.float32)
    xd = x.astype(np.float64)
    fwd = gru_ref(xd, w[0].astype(np.float64), r[0].astype(np.float64), b[0].astype(np.float64),
                  False)
    bwd = gru_ref(xd, w[1].astype(np.float64), r[1].astype(np.float64), b[1].astype(np.float64),
                  True)
    np.save(os.path.join(out_dir, "tiny_gru.input.npy"), x)
    np.save(os.path.join(out_dir, "tiny_gru.expected.npy"),
            np.concatenate([fwd, bwd], axis=1).astype(np.float32))


def nms_ref(boxes, scores, iou_threshold):
    """ONNX NonMaxSuppression for one batch and one class, float64: the kept
    indices, highest score first (IoU > threshold suppresses; corners in
    either order; a box with no area overlaps nothing)."""
    def iou(a, b):
        ax1, ax2 = sorted((a[0], a[2]))
        ay1, ay2 = sorted((a[1], a[3]))
        bx1, bx2 = sorted((b[0], b[2]))
        by1, by2 = sorted((b[1], b[3]))
        area_a = (ax2 - ax1) * (ay2 - ay1)
        area_b = (bx2 - bx1) * (by2 - by1)
        if area_a <= 0 or area_b <= 0:
            return 0.0
        inter = max(0.0, min(ax2, bx2) - max(ax1, bx1)) * max(0.0, min(ay2, by2) - max(ay1, by1))
        return inter / (area_a + area_b - inter)

    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    kept, ious = [], []
    for i in order:
        overlaps = [iou(boxes[i], boxes[k]) for k in kept]
        ious.extend(overlaps)
        if all(v <= iou_threshold for v in overlaps):
            kept.append(i)
    return kept, ious


def tiny_detector(out_dir):
    """An SSD-style head and torchvision's postprocess_detections as opset 11 exports it."""
    local = np.random.default_rng(20261130)  # its own seed: the other files stay as they are
    grid, classes, size = 8, 4, 5.0  # 64 anchors (one per cell), class 0 background
    anchors_n = grid * grid
    score_thresh, topk_candidates, iou_thresh, detections = 0.5, 5, 0.3, 6
    cls_w = local.uniform(-1.5, 1.5, (classes, 3, 3, 3)).astype(np.float32)
    cls_b = np.array([0.5, 0.0, 0.0, -2.5], dtype=np.float32)
    reg_w = local.uniform(-0.1, 0.1, (4, 3, 3, 3)).astype(np.float32)
    reg_b = np.zeros(4, dtype=np.float32)
    # Anchors [x1, y1, x2, y2]: a size-5 box centred on each cell, so that
    # neighbours overlap (IoU 2/3) before the offsets move them.
    centres = [(j + 0.5, i + 0.5) for i in range(grid) for j in range(grid)]
    anchors = np.array([[cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2]
                        for cx, cy in centres], dtype=np.float32)

    nodes, inits = [], []
    consts = {}

    def const(value, dtype):
        value = np.asarray(value, dtype=dtype)
        key = (value.dtype.str, value.shape, value.tobytes())
        if key not in consts:
            name = f"const_{len(consts)}"
            inits.append(numpy_helper.from_array(value, name))
            consts[key] = name
        return consts[key]

    def i64(*values):
        return const(list(values), np.int64)

    counts = {}

    def node(op, inputs, scope="/postprocess", outputs=1, **attrs):
        n = counts.get((scope, op), 0)
        counts[(scope, op)] = n + 1
        name = f"{scope}/{op}" + (f"_{n}" if n else "")
        outs = [f"{name}_output_{k}" for k in range(outputs)]
        nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    inits += [numpy_helper.from_array(cls_w, "head.cls.weight"),
              numpy_helper.from_array(cls_b, "head.cls.bias"),
              numpy_helper.from_array(reg_w, "head.reg.weight"),
              numpy_helper.from_array(reg_b, "head.reg.bias"),
              numpy_helper.from_array(anchors, "anchors")]
    # The head: per-cell class logits and box offsets, as [1, 64, K] / [1, 64, 4].
    logits = node("Conv", ["x", "head.cls.weight", "head.cls.bias"], "/head/cls",
                  kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    logits = node("Transpose", [logits], "/head/cls", perm=[0, 2, 3, 1])
    logits = node("Reshape", [logits, i64(1, anchors_n, classes)], "/head/cls")
    offsets = node("Conv", ["x", "head.reg.weight", "head.reg.bias"], "/head/reg",
                   kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    offsets = node("Transpose", [offsets], "/head/reg", perm=[0, 2, 3, 1])
    offsets = node("Reshape", [offsets, i64(1, anchors_n, 4)], "/head/reg")
    # Scores [64, K] and decoded boxes [64, 4], clipped to the image.
    probs = node("Softmax", [logits], axis=2)
    scores = node("Squeeze", [node("Split", [probs], axis=0, split=[1])], axes=[0])
    deltas = node("Squeeze", [node("Split", [offsets], axis=0, split=[1])], axes=[0])
    boxes = node("Add", ["anchors", node("Mul", [deltas, const(2.0, np.float32)])])
    boxes = node("Min", [node("Max", [boxes, const(0.0, np.float32)]),
                         const(float(grid), np.float32)])

    # postprocess_detections: per class, threshold, top-k, label.
    class_boxes, class_scores, class_labels = [], [], []
    for c in range(1, classes):
        s = node("Gather", [scores, const(c, np.int64)], axis=1)
        keep = node("Greater", [s, const(score_thresh, np.float32)])
        idx = node("Transpose", [node("NonZero", [keep])], perm=[1, 0])
        s = node("GatherND", [s, idx])
        idx_b = node("Transpose", [node("NonZero", [keep])], perm=[1, 0])
        b = node("GatherND", [boxes, idx_b])
        n = node("Unsqueeze", [node("Gather", [node("Shape", [s]), const(0, np.int64)], axis=0)],
                 axes=[0])
        k = node("ReduceMin", [node("Concat", [i64(topk_candidates), n], axis=0)], keepdims=0)
        k = node("Reshape", [k, i64(1)])
        values, order = node("TopK", [s, k], outputs=2, axis=-1, largest=1, sorted=1)
        class_boxes.append(node("Gather", [b, order], axis=0))
        class_scores.append(values)
        class_labels.append(node("ConstantOfShape", [node("Shape", [values])],
                                 value=numpy_helper.from_array(np.array([c], dtype=np.int64))))
    all_boxes = node("Concat", class_boxes, axis=0)
    all_scores = node("Concat", class_scores, axis=0)
    all_labels = node("Concat", class_labels, axis=0)
    # batched_nms's offsets: each class's boxes moved past the others'.
    flat_shape = node("Concat", [node("Slice", [node("Shape", [all_boxes]), i64(0), i64(0),
                                                i64(0)]), i64(-1)], axis=0)
    flat = node("Reshape", [all_boxes, flat_shape])
    top = node("ReduceMax", [node("Concat", [flat, const([0.0], np.float32)], axis=0)],
               keepdims=0)
    shift = node("Mul", [node("Cast", [all_labels], to=TensorProto.FLOAT),
                         node("Add", [top, const(1.0, np.float32)])])
    shifted = node("Add", [all_boxes, node("Unsqueeze", [shift], axes=[1])])
    nms = node("NonMaxSuppression",
               [node("Unsqueeze", [shifted], axes=[0]),
                node("Unsqueeze", [node("Unsqueeze", [all_scores], axes=[0])], axes=[0]),
                i64(np.iinfo(np.int64).max), const([iou_thresh], np.float32)])
    picked = node("Squeeze", [node("Gather", [nms, i64(2)], axis=1)], axes=[1])
    picked = node("Slice", [picked, i64(0), i64(detections), i64(0), i64(1)])
    out_boxes = node("Gather", [all_boxes, picked], axis=0)
    out_scores = node("Gather", [all_scores, picked], axis=0)
    out_labels = node("Gather", [all_labels, picked], axis=0)
    out_labels = node("Cast", [node("Unsqueeze", [out_labels], "/detect", axes=[1])], "/detect",
                      to=TensorProto.FLOAT)
    nodes.append(helper.make_node(
        "Concat", [out_boxes, node("Unsqueeze", [out_scores], "/detect", axes=[1]), out_labels],
        ["detections"], name="/detect/Concat", axis=1))
    graph = helper.make_graph(
        nodes, "tiny_detector",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, grid, grid])],
        [helper.make_tensor_value_info("detections", TensorProto.FLOAT, ["num_detections", 6])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="glassbox make_onnx_testdata.py",
                              opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    save(model, os.path.join(out_dir, "tiny_detector.onnx"))

    # The same in float64 with plain loops.
    def detect(x):
        xd = x.astype(np.float64)
        lg = conv2d(xd, cls_w.astype(np.float64), cls_b, 1)[0].transpose(1, 2, 0)
        lg = lg.reshape(-1, classes)
        pr = np.exp(lg - lg.max(axis=1, keepdims=True))
        pr /= pr.sum(axis=1, keepdims=True)
        dl = conv2d(xd, reg_w.astype(np.float64), reg_b, 1)[0].transpose(1, 2, 0).reshape(-1, 4)
        bx = np.clip(anchors.astype(np.float64) + dl * 2.0, 0, grid)
        cand = []  # (box, score, label), per class by score
        for c in range(1, classes):
            above = [i for i in range(anchors_n) if pr[i, c] > score_thresh]
            margin = min(abs(pr[i, c] - score_thresh) for i in range(anchors_n))
            assert margin > 1e-3, f"class {c}: a score within {margin} of the threshold"
            best = sorted(above, key=lambda i: -pr[i, c])[:topk_candidates]
            print(f"tiny_detector: class {c}: {len(above)} above {score_thresh}, kept {len(best)}")
            cand += [(bx[i], pr[i, c], c) for i in best]
        top_coord = max([0.0] + [float(v) for b, _, _ in cand for v in b])
        shifted = [b + lab * (top_coord + 1) for b, _, lab in cand]
        kept, ious = nms_ref(shifted, [s for _, s, _ in cand], iou_thresh)
        near = min((abs(v - iou_thresh) for v in ious), default=1.0)
        assert near > 1e-3, f"an IoU within {near} of the threshold"
        ss = sorted(s for _, s, _ in cand)
        assert all(b - a > 1e-5 for a, b in zip(ss, ss[1:])), "two candidates' scores tie"
        print(f"tiny_detector: {len(cand)} candidates, NMS keeps {len(kept)} "
              f"({sum(v > iou_thresh for v in ious)} overlaps suppress), "
              f"output {min(len(kept), detections)}")
        rows = [list(cand[i][0]) + [cand[i][1], cand[i][2]] for i in kept[:detections]]
        out = np.array(rows, dtype=np.float64).reshape(-1, 6).astype(np.float32)
        return out, len(cand), len(kept)

    # The first input: a class under the top-k cap, NMS dropping boxes and
    # more survivors than the detection cap (the output at its bound).
    x = local.uniform(-1, 1, (1, 3, grid, grid)).astype(np.float32)
    y, n_cand, n_kept = detect(x)
    assert n_cand < topk_candidates * (classes - 1) and detections < n_kept < n_cand
    np.save(os.path.join(out_dir, "tiny_detector.input.npy"), x)
    np.save(os.path.join(out_dir, "tiny_detector.expected.npy"), y)
    # The second, the first dimmed: fewer detections than the cap, so the
    # output is smaller than its bound.
    x = (x * np.float32(0.3)).astype(np.float32)
    y, n_cand, n_kept = detect(x)
    assert 0 < n_kept < detections
    np.save(os.path.join(out_dir, "tiny_detector.input_few.npy"), x)
    np.save(os.path.join(out_dir, "tiny_detector.expected_few.npy"), y)

def main():
    args = sys.argv[1:]
    only = None
    if args[:1] == ["--only"] and len(args) >= 2:
        only, args = args[1], args[2:]
    out_dir = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "onnx")
    os.makedirs(out_dir, exist_ok=True)
    if only is not None:
        makers = {"tiny_nd_conv": tiny_nd_conv, "tiny_recurrent": tiny_recurrent,
                  "tiny_detector": tiny_detector}
        if only not in makers:
            print(f"make_onnx_testdata.py: --only takes {', '.join(makers)}, got {only}",
                  file=sys.stderr)
            return 2
        makers[only](out_dir)
        return 0
    tiny_cnn(out_dir)
    unsupported_op(out_dir)
    dynamic_batch(out_dir)
    tiny_transformer(out_dir)
    tiny_embedding(out_dir)
    tiny_nd_conv(out_dir)
    tiny_recurrent(out_dir)
    tiny_detector(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
