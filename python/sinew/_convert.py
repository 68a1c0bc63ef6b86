"""Python values to the C structures' fields, refused before any call when
they are not what the field takes: NaN or an infinity, a count out of range,
a sequence of the wrong length. Refusals raise sinew.Error naming the field."""

import ctypes as C
import math
import numbers

import numpy as np

from ._lib import Error

_FLOATS = (C.c_float, C.c_double)
_UNSIGNED = {C.c_uint8: 2**8, C.c_uint32: 2**32, C.c_uint64: 2**64}
_FLOAT_MAX = {C.c_float: 3.4028234663852886e38, C.c_double: float("inf")}


def refuse(where, why):
    raise Error(f"{where} {why}", "ERROR_INVALID_ARGUMENT")


def number(value, where, ctype=C.c_double, infinite_ok=False):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        refuse(where, f"= {value!r} is not a number")
    v = float(value)
    if math.isnan(v):
        refuse(where, "is NaN")
    if math.isinf(v) and not infinite_ok:
        refuse(where, f"= {v} is not finite")
    if not math.isinf(v) and abs(v) > _FLOAT_MAX[ctype]:
        refuse(where, f"= {v} is beyond a float's range")
    return v


def count(value, where, limit=2**32):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        refuse(where, f"= {value!r} is not an integer")
    v = int(value)
    if v < 0 or v >= limit:
        refuse(where, f"= {v} is out of range (0 .. {limit - 1})")
    return v


def field(ctype, value, where, infinite_ok=False):
    """value as a field of C type ctype takes it."""
    if ctype in _FLOATS:
        return number(value, where, ctype, infinite_ok)
    if ctype in _UNSIGNED:
        return count(value, where, _UNSIGNED[ctype])
    if ctype is C.c_int:
        if isinstance(value, (bool, np.bool_)):
            return int(value)
        if isinstance(value, numbers.Integral) and -2**31 <= int(value) < 2**31:
            return int(value)
        refuse(where, f"= {value!r} is not a flag or an integer")
    if hasattr(ctype, "_length_"):
        items = list(value) if not isinstance(value, (str, bytes)) else None
        if items is None or len(items) != ctype._length_:
            refuse(where, f"= {value!r} is not a sequence of {ctype._length_}")
        return ctype(*(field(ctype._type_, v, f"{where}[{k}]", infinite_ok) for k, v in enumerate(items)))
    raise TypeError(f"{where}: no conversion for {ctype}")


def set_fields(struct, values, where, infinite_ok=()):
    """Sets struct's fields of the given names from values, each converted
    and checked; a name the structure lacks is a TypeError."""
    types = dict(type(struct)._fields_)
    for name, value in values.items():
        if name not in types:
            raise TypeError(f"{where}: unknown option {name!r}")
        setattr(struct, name, field(types[name], value, f"{where}: {name}", name in infinite_ok))


def plain(value):
    """A C field's value as plain Python: arrays as tuples (nested)."""
    if isinstance(value, C.Array):
        return tuple(plain(v) for v in value)
    if isinstance(value, bytes):
        return value.split(b"\0", 1)[0].decode("utf-8", "replace")
    return value


def array(value, where, dtype, columns=None, rows=None):
    """value as a C-contiguous numpy array of dtype, (rows, columns) when
    given, checked finite (floats) or within dtype's range (integers)."""
    try:
        a = np.asarray(value)
    except Exception as e:
        refuse(where, f"is not an array ({e})")
    if a.dtype == object:
        refuse(where, "is not an array of numbers")
    if columns is not None:
        if a.ndim == 1 and a.size == 0:
            a = a.reshape(0, columns)
        if a.ndim != 2 or a.shape[1] != columns:
            refuse(where, f"has shape {a.shape}, not (N, {columns})")
    if rows is not None and a.shape[0] != rows:
        refuse(where, f"has {a.shape[0]} rows, not {rows}")
    if np.issubdtype(np.dtype(dtype), np.floating):
        if not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
            refuse(where, f"holds {a.dtype}, not numbers")
        a = np.ascontiguousarray(a, dtype=dtype)
        if a.size and not np.all(np.isfinite(a)):
            bad = np.argwhere(~np.isfinite(a))[0]
            refuse(where, f"holds a value that is not finite at {tuple(int(i) for i in bad)}")
        return a
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if np.issubdtype(a.dtype, np.floating) and np.all(np.mod(a, 1) == 0):
            pass
        else:
            refuse(where, f"holds {a.dtype}, not integers")
    info = np.iinfo(dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        refuse(where, f"holds {int(a.min()) if a.min() < info.min else int(a.max())}, out of range")
    return np.ascontiguousarray(a, dtype=dtype)


def pointer(a, ctype):
    """A pointer to numpy array a's data as ctype (NULL for None)."""
    return None if a is None else a.ctypes.data_as(C.POINTER(ctype))
