#!/usr/bin/python3
"""Exports torchvision models, a BERT-style encoder and issue 33's non-image models to ONNX for `glassbox lower` / `run`.

Run with Debian's interpreter and packages (python3-torch,
python3-torchvision; not installed by the default set-up):

    /usr/bin/python3 scripts/export_torchvision.py [OUT_DIR] [--models a,b]

For each model it writes OUT_DIR/<name>.onnx (static input named "input",
output "logits"; opset 13 for the CNNs, 14 or 17 for the transformers),
<name>.input.npy (a fixed random input) and <name>.expected.npy (PyTorch's
eval-mode output for it). The classifiers take 1x3x224x224; the encoder
(encoder_opset14, encoder_opset17: torch.nn.TransformerEncoder, batch_first,
GELU, 4 layers, d_model 128) takes 1x32x128; the segmentation models' output
is their "out" map. Beyond images (issue 33): kws_lstm (a 2-layer LSTM
keyword spotter, 1x49x40 feature frames -> 12 logits), audio_conv1d (a
Conv1d classifier of 1x1x16000 raw samples -> 35 logits), r3d_18
(torchvision's video ResNet, 1x3x8x112x112 clips -> 400 logits),
ssdlite320_mobilenet_v3_large with its post-processing (a 1x3x320x320
image -> one Nx6 tensor of boxes x1 y1 x2 y2, score and label after NMS;
opset 11), deeplabv3_mobilenet_v3_large (1x3x224x224 -> its "out" map) and
gpt_decoder (a GPT-style causal decoder fed 1x32 int64 token ids -> 1x32x512
logits; its input .npy is int64).
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
          "regnet_x_400mf", "kws_lstm", "audio_conv1d", "r3d_18", "ssdlite320_mobilenet_v3_large",
          "deeplabv3_mobilenet_v3_large", "gpt_decoder"]
# Opset per model where it is not OPSET. The detector's post-processing
# (NonMaxSuppression, TopK with a computed k) is what torchvision exports at
# opset 11, the version its detection models are tested with.
OPSETS = {"vit_b_16": 14, "encoder_opset14": 14, "encoder_opset17": 17,
          "ssdlite320_mobilenet_v3_large": 11}
# Models whose batch norms are calibrated on the reference input (see
# calibrate_batch_norms); the older zoo keeps informative()'s statistics so
# its files, and the figures measured on them, stay as they were.
CALIBRATED = {"audio_conv1d", "r3d_18", "ssdlite320_mobilenet_v3_large",
              "deeplabv3_mobilenet_v3_large"}


class SegmentationOut(torch.nn.Module):
    """torchvision's segmentation models return a dict; export its "out"."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class KeywordLstm(torch.nn.Module):
    """A keyword spotter: two stacked LSTM layers over 40 features per 10 ms
    frame, the last frame's state classified into 12 keywords. Each layer is
    its own nn.LSTM (lstm1, lstm2), not one nn.LSTM(num_layers=2): the same
    computation, but each layer is then a module of its own in the ONNX
    node names, so `inspect --view modules` shows the layers apart."""

    def __init__(self, features=40, hidden=64, keywords=12):
        super().__init__()
        self.lstm1 = torch.nn.LSTM(features, hidden, batch_first=True)
        self.lstm2 = torch.nn.LSTM(hidden, hidden, batch_first=True)
        self.classifier = torch.nn.Linear(hidden, keywords)

    def forward(self, x):
        y, _ = self.lstm2(self.lstm1(x)[0])
        return self.classifier(y[:, -1])


class AudioConv1d(torch.nn.Module):
    """A raw-waveform classifier in the style of M5 (Dai et al. 2017): a wide
    strided first Conv1d, three more conv/batch norm/ReLU/max pool stages,
    global average pooling and a linear layer over 35 commands."""

    def __init__(self, classes=35, width=32):
        super().__init__()
        layers = []
        channels = [1, width, width, 2 * width, 2 * width]
        for i in range(4):
            kernel, stride = (80, 4) if i == 0 else (3, 1)
            layers += [torch.nn.Conv1d(channels[i], channels[i + 1], kernel, stride=stride),
                       torch.nn.BatchNorm1d(channels[i + 1]), torch.nn.ReLU(),
                       torch.nn.MaxPool1d(4)]
        self.features = torch.nn.Sequential(*layers)
        self.classifier = torch.nn.Linear(channels[-1], classes)

    def forward(self, x):
        return self.classifier(self.features(x).mean(dim=2))


