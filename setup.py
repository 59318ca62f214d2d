"""Builds the extension module _glassbox with the project's CMake build and
puts it inside the glassbox package of the wheel (pyproject.toml has the
metadata).

The CMake build tree is build/pip in the checkout, or the one named by
GLASSBOX_CMAKE_BUILD_DIR: an already configured tree (build/default) is
reused as it is, so an install after `make build` compiles nothing.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("GLASSBOX_CMAKE_BUILD_DIR", ROOT / "build" / "pip"))
        if not (build_dir / "CMakeCache.txt").exists():
            # Only what the module links: no tests, benchmarks or fuzzers.
            self._run(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                       "-DCMAKE_BUILD_TYPE=Release", "-DGLASSBOX_BUILD_TESTS=OFF",
                       "-DGLASSBOX_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}",
                       f"-DPython_EXECUTABLE={sys.executable}",
                       f"-DPYTHON_EXECUTABLE={sys.executable}"] + self._launcher())
        self._run(["cmake", "--build", str(build_dir), "--target", "_glassbox",
                   "-j", os.environ.get("GLASSBOX_JOBS", "2")])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / f"_glassbox{suffix}"
        if not built.exists():
            sys.exit(f"setup.py: CMake built no {built} (is pybind11-dev installed, and "
                     f"is {sys.executable} the interpreter the module is built for?)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)

    @staticmethod
    def _launcher():
        # ccache when present: a rebuild of the same sources is then cheap.
        if shutil.which("ccache"):
            return ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        return []

    @staticmethod
    def _run(command):
        print("setup.py:", " ".join(command), flush=True)
        subprocess.run(command, check=True)


setup(
    ext_modules=[CMakeExtension("glassbox._glassbox")],
    cmdclass={"build_ext": CMakeBuild},
    # The CMake build trees live in build/; setuptools' own stays apart.
    options={"build": {"build_base": "build/setuptools"}},
)
