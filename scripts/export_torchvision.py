#!/usr/bin/python3
"""Exports torchvision models and a BERT-style encoder to ONNX for `glassbox lower` / `run`.

Run with Debian's interpreter and packages (python3-torch,
python3-torchvision; not installed by the default set-up):

    /usr/bin/python3 scripts/export_torchvision.py [OUT_DIR] [--models a,b]

For each model it writes OUT_DIR/<name>.onnx (static input named "input",
output "logits"; opset 13 for the CNNs, 14 or 17 for the transformers),
<name>.input.npy (a fixed random input) and <name>.expected.npy (PyTorch's
eval-mode output for it). The classifiers take 1x3x224x224; the encoder
(encoder_opset14, encoder_opset17: torch.nn.TransformerEncoder, batch_first,
GELU, 4 layers, d_model 128) takes 1x32x128; the segmentation model's output
is its "out" map.
Weights are random from a fixed seed (no downloads), so the files are
reproducible on one machine. OUT_DIR defaults to ~/.cache/glassbox/models.
"""

import argparse
import os
import sys

import numpy as np
import torch
import torchvision

SEED = 0
OPSET = 13
MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "mobilenet_v3_small", "alexnet",
          "efficientnet_b0", "mobilenet_v3_large", "resnet50", "vit_b_16", "encoder_opset14",
          "encoder_opset17", "lraspp_mobilenet_v3_large", "googlenet", "shufflenet_v2_x1_0",
          "regnet_x_400mf"]
# Opset per model where it is not OPSET.
OPSETS = {"vit_b_16": 14, "encoder_opset14": 14, "encoder_opset17": 17}


class SegmentationOut(torch.nn.Module):
    """torchvision's segmentation models return a dict; export its "out"."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def informative(model):
    """Weights whose outputs say something: torchvision's untrained models give
    all-zero logits (ViT zero-initialises its head) or values near 1e-15
    (MobileNetV3), which any tolerance "matches". Batch norms get non-trivial
    statistics and affine parameters, zero-initialised weights small random
    ones; all from the fixed seed."""
    gen = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.running_mean.uniform_(-0.1, 0.1, generator=gen)
                module.running_var.uniform_(0.5, 1.5, generator=gen)
                if module.affine:
                    module.weight.uniform_(0.5, 1.5, generator=gen)
                    module.bias.uniform_(-0.1, 0.1, generator=gen)
            for param in module.parameters(recurse=False):
                if param.dim() >= 2 and not param.any():
                    param.normal_(0.0, 0.02, generator=gen)
    return model


def build(name):
    """The model and its example input, from a fixed seed (no downloads)."""
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    if name.startswith("encoder_"):
        layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256,
                                                 activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)
        return informative(model.eval()), torch.rand(1, 32, 128, generator=gen)
    x = torch.rand(1, 3, 224, 224, generator=gen)
    if name.startswith("lraspp_") or name.startswith("deeplabv3_"):
        model = getattr(torchvision.models.segmentation, name)(weights=None,
                                                               weights_backbone=None)
        return informative(SegmentationOut(model).eval()), x
    return informative(getattr(torchvision.models, name)(weights=None).eval()), x


def export(name, out_dir):
    model, x = build(name)
    with torch.no_grad():
        expected = model(x)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=OPSETS.get(name, OPSET), input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".expected.npy"), expected.numpy().astype(np.float32))
    print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB, output std {expected.std().item():.3g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?",
                        default=os.path.expanduser("~/.cache/glassbox/models"))
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for name in args.models.split(","):
        export(name, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
