#!/usr/bin/python3
"""Exports int8 models for the zoo: QDQ resnet18 and mobilenet_v2, a dynamically quantized encoder.

Run with Debian's interpreter and packages (python3-torch 1.13,
python3-torchvision, python3-onnx; `make models` runs it):

    /usr/bin/python3 scripts/export_quantized.py [OUT_DIR] [--models a,b]

OUT_DIR defaults to ~/.cache/glassbox/models. For each model NAME it writes
NAME.onnx, NAME.input.npy and NAME.expected.npy and the float twin (the same
weights before quantization) NAME_float.onnx with NAME_float.input.npy (the
same input) and NAME_float.expected.npy (its float output).

- resnet18_int8, mobilenet_v2_int8: torchvision's models with the zoo's
  informative random weights (export_torchvision.build) and every BatchNorm
  then rescaled, in forward order, to zero mean and unit variance per channel
  on random data (untrained MobileNetV2 activations otherwise drift to ranges
  where 8 bits keep nothing). Post-training static quantization in FX graph
  mode: prepare_fx with get_default_qconfig_mapping("qnnpack") (uint8
  activations, HistogramObserver, no reduce_range) whose weight observers
  are made per-channel symmetric int8, calibrated on 4 random batches of 2,
  convert_fx, torch.onnx.export at opset 13. The exporter writes QDQ:
  QuantizeLinear -> Cast -> DequantizeLinear around float Conv/Gemm/Add/Clip,
  int8 weights and int32 biases as Constant nodes behind DequantizeLinear
  (axis 0, per channel). Input 1x3x224x224, output "logits" 1x1000.
  NAME.expected.npy is PyTorch's fake-quant output: convert_to_reference_fx
  of the same calibrated model (every activation and weight quantized and
  dequantized, float arithmetic between): what the QDQ file means, but for
  the biases, which PyTorch keeps in float and the file stores as int32.
  NAME.output_step holds the scale of the output's DequantizeLinear, and
  NAME.tolerance_steps (written when ONNX Runtime ran, see below) ONNX
  Runtime's distance from NAME.expected.npy in those steps plus one: the
  tolerance scripts/zoo_expect.sh gives the model.
- encoder_dynint8: torch.nn.TransformerEncoder (2 layers, d_model 64, 4 heads,
  feed-forward 128, ReLU, batch_first=False: input 16x1x64) dynamically
  quantized with torch.ao.quantization.quantize_dynamic({nn.Linear}, qint8).
  PyTorch 1.13 cannot export that (torch.onnx.export fails: "Type
  'Tuple[Tensor, NoneType, NoneType]' cannot be traced", the packed dynamic
  Linear's state), so the file is the float model's export with each Linear
  that quantize_dynamic quantized (linear1 and linear2 of each layer; the
  attention's projections stay float there too) rewritten as ONNX Runtime's
  dynamic quantization writes it: DynamicQuantizeLinear -> MatMulInteger
  (PyTorch's int8 weights, transposed) -> Cast -> Mul by (x_scale * w_scale)
  -> the exporter's Add of the bias. batch_first=False because with
  batch_first=True PyTorch 1.13's encoder fast path fails on quantized
  Linear modules in eval mode.

Every file is checked with onnx.checker. Debian's onnx (1.12) has no
onnx.reference.ReferenceEvaluator; when node and onnxruntime-node are
available (bench/ort: `npm ci --ignore-scripts`), each model also runs on
ONNX Runtime and the largest difference from PyTorch's output is printed (in
output quantization steps for the QDQ models).

What to expect (measured with onnxruntime-node 1.20.1): the float twins
match PyTorch to 3e-6 and 5e-6, encoder_dynint8 matches PyTorch's dynamically
quantized model to 1.2e-6 (the same arithmetic). The QDQ CNNs keep 27.8 dB
(resnet18_int8) and 12.4 dB (mobilenet_v2_int8) SQNR against their float
twins. ONNX Runtime is 3 and 25 output steps from PyTorch's fake-quant output,
and PyTorch's own qnnpack int8 kernels 4 and 52, though neither is wrong:
PyTorch's float convolution is itself about 2e-5 relative off the exact
result (on mobilenet_v2_int8's first convolution, 311 of 401,408 outputs
quantize a step away from the float64 result where ONNX Runtime's match it
exactly; 285 with the biases rounded to the file's int32 grid), and
MobileNet v2's depthwise layers turn a one-step difference of their input
into several steps of their output.
"""

