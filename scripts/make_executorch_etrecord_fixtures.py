#!/usr/bin/python3
"""Writes small ETRecords in ExecuTorch's own format to testdata/executorch/.

Standard library only (zipfile, json): no ExecuTorch or PyTorch needed. The
layout follows what ExecuTorch's devtools/etrecord/_etrecord.py writes (an
"ETRECORD_V0" marker, torch.export's ExportedProgram JSON for the edge
program, the emitter's maps as json.dumps output, pickled reference data);
docs/executorch-interop.md describes each entry. The model is ExecuTorch's
ConvReLUTanModel with an add in front:

    y = x + x            handle 1, kernel call  (instruction 0, native_call_add.out)
    conv1, relu1         handles 2, 3  \
    conv2, relu2         handles 4, 5   > one delegate call (instruction 1)
    tan                  handle 6      /

The delegate fuses conv+relu (one identifier -> two handles) and decomposes
tan into sin, cos and div (three identifiers -> one handle). Instruction 0
and the delegate's int identifiers 0 and 1 match the ETDump fixture
testdata/etdump/executorch_style.json, which also logs a string identifier
("Fancy Fusion") that no map lists.

Run from the repository root:  /usr/bin/python3 scripts/make_executorch_etrecord_fixtures.py
"""

import json
import os
import zipfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "executorch")
EDGE_OPS = "executorch.exir.dialects.edge.ops.aten."
# A fixed timestamp so the same script always writes the same bytes.
DATE = (2024, 1, 1, 0, 0, 0)

USER_FILE = "/home/user/models/conv_relu_tan.py"
TORCH_FILE = "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py"


def trace(*frames):
    """Python's traceback text: outermost frame first, as torch records it."""
    return "".join('  File "%s", line %d, in %s\n    %s\n' % f for f in frames)


# (name, target, inputs, output, handle, module path or None, module type, line)
NODES = [
    ("aten_add_tensor", "add.Tensor", ["x", "x"], "aten_add_tensor", 1, None, None, 31),
    ("aten_convolution_default", "convolution.default",
     ["aten_add_tensor", "p_conv_layer_conv1_weight", "p_conv_layer_conv1_bias"],
     "aten_convolution_default", 2, "conv1", "torch.nn.modules.conv.Conv2d", 18),
    ("aten_relu_default", "relu.default", ["aten_convolution_default"], "aten_relu_default", 3,
     "relu1", "torch.nn.modules.activation.ReLU", 19),
    ("aten_convolution_default_1", "convolution.default",
     ["aten_relu_default", "p_conv_layer_conv2_weight", "p_conv_layer_conv2_bias"],
     "aten_convolution_default_1", 4, "conv2", "torch.nn.modules.conv.Conv2d", 20),
    ("aten_relu_default_1", "relu.default", ["aten_convolution_default_1"],
     "aten_relu_default_1", 5, "relu2", "torch.nn.modules.activation.ReLU", 21),
    ("aten_tan_default", "tan.default", ["aten_relu_default_1"], "aten_tan_default", 6, None,
     None, 33),
]
PARAMS = ["p_conv_layer_conv1_weight", "p_conv_layer_conv1_bias", "p_conv_layer_conv2_weight",
          "p_conv_layer_conv2_bias"]


def module_stack(path, leaf_type, style):
    """nn_module_stack text, "key,path,type" items joined by ';', outermost first.

    style "new": dotted paths (torch >= 2.3); "old": L['self'] paths with the
    root module as its own item (older strict export)."""
    if path is None:
        return None
    if style == "new":
        items = [("conv_layer", "conv_layer", "__main__.SimpleConvNet"),
                 ("conv_layer." + path, "conv_layer." + path, leaf_type)]
    else:
        items = [("L__self__", "", "__main__.ConvReLUTanModel"),
                 ("L__self___conv_layer", "L['self'].conv_layer", "__main__.SimpleConvNet"),
                 ("L__self___conv_layer_" + path, "L['self'].conv_layer." + path, leaf_type)]
    return ";".join(",".join(item) for item in items)


def tensor(name):
    return {"as_tensor": {"name": name}}


def tensor_meta(sizes):
    # dtype 7 is FLOAT in torch.export's schema (not ExecuTorch's runtime numbering).
    return {"dtype": 7, "sizes": [{"as_int": s} for s in sizes], "requires_grad": False,
            "device": {"type": "cpu"}, "strides": [], "storage_offset": {"as_int": 0},
            "layout": 7}


