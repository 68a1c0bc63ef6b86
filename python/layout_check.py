"""Writes a C file that asserts the Python package's view of the C API.

    python3 layout_check.py OUT.c

For every structure of sinew/_ffi.py: its size and each field's offset as
ctypes computes them; for every enumeration value it names: the value. Each
becomes a _Static_assert against the headers, so the package's build fails,
naming the field, when the two disagree (python/CMakeLists.txt compiles it).
"""

import importlib.util
import pathlib
import sys


def load_ffi():
    path = pathlib.Path(__file__).resolve().parent / "sinew" / "_ffi.py"
    spec = importlib.util.spec_from_file_location("sinew_ffi_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_source(ffi):
    import ctypes

    lines = ["/* Written by python/layout_check.py from python/sinew/_ffi.py. */",
             "#include <stddef.h>", "#include <sinew/sinew.h>", "#include <sinew/prep.h>", ""]
    for s in ffi.STRUCTS:
        c = s._c_name_
        lines.append(f'_Static_assert(sizeof({c}) == {ctypes.sizeof(s)}, '
                     f'"python/sinew/_ffi.py: sizeof({c}) is not {ctypes.sizeof(s)}");')
        for name, _ in s._fields_:
            off = getattr(s, name).offset
            lines.append(f'_Static_assert(offsetof({c}, {name}) == {off}, '
                         f'"python/sinew/_ffi.py: {c}.{name} is not at byte {off}");')
    for name, value in ffi.ENUMS.items():
        lines.append(f'_Static_assert({name} == {value}, "python/sinew/_ffi.py: {name} is not {value}");')
    lines.append("int sinew_python_layout_checked;")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: layout_check.py OUT.c")
    text = check_source(load_ffi())
    out = pathlib.Path(argv[1])
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


if __name__ == "__main__":
    main(sys.argv)