class CausalSelfAttention(torch.nn.Module):
    """GPT-2's attention: one projection to Q, K and V, a constant causal mask
    added to the scores (a large negative number above the diagonal: the
    graph holds no Trilu and no -inf), softmax, the heads merged back."""

    def __init__(self, d_model, heads, length):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(d_model, 3 * d_model)
        self.proj = torch.nn.Linear(d_model, d_model)
        mask = torch.triu(torch.full((length, length), -1e9), diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(2, 3) * (d // self.heads) ** -0.5 + self.mask
        y = torch.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class GptBlock(torch.nn.Module):
    def __init__(self, d_model, heads, length):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, heads, length)
        self.ln2 = torch.nn.LayerNorm(d_model)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d_model, 4 * d_model), torch.nn.GELU(),
                                       torch.nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GptDecoder(torch.nn.Module):
    """A GPT-style decoder: token and learned position embeddings (Gather on
    the int64 ids), pre-norm causal blocks, a final layer norm and an LM head."""

    def __init__(self, vocab=512, d_model=128, heads=4, layers=2, length=32):
        super().__init__()
        self.tokens = torch.nn.Embedding(vocab, d_model)
        self.positions = torch.nn.Parameter(torch.randn(1, length, d_model) * 0.02)
        self.blocks = torch.nn.Sequential(*[GptBlock(d_model, heads, length) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(d_model)
        self.head = torch.nn.Linear(d_model, vocab, bias=False)

    def forward(self, ids):
        return self.head(self.ln_f(self.blocks(self.tokens(ids) + self.positions)))


class DetectionPostprocess(torch.nn.Module):
    """SSD's post-processing (box decoding, score threshold, per-class top-k,
    batched NMS, boxes scaled back to the input image) as a module of its
    own, so its ONNX nodes carry the module path "postprocess" (in SSD it is
    a method, and its nodes would sit at the detector's top level). Holds
    the detector in a list: a submodule would register its weights twice."""

    def __init__(self, detector):
        super().__init__()
        self.detector = [detector]

    def forward(self, head_outputs, anchors, image_sizes, original_sizes):
        detector = self.detector[0]
        detections = detector.postprocess_detections(head_outputs, anchors, image_sizes)
        return detector.transform.postprocess(detections, image_sizes, original_sizes)[0]


class DetectionOut(torch.nn.Module):
    """A torchvision SSD detector with its post-processing, fed one 1x3xHxW
    image and returning one Nx6 tensor (x1, y1, x2, y2, score, label):
    `glassbox run --expect` compares output 0. The steps are SSD.forward's
    in eval mode (transform, backbone, head, anchors, post-processing)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.postprocess = DetectionPostprocess(model)

    def forward(self, x):
        model = self.model
        original_sizes = [(x.shape[-2], x.shape[-1])]
        images, _ = model.transform([x[0]])
        features = list(model.backbone(images.tensors).values())
        head_outputs = model.head(features)
        anchors = model.anchor_generator(images, features)
        out = self.postprocess(head_outputs, anchors, images.image_sizes, original_sizes)
        return torch.cat([out["boxes"], out["scores"].unsqueeze(1),
                          out["labels"].unsqueeze(1).to(out["boxes"].dtype)], dim=1)


def traceable_batched_nms(boxes, scores, idxs, iou_threshold):
    """torchvision's batched_nms (its coordinate trick: each class's boxes
    moved apart by the largest coordinate, then one NMS) without the
    scripted `if boxes.numel() == 0`, which exports as an ONNX If: a zero
    appended before the max gives the same result and keeps the graph flat
    (an empty input still gives an empty output)."""
    max_coordinate = torch.cat([boxes.flatten(), boxes.new_zeros(1)]).max()
    offsets = idxs.to(boxes) * (max_coordinate + 1)
    return torchvision.ops.nms(boxes + offsets[:, None], scores, iou_threshold)


def calibrate_batch_norms(model, x):
    """Sets every batch norm's running statistics to those of its own input on
    x, in one forward pass (a pre-hook runs before each batch norm, after the
    ones before it were set): every normalised activation map then has zero
    mean and unit variance, so deep untrained models (r3d_18, the detector's
    17 stages) neither fade to zero nor blow up. One mean and variance per
    layer, not per channel: on a 1x1 map (the detector's last extra layers)
    a channel has a single value, its own mean would cancel it exactly and
    the output would be rounding noise divided by sqrt(eps)."""

    def hook(module, args):
        inp = args[0].detach()
        module.running_mean.fill_(inp.mean().item())
        module.running_var.fill_(max(inp.var(unbiased=False).item(), 1e-6))

    handles = [m.register_forward_pre_hook(hook) for m in model.modules()
               if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        model(x)
    for handle in handles:
        handle.remove()
    return model


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
    if name == "kws_lstm":
        return KeywordLstm().eval(), torch.randn(1, 49, 40, generator=gen)
    if name == "audio_conv1d":
        return informative(AudioConv1d().eval()), torch.randn(1, 1, 16000, generator=gen)
    if name == "gpt_decoder":
        return GptDecoder().eval(), torch.randint(0, 512, (1, 32), generator=gen)
    if name == "r3d_18":
        model = torchvision.models.video.r3d_18(weights=None)
        return informative(model.eval()), torch.rand(1, 3, 8, 112, 112, generator=gen)
    if name.startswith("ssdlite"):
        model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None)
        return informative(DetectionOut(model).eval()), torch.rand(1, 3, 320, 320, generator=gen)
    x = torch.rand(1, 3, 224, 224, generator=gen)
    if name.startswith("lraspp_") or name.startswith("deeplabv3_"):
        model = getattr(torchvision.models.segmentation, name)(weights=None,
                                                               weights_backbone=None)
        return informative(SegmentationOut(model).eval()), x
    return informative(getattr(torchvision.models, name)(weights=None).eval()), x


def export(name, out_dir):
    # The detector's post-processing calls batched_nms through this module;
    # PyTorch's reference output and the export both use the flat version.
    torchvision.ops.boxes.batched_nms = traceable_batched_nms
    model, x = build(name)
    if name in CALIBRATED:
        calibrate_batch_norms(model, x)
    with torch.no_grad():
        expected = model(x)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=OPSETS.get(name, OPSET), input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    # Token ids stay int64 (`glassbox run --input` keeps them exact).
    np.save(os.path.join(out_dir, name + ".input.npy"),
            x.numpy() if x.dtype == torch.int64 else x.numpy().astype(np.float32))
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
