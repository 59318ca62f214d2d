"""Runs every ```python block of docs/python.md, in order, in one namespace,
from a folder holding the checkout's testdata/: the page's examples work."""

import contextlib
import io
import os
import pathlib
import re

import pytest

DOCS = pathlib.Path(os.environ.get(
    "GLASSBOX_DOCS_DIR", pathlib.Path(__file__).resolve().parents[2] / "docs"))


def python_blocks():
    text = (DOCS / "python.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def test_docs_has_examples():
    assert len(python_blocks()) >= 8


def test_every_example_runs(tmp_path, testdata, monkeypatch):
    import glassbox

    if "xnnpack" not in glassbox.backends:
        pytest.skip("the page's examples use the XNNPACK backend")
    (tmp_path / "testdata").symlink_to(testdata)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    printed = io.StringIO()
    for number, block in enumerate(python_blocks()):
        if "import torch" in block and not has_torch():
            continue  # glassbox.export's example needs PyTorch (python3-torch)
        with contextlib.redirect_stdout(printed):
            exec(compile(block, f"docs/python.md block {number}", "exec"), namespace)
    out = printed.getvalue()
    # The outputs the page shows, checked where they do not vary.
    assert "ExportedProgram('ConvReLUTanModel', 5 operators)" in out
    assert "(4, 32, 64, 64) float32" in out
    if has_torch():
        assert ("ExportedProgram('Sequential', 4 operators) ['conv2d', 'relu', 'conv2d', 'relu']"
                in out)
    assert "CorruptFileError" in out and "demo.etrecord" in out
    assert "tan.cos (4, 32, 64, 64) float32 {'kernel': 'cos'}" in out
    assert (tmp_path / "demo.trace.json").exists() and (tmp_path / "debug.etrecord").exists()
