"""The package's API: arrays in and out, errors, checkpoints, worlds, prep."""

import ctypes
import dataclasses
import math
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import sinew
from sinew import _ffi, _types

REPO = pathlib.Path(__file__).resolve().parents[2]


def grid_body(ctx, n=12, **desc):
    return ctx.create_body(sinew.prep.grid(n, n), **desc)


# ---------------------------------------------------------------- the binding itself

def test_dataclasses_mirror_the_structures():
    for cls, struct in _types.MIRRORS:
        py = [f.name for f in dataclasses.fields(cls)]
        c = [name for name, _ in struct._fields_ if name not in ("shape_count", "frame_count")]
        assert py == c, cls.__name__


def test_versions_agree():
    assert sinew.version() == sinew.__version__
    text = (REPO / "python" / "pyproject.toml").read_text()
    assert f'version = "{sinew.__version__}"' in text


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to check the layout with")
def test_layout_check_finds_a_wrong_field(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("layout_check", REPO / "python" / "layout_check.py")
    lc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lc)
    ffi = lc.load_ffi()
    good = tmp_path / "good.c"
    good.write_text(lc.check_source(ffi))
    cc = ["cc", "-std=c11", "-fsyntax-only", f"-I{REPO / 'include'}"]
    assert subprocess.run(cc + [good]).returncode == 0
    # iterations and substeps swapped: the same size, each field at the other's offset.
    fields = list(ffi.BodyDesc._fields_)
    i, j = fields.index(("substeps", ctypes.c_uint32)), fields.index(("iterations", ctypes.c_uint32))
    fields[i], fields[j] = fields[j], fields[i]
    ffi.BodyDesc = type("BodyDesc", (ffi.Struct,), {"_c_name_": "sinew_body_desc", "_fields_": fields})
    ffi.STRUCTS = [ffi.BodyDesc]
    bad = tmp_path / "bad.c"
    bad.write_text(lc.check_source(ffi))
    r = subprocess.run(cc + [bad], capture_output=True, text=True)
    assert r.returncode != 0 and "sinew_body_desc.substeps is not at byte" in r.stderr


def test_defaults_are_the_librarys():
    c = sinew._c.step_params_default()
    p = sinew.StepParams()
    assert p.dt == c.dt and p.gravity == tuple(c.gravity) and p.friction == c.friction and p.ground == c.ground


# ---------------------------------------------------------------- errors

def test_nan_compliance_is_refused_naming_it(ctx):
    asset = sinew.prep.grid(8, 8)
    with pytest.raises(sinew.Error, match="stretch_compliance is NaN"):
        ctx.create_body(asset, stretch_compliance=float("nan"))
    with pytest.raises(sinew.Error, match="bend_compliance = inf is not finite"):
        ctx.create_body(asset, bend_compliance=math.inf)
    with pytest.raises(sinew.Error, match="substeps = -1 is out of range"):
        ctx.create_body(asset, substeps=-1)
    with pytest.raises(TypeError, match="unknown option 'substep'"):
        ctx.create_body(asset, substep=4)
    ctx.create_body(asset, max_volume_error=math.inf).close()  # the library's own default


def test_the_librarys_refusals_carry_its_message(ctx):
    asset = sinew.prep.grid(8, 8)
    with pytest.raises(sinew.Error) as e:
        ctx.create_body(asset, substeps=0)
    assert e.value.result == "ERROR_INVALID_ARGUMENT"
    assert e.value.messages and "substeps" in str(e.value)
    with pytest.raises(sinew.Error, match="solver 'xpbd' is none of xpbd-gs"):
        ctx.create_body(asset, solver="xpbd")


def test_bad_files_are_named(tmp_path):
    with pytest.raises(sinew.Error) as e:
        sinew.Asset.load(tmp_path / "missing.snw")
    assert e.value.result == "ERROR_IO" and "missing.snw" in str(e.value)
    junk = tmp_path / "junk.snw"
    junk.write_bytes(b"SNW1" + bytes(60))
    with pytest.raises(sinew.Error) as e:
        sinew.Asset.load(junk)
    assert e.value.result == "ERROR_BAD_ASSET" and e.value.messages


def test_step_parameters_are_checked(ctx):
    body = grid_body(ctx, 8)
    with pytest.raises(sinew.Error, match="step: dt is NaN"):
        body.step(dt=float("nan"))
    with pytest.raises(sinew.Error, match="gravity = .* is not a sequence of 3"):
        body.step(gravity=(0, -9.81))
    with pytest.raises(sinew.Error):  # the library's own check: dt > 0
        body.step(dt=-1.0)
    body.step()
    assert body.stats().step_index == 1