import argparse
import collections
import copy
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from torch.ao.quantization import QConfig, get_default_qconfig_mapping
from torch.ao.quantization.observer import HistogramObserver, default_per_channel_weight_observer
from torch.ao.quantization.quantize_fx import convert_fx, convert_to_reference_fx, prepare_fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_torchvision  # noqa: E402

SEED = 0
QENGINE = "qnnpack"
OPSET = 13
MODELS = ["resnet18_int8", "mobilenet_v2_int8", "encoder_dynint8"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ORT_RUN = r"""
const fs = require('fs');
const ort = require(process.argv[2]);
function readNpy(p) {
  const b = fs.readFileSync(p), hl = b.readUInt16LE(8), h = b.toString('latin1', 10, 10 + hl);
  const shape = h.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const ab = b.buffer.slice(b.byteOffset + 10 + hl, b.byteOffset + b.length);
  return new ort.Tensor('float32', new Float32Array(ab), shape);
}
(async () => {
  const s = await ort.InferenceSession.create(process.argv[3], {executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1});
  const r = await s.run({[s.inputNames[0]]: readNpy(process.argv[4])});
  fs.writeFileSync(process.argv[5], Buffer.from(r[s.outputNames[0]].data.buffer));
})().catch((e) => { console.error(e.message); process.exit(1); });
"""


def save_pair(out_dir, name, x, y):
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".expected.npy"), y.numpy().astype(np.float32))


def op_counts(path):
    return dict(collections.Counter(n.op_type for n in onnx.load(path).graph.node).most_common())


def output_step(model):
    """The scale of the DequantizeLinear that writes the graph output (None if another op)."""
    out = model.graph.output[0].name
    consts = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        elif n.op_type == "Identity" and n.input[0] in consts:
            consts[n.output[0]] = consts[n.input[0]]
    for n in model.graph.node:
        if out in n.output and n.op_type == "DequantizeLinear":
            return float(consts[n.input[1]])
    return None


def ort_check(path, name, out_dir):
    """ONNX Runtime's output (when node and onnxruntime-node exist) against NAME.expected.npy: a line
    to print and, for a model whose output a DequantizeLinear writes, the largest difference in output
    steps (None otherwise)."""
    ort = os.path.join(ROOT, "bench", "ort", "node_modules", "onnxruntime-node")
    ort = os.environ.get("GLASSBOX_ORT_NODE", ort)
    if not os.path.isdir(ort):
        return "ONNX Runtime check skipped (no bench/ort/node_modules)", None
    expected = np.load(os.path.join(out_dir, name + ".expected.npy"))
    with tempfile.TemporaryDirectory() as tmp:
        script, got = os.path.join(tmp, "run.js"), os.path.join(tmp, "out.bin")
        with open(script, "w") as f:
            f.write(ORT_RUN)
        subprocess.run(["node", script, os.path.abspath(ort), path,
                        os.path.join(out_dir, name + ".input.npy"), got], check=True)
        y = np.fromfile(got, np.float32).reshape(expected.shape)
    err = float(np.abs(y - expected).max())
    text = f"ONNX Runtime vs PyTorch: max |diff| {err:.4g} (output max |y| {np.abs(expected).max():.3g}"
    step = output_step(onnx.load(path))
    if not step:
        return text + ")", None
    steps = np.rint(np.abs(y - expected) / step)
    text += f"; {err / step:.2f} output steps of {step:.4g}, {int((steps > 0).sum())} of " \
            f"{y.size} outputs differ, {int((steps > 1).sum())} by more than one step)"
    return text, err / step