def edge_program(style, handle_as_int=False, metadata="module_stack", node_names=True):
    """torch.export's serialized ExportedProgram (schema 5.x) as a dict.

    node_names=False: nodes without "name", as files of 2023 have them."""
    nodes = []
    for name, target, inputs, output, handle, path, leaf_type, line in NODES:
        meta = {"debug_handle": handle if handle_as_int else str(handle)}
        frames = [(USER_FILE, 40, "forward", "x = self.conv_layer(y)")]
        if path is not None:
            frames.append((USER_FILE, line, "forward", "x = self.%s(x)" % path))
            if leaf_type.endswith("Conv2d"):
                frames.append((TORCH_FILE, 554, "forward",
                               "return self._conv_forward(input, self.weight, self.bias)"))
        else:
            frames = [(USER_FILE, line, "forward", "...")]
        meta["stack_trace"] = trace(*frames)
        if metadata == "module_stack":
            stack = module_stack(path, leaf_type, style)
            if stack is not None:
                meta["nn_module_stack"] = stack
        if path is not None:
            meta["source_fn_stack"] = "conv_layer_%s,%s" % (path, leaf_type)
        meta["torch_fn"] = "%s;builtin_function_or_method.%s" % (name, target.split(".")[0])
        nodes.append({
            **({"name": name} if node_names else {}),
            "target": EDGE_OPS + target,
            "inputs": [{"name": "arg%d" % i, "arg": tensor(n)} for i, n in enumerate(inputs)],
            "outputs": [tensor(output)],
            "metadata": meta,
        })
    values = {n: tensor_meta([1, 3, 8, 8]) for n in ["x"] + [node[3] for node in NODES]}
    values.update({p: tensor_meta([3, 3, 3, 3] if p.endswith("weight") else [3])
                   for p in PARAMS})
    return {
        "graph_module": {
            "graph": {
                "inputs": [tensor(p) for p in PARAMS] + [tensor("x")],
                "outputs": [tensor("aten_tan_default")],
                "nodes": nodes,
                "tensor_values": values,
                "sym_int_values": {},
                "sym_bool_values": {},
                "is_single_tensor_return": False,
                "custom_obj_values": {},
            },
            "signature": {"input_specs": [], "output_specs": []},
            "module_call_graph": [],
        },
        "opset_version": {"aten": 10},
        "range_constraints": {},
        "schema_version": {"major": 5, "minor": 4},
        "verifiers": ["EXIRDialectVerifier"],
        "dialect": "EDGE",
    }


def delegate_map(ids):
    handles = [[2, 3], [4, 5], [6], [6], [6]]
    if ids == "int":
        keys = [0, 1, 2, 3, 4]
    else:
        keys = ["conv1+relu1", "conv2+relu2", "tan.sin", "tan.cos", "tan.div"]
    # Python's json.dumps turns int keys into strings, exactly as ExecuTorch writes them.
    return {"forward": {1: {"name": "BackendWithDelegateMappingDemo",
                            "delegate_map": dict(zip(keys, handles))}}}


# The emitter's map: one handle as a bare int, several as a list.
DEBUG_HANDLE_MAP = {"forward": {0: 1, 1: [2, 3, 4, 5, 6]}}
NUM_OUTS_MAP = {"forward": {1: 1}}
# Stand-ins for pickle.dumps output (protocol 4 header, then nothing useful):
# Glassbox never unpickles, so only the entry's presence matters.
PICKLE = b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00."


def write(name, entries):
    path = os.path.join(OUT, name)
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, date_time=DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data if isinstance(data, bytes) else data.encode("utf-8"))
    os.replace(tmp, path)


def program_entries(base, program):
    """A serialized program and its three binary companions."""
    return [(base, json.dumps(program)), (base + "_state_dict", b"PK-state-dict"),
            (base + "_constants", b"PK-constants"), (base + "_example_inputs", b"PK-inputs")]


def main():
    os.makedirs(OUT, exist_ok=True)
    # Today's layout (generate_etrecord with a BundledProgram): every entry.
    write("int_ids.etrecord",
          [("ETRECORD_V0", "")]
          + program_entries("exported_program", edge_program("new"))
          + program_entries("edge_dialect_exported_program", edge_program("new"))
          + [("debug_handle_map", json.dumps(DEBUG_HANDLE_MAP)),
             ("delegate_map", json.dumps(delegate_map("int"))),
             ("instruction_id_to_num_outs_map", json.dumps(NUM_OUTS_MAP)),
             ("reference_outputs", PICKLE), ("representative_inputs", PICKLE),
             ("export_graph_id", json.dumps(140234567890))])
    # String identifiers, the edge program under a "/forward" suffix, old-style
    # module paths with the root module item.
    write("string_ids.etrecord",
          [("ETRECORD_V0", "")]
          + program_entries("edge_dialect_exported_program/forward", edge_program("old"))
          + [("debug_handle_map", json.dumps(DEBUG_HANDLE_MAP)),
             ("delegate_map", json.dumps(delegate_map("string"))),
             ("instruction_id_to_num_outs_map", json.dumps(NUM_OUTS_MAP))])
    # An older file: no num-outs map, the program buffer, the ET-dialect graph
    # and an extra recorded module (aten_dialect_output/forward); nodes without
    # names, source_fn_stack instead of nn_module_stack; debug handles as JSON ints.
    old_program = edge_program("old", handle_as_int=True, metadata="source_fn",
                               node_names=False)
    write("old_style.etrecord",
          [("ETRECORD_V0", ""),
           ("aten_dialect_output/forward", json.dumps(old_program)),
           ("aten_dialect_output/forward_state_dict", b"PK-state-dict"),
           ("et_dialect_graph_module/forward", json.dumps(old_program)),
           ("et_dialect_graph_module/forward_state_dict", b"PK-state-dict"),
           ("program_buffer", b"\x00\x00\x00\x00ET12"),
           ("edge_dialect_exported_program", json.dumps(old_program)),
           ("edge_dialect_exported_program_state_dict", b"PK-state-dict"),
           ("debug_handle_map", json.dumps(DEBUG_HANDLE_MAP)),
           ("delegate_map", json.dumps(delegate_map("int")))])


if __name__ == "__main__":
    main()