def test_static_error_estimate(ctx):
    # a cloth hanging from two corners, compliant: XPBD rests near its
    # equilibrium, and the estimate says so; a free cloth has none
    body = grid_body(ctx, 8, stretch_compliance=1e-3, shear_compliance=1e-3)
    for _ in range(60):
        body.step(ground=0, damping=4.0)
    e = body.estimate_error(ground=0)
    assert isinstance(e, sinew.StaticError) and e.converged and 0.0 <= e.error < 0.1 and e.iterations > 0
    free = ctx.create_body(sinew.prep.grid(6, 6, pin_corners=False), stretch_compliance=1e-3)
    with pytest.raises(sinew.Error, match="no pinned particle"):
        free.estimate_error()


def test_closed_handles_refuse(ctx):
    body = grid_body(ctx, 8)
    body.close()
    with pytest.raises(sinew.Error, match="this body is closed"):
        body.step()
    c = sinew.Context()
    b = grid_body(c, 8)
    c.close()
    assert b.closed
    with pytest.raises(sinew.Error, match="closed"):
        b.positions()


# ---------------------------------------------------------------- state

def test_positions_fill_a_given_array(ctx):
    body = grid_body(ctx, 10)
    body.step()
    out = np.zeros((100, 3), dtype=np.float32)
    assert body.positions(out=out) is out
    assert np.array_equal(out, body.positions())
    assert np.any(body.velocities() != 0)
    with pytest.raises(sinew.Error, match="float32 array of shape"):
        body.positions(out=np.zeros((100, 3)))


def test_write_positions_and_pins(ctx):
    body = grid_body(ctx, 6)
    x = body.positions()
    x[:, 1] += 0.5
    body.write_positions(x)
    assert np.array_equal(body.positions(), x)
    with pytest.raises(sinew.Error, match="not finite"):
        body.write_positions(np.full((36, 3), np.nan))
    body.set_pinned(35)
    body.move_pinned([35], [[0.0, 2.0, 0.0]])
    body.step()
    assert np.array_equal(body.positions()[35], np.float32([0.0, 2.0, 0.0]))


def test_checkpoints_resume_bit_for_bit(ctx, tmp_path):
    body = grid_body(ctx, 10)
    for _ in range(5):
        body.step()
    saved = body.save_checkpoint()
    body.save_checkpoint(tmp_path / "c.snwc")
    for _ in range(5):
        body.step()
    straight = body.state_hash()
    body.load_checkpoint(saved)
    for _ in range(5):
        body.step()
    assert body.state_hash() == straight
    body.load_checkpoint(tmp_path / "c.snwc")
    for _ in range(5):
        body.step()
    assert body.state_hash() == straight
    with pytest.raises(sinew.Error):
        body.load_checkpoint(saved[:-8])


def test_a_world_steps_its_bodies_as_alone(ctx):
    asset = sinew.prep.grid(10, 10)
    alone = ctx.create_body(asset)
    world = ctx.create_world()
    a = world.create_body(asset)
    b = world.create_body(asset, name="second")
    for _ in range(4):
        alone.step()
        world.step()
    s = world.stats()
    assert s.body_count == 2 and s.chain_count == 1 and s.submits == 1
    assert np.array_equal(a.positions(), alone.positions())
    assert np.array_equal(b.positions(), alone.positions())
    assert world.bodies == [a, b]
    saved = world.save_checkpoint()
    world.step()
    h = world.state_hash()
    world.load_checkpoint(saved)
    world.step()
    assert world.state_hash() == h
    with pytest.raises(sinew.Error):
        a.step()  # a body of a world steps with it
    world.close()
    assert a.closed and b.closed


def test_colliders_and_shapes(ctx):
    body = ctx.create_body(sinew.prep.grid(12, 12, pin_corners=False), max_shapes=1)
    ball = sinew.Shape("sphere", position=(0.0, 0.6, 0.0), radius=0.2)
    for _ in range(40):
        body.step(shapes=[ball], ground=False)
    x = body.positions()
    r = np.linalg.norm(x - np.float32([0.0, 0.6, 0.0]), axis=1)
    assert r.min() > 0.2 - 0.01  # draped over the ball, not through it
    with pytest.raises(sinew.Error, match="kind = 'cube'"):
        body.step(shapes=[sinew.Shape("cube")])


# ---------------------------------------------------------------- prep

