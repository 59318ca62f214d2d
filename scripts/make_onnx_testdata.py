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
"""

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


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "onnx")
    os.makedirs(out_dir, exist_ok=True)
    tiny_cnn(out_dir)
    unsupported_op(out_dir)
    dynamic_batch(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
