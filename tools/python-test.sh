#!/bin/sh
# The Python package's stage of the test suite (docs/python.md): builds and
# installs python/ into a virtual environment (build/python-venv, made once;
# the package's CMake build kept in build/python-build, so a second run
# rebuilds only what changed), then runs its tests with pytest against the
# release build's tools (build/tools), which it requires:
#
#   tools/python-test.sh [pytest options]
#
# Needs Python 3.9 or newer with venv (Debian: python3-venv, installed here
# when missing) and the packages PyPI gives (scikit-build-core, numpy,
# pytest, mypy).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
venv="$build/python-venv"

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        echo "installing python3-venv"
        sudo_if_needed apt-get update -qq
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$venv"
    fi
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check pytest mypy
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --config-settings=build-dir="$build/python-build" "$root/python"
# From a folder of its own, so that `import sinew` is the installed package.
cd "$build"
SINEW_TOOLS="$build/tools" SINEW_REQUIRE_TOOLS=1 exec "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    "$root/python/tests" "$@"
