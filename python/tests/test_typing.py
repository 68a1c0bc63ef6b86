"""The package's annotations hold (it ships py.typed): mypy finds no error in
it, nor in a program using it as the README does."""

import os
import subprocess
import sys

import pytest

import sinew

USE = '''
import numpy as np
import sinew

ctx: sinew.Context = sinew.Context()
body: sinew.Body = ctx.create_body(sinew.prep.grid(8, 8), solver="xpbd-gs", substeps=4)
body.step(dt=1 / 120, wind=(1.0, 0.0, 0.0))
x: np.ndarray = body.positions()
s: sinew.StepStats = body.stats()
strain: float = s.max_strain
h: int = body.state_hash()
'''


def test_mypy_passes(tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        if os.environ.get("SINEW_REQUIRE_TOOLS") == "1":
            pytest.fail("mypy is not installed (tools/python-test.sh installs it)")
        pytest.skip("mypy is not installed")
    use = tmp_path / "use.py"
    use.write_text(USE)
    # -p finds the installed package the way a user's mypy does (through its py.typed)
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--ignore-missing-imports",
                        "-p", "sinew"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--ignore-missing-imports",
                        str(use)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