def normalize_batch_norms(model, x):
    """Rescales each BatchNorm, in forward order, to zero mean and unit variance per channel on x."""
    for bn in [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]:
        seen = {}
        # A clone: the ReLU6 after the BatchNorm is in place, and the statistics must be the BN's own.
        hook = bn.register_forward_hook(lambda m, i, o: seen.__setitem__("y", o.detach().clone()))
        with torch.no_grad():
            model(x)
            y = seen["y"].transpose(0, 1).reshape(seen["y"].shape[1], -1)
            std = y.std(dim=1).clamp_min(1e-3)
            bn.bias.sub_(y.mean(dim=1)).div_(std)
            bn.weight.div_(std)
        hook.remove()
    return model


def qconfig_mapping():
    """qnnpack's default mapping (uint8 activations, HistogramObserver, no reduce_range) with
    per-channel symmetric int8 weights everywhere it used the default per-tensor ones."""
    mapping = get_default_qconfig_mapping("qnnpack")
    default = mapping.global_qconfig
    per_channel = QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                          weight=default_per_channel_weight_observer)
    for key, qconfig in list(mapping.object_type_qconfigs.items()):
        if qconfig == default:
            mapping.set_object_type(key, per_channel)
    return mapping.set_global(per_channel)


def export_static(name, out_dir):
    base = name[:-len("_int8")]
    model, x = export_torchvision.build(base)
    gen = torch.Generator().manual_seed(SEED + 2)
    normalize_batch_norms(model, torch.rand(4, 3, 224, 224, generator=gen))
    with torch.no_grad():
        y_float = model(x)
    float_path = os.path.join(out_dir, name + "_float.onnx")
    torch.onnx.export(model, x, float_path, opset_version=OPSET, input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    save_pair(out_dir, name + "_float", x, y_float)

    prepared = prepare_fx(copy.deepcopy(model), qconfig_mapping(), example_inputs=(x,))
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.rand(2, 3, 224, 224, generator=gen))
    # The fake-quant output: the reference model quantizes and dequantizes every activation and
    # weight and computes in float, which is what the QDQ graph means.
    reference = convert_to_reference_fx(copy.deepcopy(prepared))
    quantized = convert_fx(prepared)
    with torch.no_grad():
        y = reference(x)
        y_engine = quantized(x)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(quantized, x, path, opset_version=OPSET, input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    save_pair(out_dir, name, x, y)
    step = output_step(onnx.load(path))
    with open(os.path.join(out_dir, name + ".output_step"), "w") as f:
        f.write(f"{step!r}\n")
    sqnr = 10 * torch.log10((y_float ** 2).sum() / ((y - y_float) ** 2).sum()).item()
    engine = (y_engine - y).abs().max().item() / step
    return [(name, path, f"int8 vs float twin: SQNR {sqnr:.1f} dB; PyTorch's {QENGINE} int8 kernels "
             f"vs its fake-quant output: {engine:.0f} output steps of {step:.4g}"),
            (name + "_float", float_path, "")]


def export_dynamic(name, out_dir):
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128)
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    # The layers are copies of one: give each its own weights (else the exporter shares them).
    gen = torch.Generator().manual_seed(SEED + 3)
    with torch.no_grad():
        for pname, param in model.named_parameters():
            if param.dim() == 2:
                param.normal_(0.0, param.shape[1] ** -0.5, generator=gen)
            elif "norm" in pname and pname.endswith("weight"):
                param.uniform_(0.5, 1.5, generator=gen)
            else:
                param.uniform_(-0.1, 0.1, generator=gen)
    x = torch.rand(16, 1, 64, generator=torch.Generator().manual_seed(SEED))
    with torch.no_grad():
        y_float = model(x)
    quantized = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    with torch.no_grad():
        y = quantized(x)
    path = os.path.join(out_dir, name + ".onnx")
    float_path = os.path.join(out_dir, name + "_float.onnx")
    try:
        torch.onnx.export(quantized, x, path, opset_version=OPSET, input_names=["input"],
                          output_names=["logits"])
        note = "exported by torch.onnx.export"
    except RuntimeError as e:
        note = f"torch.onnx.export failed ({str(e).splitlines()[0][:110]}); rewritten by hand"
        torch.onnx.export(model, x, float_path, opset_version=OPSET, input_names=["input"],
                          output_names=["logits"], do_constant_folding=True)
        rewrite_dynamic(float_path, path, quantized)
    if not os.path.exists(float_path):
        torch.onnx.export(model, x, float_path, opset_version=OPSET, input_names=["input"],
                          output_names=["logits"], do_constant_folding=True)
    save_pair(out_dir, name, x, y)
    save_pair(out_dir, name + "_float", x, y_float)
    rel = (y - y_float).abs().max().item() / y_float.abs().max().item()
    note += f"; int8 vs float twin: max |diff| / max |y| = {rel:.3f}"
    return [(name, path, note), (name + "_float", float_path, "")]


