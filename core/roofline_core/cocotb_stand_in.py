"""cocotb as far as a process that only builds and starts simulations needs it.

cocotb-test imports cocotb for its version and its folder (where the simulator libraries are),
and cocotb_tools for the path of cocotb's extension module `cocotb.simulator` (its GPI entry point).
Importing cocotb itself imports pytest and its scheduler: 0.4 s of CPU, in a grading step that
never runs a test in its own interpreter (the simulator starts a fresh one, with the real
cocotb). `install()` puts modules with just those facts in their place, before cocotb-test is
imported. It is not a package: anything in that process that tries to use more
of cocotb fails at its import, rather than run on a stand-in.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import sys
import types
from pathlib import Path


def install() -> None:
    """Only in a process that imports nothing else of cocotb; a no-op once cocotb is imported."""
    if "cocotb" in sys.modules:
        return
    spec = importlib.util.find_spec("cocotb")
    if spec is None or spec.origin is None:
        return  # no cocotb: cocotb-test's own import names what is missing
    folder = Path(spec.origin).parent
    extension = next((folder / f"simulator{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
                      if (folder / f"simulator{suffix}").is_file()), None)
    if extension is None:
        return  # a cocotb laid out otherwise: import the real one
    stand_in = types.ModuleType("cocotb", "cocotb's version and folder, for cocotb-test (roofline_core.cocotb_stand_in)")
    stand_in.__file__ = spec.origin
    stand_in.__version__ = importlib.metadata.version("cocotb")  # type: ignore[attr-defined]
    simulator = types.ModuleType("cocotb.simulator", "where cocotb's extension module is")
    simulator.__file__ = str(extension)
    stand_in.simulator = simulator  # type: ignore[attr-defined]
    sys.modules["cocotb"], sys.modules["cocotb.simulator"] = stand_in, simulator
