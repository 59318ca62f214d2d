"""glassbox.export of a torch.nn.Module: the lowered program computes what
PyTorch computes, and its events carry the module paths of
named_modules(). Skipped without PyTorch (Debian's python3-torch)."""

import numpy as np
import pytest

import glassbox

torch = pytest.importorskip("torch")


class Block(torch.nn.Module):
    def __init__(self, channels_in, channels_out):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels_in, channels_out, 3, padding=1)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x))


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(Block(3, 8), Block(8, 8))
        self.head = torch.nn.Linear(8, 4)

    def forward(self, image):
        return torch.tanh(self.head(self.features(image).mean(dim=(2, 3))))


@pytest.fixture(scope="module")
def net_and_input():
    torch.manual_seed(0)
    return SmallNet().eval(), torch.rand(2, 3, 16, 16) * 2 - 1


def lower_and_run(program, x, partitioner, folder):
    et_program = glassbox.to_edge_transform_and_lower(
        program, partitioner=partitioner, generate_etrecord=True).to_executorch()
    et_program.save(folder / "m.gbx")
    et_program.get_etrecord().save(folder / "m.etrecord")
    tracer = glassbox.ETDumpGen()
    (y,) = glassbox.load(folder / "m.gbx").run([x], etdump=tracer)
    tracer.save(folder / "m.etdp")
    return y, glassbox.Inspector(etdump_path=folder / "m.etdp", etrecord=folder / "m.etrecord")


def innermost_modules(inspector, delegated_only):
    """The innermost module path of every operator behind the events."""
    return {hierarchy[-1] for block in inspector.event_blocks for event in block.events
            if event.is_delegated_op or not delegated_only
            for hierarchy in event.module_hierarchy if hierarchy}


def test_export_keeps_the_module_paths_and_computes_what_pytorch_does(net_and_input, tmp_path):
    net, x = net_and_input
    program = glassbox.export(net, (x,))
    assert program.name == "SmallNet"
    with torch.no_grad():
        expected = net(x).numpy()
    y, inspector = lower_and_run(program, x.numpy(), None, tmp_path)
    np.testing.assert_allclose(y, expected, atol=1e-5)
    paths = innermost_modules(inspector, delegated_only=False)
    modules = {name for name, _ in net.named_modules() if name}
    # Every conv, relu and the head were traced in a module of the net.
    for name in ["features.0.conv", "features.0.act", "features.1.conv", "features.1.act", "head"]:
        assert name in paths, (name, paths)
    assert paths <= modules, paths - modules


@pytest.mark.skipif("xnnpack" not in glassbox.backends, reason="no XNNPACK backend in this build")
def test_exported_module_lowers_to_xnnpack(net_and_input, tmp_path):
    net, x = net_and_input
    with torch.no_grad():
        expected = net(x).numpy()
    y, inspector = lower_and_run(glassbox.export(net, x), x.numpy(),
                                 [glassbox.XnnpackPartitioner()], tmp_path)
    np.testing.assert_allclose(y, expected, atol=1e-4)
    # The delegate's events name the modules of the operators it runs.
    paths = innermost_modules(inspector, delegated_only=True)
    assert {"features.0.conv", "features.1.act", "head"} <= paths, paths


def test_export_refuses_what_is_not_a_module():
    with pytest.raises(TypeError, match="torch.nn.Module"):
        glassbox.export(lambda x: x, (torch.zeros(1),))
