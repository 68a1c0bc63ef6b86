"""sinew: deformable bodies (cloth, soft solids, mass-spring networks) on any
Vulkan device, from Python.

    import sinew
    ctx = sinew.Context()
    body = ctx.create_body(sinew.Asset.load("cloth.snw"), solver="xpbd-gs")
    for _ in range(60):
        body.step()
    x = body.positions()          # (N, 3) float32

The package follows the C API (include/sinew/*.h) thinly; docs/python.md
says how the two correspond. Failures raise sinew.Error with the library's
message; arguments that are not finite or out of range are refused before
they reach the device.
"""

from . import prep
from ._core import Asset, Body, Collider, Context, World, solver_label, solvers
from ._lib import Error, lib as _c
from ._types import (AssetInfo, Attachment, ColliderInfo, DeviceInfo, Frame, Material, PrepReport, Shape,
                     StaticError, StepParams, StepStats, WorldStats)

__version__ = "0.3.0"


def version() -> str:
    """The C library's version, as built."""
    v = _c.version()
    return f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"


__all__ = ["Asset", "AssetInfo", "Attachment", "Body", "Collider", "ColliderInfo", "Context", "DeviceInfo", "Error",
           "Frame", "Material", "PrepReport", "Shape", "StaticError", "StepParams", "StepStats", "World", "WorldStats", "prep",
           "solver_label", "solvers", "version"]
