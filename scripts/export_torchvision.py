#!/usr/bin/python3
"""Exports classic torchvision CNNs to ONNX for `glassbox lower` / `run`.

Run with Debian's interpreter and packages (python3-torch,
python3-torchvision; not installed by the default set-up):

    /usr/bin/python3 scripts/export_torchvision.py [OUT_DIR] [--models a,b]

For each model it writes OUT_DIR/<name>.onnx (opset 13, static 1x3x224x224
input named "input", output "logits"), <name>.input.npy (a fixed random
input) and <name>.expected.npy (PyTorch's eval-mode output for it).
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
          "efficientnet_b0"]


def export(name, out_dir):
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(SEED))
    with torch.no_grad():
        expected = model(x)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=OPSET, input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".expected.npy"), expected.numpy().astype(np.float32))
    print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB")


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
