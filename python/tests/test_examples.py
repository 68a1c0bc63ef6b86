"""The examples in python/examples/ run, small."""

import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def run(tmp_path, name, *args):
    r = subprocess.run([sys.executable, EXAMPLES / name, *args], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_cloth_drop(tmp_path):
    out = run(tmp_path, "cloth_drop.py", "--steps", "20", "--out", "drop.obj")
    lines = (tmp_path / "drop.obj").read_text().splitlines()
    assert sum(l.startswith("v ") for l in lines) == 1600
    assert sum(l.startswith("f ") for l in lines) == 2 * 39 * 39
    assert "20 steps" in out


def test_soft_body(tmp_path):
    out = run(tmp_path, "soft_body.py", "--cells", "2", "--steps", "30")
    assert "48 tetrahedra" in out and "inverted 0" in out


def test_iterations_sweep(tmp_path):
    out = run(tmp_path, "iterations_sweep.py", "--steps", "5", "--iterations", "1,8", "--solvers", "xpbd-gs")
    strains = [float(s.rstrip("%")) for s in out.splitlines()[2].split()[1:]]
    assert strains[1] < strains[0]  # more iterations, less stretch


def test_the_readmes_example(tmp_path, monkeypatch):
    readme = (EXAMPLES.parents[1] / "README.md").read_text().splitlines()
    start = readme.index("    import numpy as np, sinew")
    end = readme.index("", start)
    code = "\n".join(line[4:] for line in readme[start:end])
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "cloth.snwc").stat().st_size > 0
