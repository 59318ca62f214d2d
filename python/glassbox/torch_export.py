"""glassbox.export: a torch.nn.Module in, the program the lowering functions
take out, through PyTorch's ONNX exporter and the same ONNX importer as
load_onnx. The exporter names every node after the module scopes it was
traced in ("/features/features.0/conv/Conv"), and the importer turns those
names into module hierarchies, so events keep their module paths."""

import inspect
import os
import tempfile

from .aot import load_onnx

# The newest opset PyTorch 1.13's exporter writes; the importer reads 11-20.
DEFAULT_OPSET = 17


def _input_names(module, count):
    """The forward() parameter names, so the program's inputs read like the
    model's; input_0, input_1... where forward takes *args."""
    try:
        parameters = [p for p in inspect.signature(module.forward).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        parameters = []
    if len(parameters) >= count:
        return [p.name for p in parameters[:count]]
    return [f"input_{i}" for i in range(count)]


def export(module, example_inputs, opset_version=DEFAULT_OPSET):
    """Exports `module` (a torch.nn.Module, traced in eval mode) with the
    static shapes of `example_inputs` (a tuple of tensors, as for
    torch.export.export) and returns an ExportedProgram whose operators
    carry the module paths of named_modules(). Needs PyTorch (Debian's
    python3-torch); operators the ONNX importer does not know raise
    glassbox.NotSupportedError."""
    import torch  # only here: the rest of the package never needs PyTorch

    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"export() takes a torch.nn.Module, not {type(module).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    with tempfile.TemporaryDirectory(prefix="glassbox-export-") as folder:
        path = os.path.join(folder, f"{type(module).__name__}.onnx")
        with torch.no_grad():
            torch.onnx.export(module, example_inputs, path, opset_version=opset_version,
                              input_names=_input_names(module, len(example_inputs)),
                              do_constant_folding=True,
                              training=torch.onnx.TrainingMode.EVAL)
        program = load_onnx(path)
    program.name = type(module).__name__
    return program
