"""Fixtures of the package's tests: one context for all, and sinew's C tools
(for the tests that compare Python with them).

The tools are looked for in SINEW_TOOLS, else the repository's build/tools
(tools/run.sh build makes them). Without them those tests are skipped,
unless SINEW_REQUIRE_TOOLS=1 (CI) makes their absence a failure.
"""

import os
import pathlib

import pytest

import sinew

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ctx():
    c = sinew.Context(validation=True)
    yield c
    assert c.validation_messages == 0
    c.close()


@pytest.fixture(scope="session")
def tools():
    d = pathlib.Path(os.environ.get("SINEW_TOOLS", REPO / "build" / "tools"))
    if not (d / "sinew-sim").exists() or not (d / "sinew-prep").exists():
        why = f"sinew's tools are not in {d} (build them with tools/run.sh build, or set SINEW_TOOLS)"
        if os.environ.get("SINEW_REQUIRE_TOOLS") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return d
