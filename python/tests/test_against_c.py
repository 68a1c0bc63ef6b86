"""Python and C give the same simulation: the same asset and settings step
to the same positions, bit for bit, and the same state hash."""

import pathlib
import re
import subprocess

import numpy as np
import pytest

import sinew

REPO = pathlib.Path(__file__).resolve().parents[2]


def read_obj_vertices(path):
    rows = [line.split()[1:4] for line in open(path) if line.startswith("v ")]
    return np.array(rows, dtype=np.float64).astype(np.float32)


def test_cloth_as_sinew_sim_steps_it(ctx, tools, tmp_path):
    asset_path = tmp_path / "cloth.snw"
    subprocess.run([tools / "sinew-prep", "--grid", "16x16", "--pin-corners", "-q", "-o", asset_path], check=True)
    run = subprocess.run([tools / "sinew-sim", asset_path, "--no-sphere", "-n", "60", "--hash", "-q", "--no-png",
                          "-o", tmp_path / "out"], check=True, capture_output=True, text=True)
    c_hash = int(re.search(r"state hash\s+([0-9a-f]{16})", run.stdout).group(1), 16)
    c_positions = read_obj_vertices(tmp_path / "out" / "final.obj")

    body = ctx.create_body(sinew.Asset.load(asset_path), solver="xpbd-gs")
    for _ in range(60):
        body.step()
    x = body.positions()
    assert x.shape == (256, 3) and x.dtype == np.float32
    assert np.array_equal(x, c_positions)
    assert body.state_hash() == c_hash
    assert body.stats().step_index == 60


def test_prep_origin_is_sinew_preps_translate(tools, tmp_path):
    path = tmp_path / "far.snw"
    far = (10000.000123456789, 0.0, -10000.0)
    subprocess.run([tools / "sinew-prep", "--grid", "6x5", "--pin-corners", "--translate",
                    ",".join(repr(c) for c in far), "-q", "-o", path], check=True)
    c_asset = sinew.Asset.load(path)
    py_asset = sinew.prep.grid(6, 5, pin_corners=True, origin=far)
    home = sinew.prep.grid(6, 5, pin_corners=True)
    assert c_asset.origin == py_asset.origin == far and home.origin == (0.0, 0.0, 0.0)
    assert np.array_equal(c_asset.positions(), home.positions())  # the origin moved, not the positions


def test_prep_grid_is_sinew_preps(tools, tmp_path):
    path = tmp_path / "grid.snw"
    subprocess.run([tools / "sinew-prep", "--grid", "12x9", "--size", "1.2x0.9", "--pin-corners", "-q", "-o", path],
                   check=True)
    c_asset = sinew.Asset.load(path)
    py_asset = sinew.prep.grid(12, 9, size=(1.2, 0.9), pin_corners=True)
    assert c_asset.info == py_asset.info
    assert np.array_equal(c_asset.positions(), py_asset.positions())
    assert np.array_equal(c_asset.distances(), py_asset.distances())
    assert np.array_equal(c_asset.triangles(), py_asset.triangles())


def test_render_materials_from_sinew_prep(tools, tmp_path, ctx):
    # the flag's three usemtl groups and its library, as sinew-prep kept them;
    # a body of it retried at more substeps steps on
    path = tmp_path / "flag.snw"
    subprocess.run([tools / "sinew-prep", REPO / "tests" / "data" / "flag.obj", "-q", "-o", path], check=True)
    asset = sinew.Asset.load(path)
    groups = asset.render_materials()
    assert [g[0] for g in groups] == ["cotton_red", "cotton_white", "silk_blue"]
    assert [(g[1], g[2]) for g in groups] == [(0, 48), (48, 48), (96, 48)]
    name, text = asset.material_library()
    assert name == "flag.mtl" and text == (REPO / "tests" / "data" / "flag.mtl").read_bytes()
    body = ctx.create_body(asset)
    body.step()
    body.set_substeps(16)
    body.step()
    with pytest.raises(sinew.Error, match="substeps 0"):
        body.set_substeps(0)
    assert np.isfinite(body.positions()).all()