def rewrite_dynamic(float_path, path, quantized):
    """ONNX Runtime's dynamic quantization of the MatMuls of the Linears quantize_dynamic quantized,
    with PyTorch's int8 weights: DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul."""
    model = onnx.load(float_path)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    linears = {mod_name: mod for mod_name, mod in quantized.named_modules()
               if type(mod).__name__ == "Linear" and type(mod).__module__.endswith("dynamic.modules.linear")}
    nodes = []
    for node in graph.node:
        scope = node.name.rsplit("/", 1)[0]  # /layers.0/linear1
        mod = linears.get(scope.strip("/").replace("/", "."))
        if node.op_type != "MatMul" or mod is None or node.input[1] not in inits:
            nodes.append(node)
            continue
        w = mod.weight()  # qint8 [out, in], per tensor symmetric
        assert w.qscheme() == torch.per_tensor_affine and w.q_zero_point() == 0
        key = scope.strip("/").replace("/", ".")
        wq = numpy_helper.from_array(np.ascontiguousarray(w.int_repr().numpy().T), key + ".weight_quantized")
        ws = numpy_helper.from_array(np.array(w.q_scale(), np.float32), key + ".weight_scale")
        wz = numpy_helper.from_array(np.array(0, np.int8), key + ".weight_zero_point")
        graph.initializer.extend([wq, ws, wz])
        graph.initializer.remove(inits[node.input[1]])
        p = scope + "/"
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [node.input[0]],
                             [p + "x_quantized", p + "x_scale", p + "x_zero_point"],
                             name=p + "DynamicQuantizeLinear"),
            helper.make_node("MatMulInteger", [p + "x_quantized", wq.name, p + "x_zero_point", wz.name],
                             [p + "MatMulInteger_output_0"], name=p + "MatMulInteger"),
            helper.make_node("Cast", [p + "MatMulInteger_output_0"], [p + "Cast_output_0"],
                             name=p + "Cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "x_scale", ws.name], [p + "scale_output_0"],
                             name=p + "Mul_scale"),
            helper.make_node("Mul", [p + "Cast_output_0", p + "scale_output_0"], [node.output[0]],
                             name=p + "Mul_rescale"),
        ]
    assert len(nodes) > len(graph.node), "no Linear MatMul found to rewrite"
    del graph.node[:]
    graph.node.extend(nodes)
    model.producer_name = "glassbox export_quantized.py (dynamic quantization by hand)"
    onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?",
                        default=os.path.expanduser("~/.cache/glassbox/models"))
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = QENGINE
    for name in args.models.split(","):
        made = export_dynamic(name, args.out_dir) if name.startswith("encoder_") else \
            export_static(name, args.out_dir)
        for file_name, path, note in made:
            onnx.checker.check_model(onnx.load(path), full_check=True)
            print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB; {note}")
            print(f"  ops: {op_counts(path)}")
            text, steps = ort_check(path, file_name, args.out_dir)
            print(f"  {text}")
            if steps is not None:
                # scripts/zoo_expect.sh's tolerance: as close to PyTorch's fake-quant output as
                # ONNX Runtime is on the same file, plus one step.
                with open(os.path.join(args.out_dir, file_name + ".tolerance_steps"), "w") as f:
                    f.write(f"{math.ceil(round(steps, 2)) + 1}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
