"""Loads the libraries beside the package and turns results into exceptions.

The C library reports a failure twice: a result code, and messages naming
what was wrong sent to the logger. Every call the package makes goes
through call(): the messages the library logs at ERROR during the call are
collected and raised with the code as a sinew.Error; warnings and
information go to Python's logging (logger "sinew").
"""

import ctypes as C
import logging
import os
import pathlib
import sys
import threading
from typing import Any

from . import _ffi

log = logging.getLogger("sinew")


class Error(Exception):
    """A call the library refused or that failed.

    ``result`` is the library's result code as its C name without the
    prefix ("ERROR_INVALID_ARGUMENT"), ``messages`` what it logged as errors
    during the call (each naming what was wrong)."""

    def __init__(self, what, result="ERROR_INVALID_ARGUMENT", messages=()):
        self.what = what
        self.result = result
        self.messages = list(messages)
        text = what
        if self.messages:
            text += ": " + "; ".join(self.messages)
        super().__init__(text)


_RESULTS = ["OK", "ERROR_INVALID_ARGUMENT", "ERROR_IO", "ERROR_BAD_ASSET", "ERROR_BAD_MESH",
            "ERROR_OUT_OF_HOST_MEMORY", "ERROR_OUT_OF_DEVICE_MEMORY", "ERROR_NO_VULKAN", "ERROR_NO_DEVICE",
            "ERROR_UNSUPPORTED", "ERROR_DEVICE_LOST", "ERROR_VULKAN", "ERROR_LIMIT", "ERROR_UNSTABLE"]


def _library_dir():
    here = pathlib.Path(__file__).resolve().parent
    return pathlib.Path(os.environ.get("SINEW_PYTHON_LIBRARY_DIR", here))


def _load(name):
    suffix = {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so")
    path = _library_dir() / f"lib{name}{suffix}"
    try:
        return C.CDLL(str(path), mode=getattr(C, "RTLD_GLOBAL", 0))
    except OSError as e:
        raise ImportError(f"sinew: cannot load {path} ({e}); reinstall the package (pip install ./python)") from e


def _bind(lib, table):
    for name, (restype, argtypes) in table.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
        setattr(_fns, name[len("sinew_"):], fn)


class _Functions:
    """The C functions, by name without the sinew_ prefix (bound below)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"sinew: no C function sinew_{name} is bound")


_fns = _Functions()
_runtime = _load("sinew")
_prep = _load("sinew_prep")
_bind(_runtime, _ffi.FUNCTIONS)
_bind(_prep, _ffi.PREP_FUNCTIONS)
lib = _fns

# ---------------------------------------------------------------- messages

_state = threading.local()


def _errors():
    if not hasattr(_state, "errors"):
        _state.errors = []
    return _state.errors


def _on_message(user, level, tag, message):
    text = message.decode("utf-8", "replace") if message else ""
    if level == _ffi.ENUMS["SINEW_LOG_ERROR"]:
        _errors().append(text)
        log.debug("%s", text)
    elif level == _ffi.ENUMS["SINEW_LOG_WARNING"]:
        log.warning("%s", text)
    elif level == _ffi.ENUMS["SINEW_LOG_INFO"]:
        log.info("%s", text)
    else:
        log.debug("%s", text)


_callback = _ffi.LOG_FN(_on_message)  # kept alive as long as the module


def logger():
    """A sinew_logger sending every message to _on_message."""
    return _ffi.Logger(fn=_callback, user=None, level=_ffi.ENUMS["SINEW_LOG_DEBUG"])


LOGGER = logger()


def result_name(code):
    return _RESULTS[code] if 0 <= code < len(_RESULTS) else f"result {code}"


def call(fn, *args, what):
    """fn(*args); a result other than OK raises Error(what, ...) with the
    messages the library logged meanwhile."""
    errors = _errors()
    del errors[:]
    r = fn(*args)
    if r != 0:
        text = lib.result_string(r).decode()
        raise Error(f"{what}: {text}", result_name(r), list(errors))
    del errors[:]
    return r


def cstr(s):
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode()