def cube_tets(n=3, size=0.3, y=0.5):
    """A cube of n^3 cells, 6 tetrahedra each, as arrays."""
    g = np.linspace(-size / 2, size / 2, n + 1)
    xs, ys, zs = np.meshgrid(g, g + y, g, indexing="ij")
    v = np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1)
    idx = np.arange((n + 1) ** 3).reshape(n + 1, n + 1, n + 1)
    tets = []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c = [idx[i + a, j + b, k + d] for a in (0, 1) for b in (0, 1) for d in (0, 1)]
                for t in ((0, 1, 3, 7), (0, 1, 5, 7), (0, 2, 3, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 4, 6, 7)):
                    q = [c[m] for m in t]
                    if np.dot(np.cross(v[q[1]] - v[q[0]], v[q[2]] - v[q[0]]), v[q[3]] - v[q[0]]) < 0:
                        q[2], q[3] = q[3], q[2]
                    tets.append(q)
    return v, np.array(tets)


def test_soft_body_from_arrays(ctx):
    v, t = cube_tets()
    asset = sinew.prep.soft(v, t, youngs=2e5, poisson=0.3, density=500)
    assert asset.info.tet_count == 162 and asset.report.tet_count == 162 and asset.report.flipped_tets == 0
    assert asset.tets().shape == (162, 4)
    body = ctx.create_body(asset, solver="gpbd-gs", substeps=4, iterations=2)
    for _ in range(30):
        body.step()
    assert body.stats().inverted_elements == 0
    assert body.positions()[:, 1].min() > -0.01  # on the ground


def test_prep_pin_boxes_add_up():
    # a 16 x 16 grid, 1 m wide: one box over the first row pins 16, a second over the last row 16 more
    first = ((-1, 0, -1), (1, 2, -0.49))
    last = ((-1, 0, 0.49), (1, 2, 1))
    one = sinew.prep.grid(16, 16, pin_corners=False, pin_box=first)
    two = sinew.prep.grid(16, 16, pin_corners=False, pin_box=[first, last])
    assert one.info.pinned_count == 16 and two.info.pinned_count == 32
    assert int((two.inverse_masses() == 0).sum()) == 32
    with pytest.raises(sinew.Error, match="pin box 2 is inverted"):
        sinew.prep.grid(16, 16, pin_corners=False, pin_box=[first, ((0, 0, 0), (-1, 1, 1))])


def test_prep_refuses_bad_meshes():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float)
    with pytest.raises(sinew.Error) as e:
        sinew.prep.cloth(v, [[0, 1, 3]])
    assert e.value.result == "ERROR_BAD_MESH" and e.value.messages
    with pytest.raises(sinew.Error, match="vertices holds a value that is not finite"):
        sinew.prep.cloth(np.array([[0, 0, 0], [1, 0, 0], [0, np.nan, 0]]), [[0, 1, 2]])
    with pytest.raises(sinew.Error, match="faces holds -1, out of range"):
        sinew.prep.cloth(v, [[0, 1, -1]])
    with pytest.raises(TypeError):
        sinew.prep.cloth(v, [[0, 1, 2]], shearing=False)


def test_prep_refuses_a_build_past_max_memory():
    # eleven subdivisions of one square: some 4 M triangles, refused at once
    with pytest.raises(sinew.Error, match="max_memory") as e:
        sinew.prep.grid(2, 2, subdivide=11, max_memory=64 << 20)
    assert e.value.result == "ERROR_LIMIT"
    assert sinew.prep.grid(2, 2, subdivide=2, max_memory=64 << 20).info.particle_count == 25


def test_cloth_from_arrays_keeps_its_render_mesh(ctx, tmp_path):
    v = np.array([[0, 1, 0], [1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=float)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    asset = sinew.prep.cloth(v, [[0, 1, 2, 3]], uvs=uv, pins=[0], name="quad")
    assert asset.report.particle_count == 4 and asset.report.shear_count == 2
    asset.save(tmp_path / "quad.snw")
    again = sinew.Asset.load(tmp_path / "quad.snw")
    assert again.info == asset.info


def test_fabric_membrane(ctx):
    fabrics = sorted((REPO / "data" / "fabrics").glob("*.json"))
    if not fabrics:
        pytest.skip("no fabric files in data/fabrics")
    m = sinew.prep.fabric(fabrics[0])
    assert m.model == "tabulated"
    asset = sinew.prep.grid(8, 8, membrane=m)
    assert asset.info.membrane_count == asset.info.triangle_count
