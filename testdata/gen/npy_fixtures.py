#!/usr/bin/python3
"""Writes internal/npy/testdata/: .npy and .npz files numpy itself wrote, one
per dtype and layout, read back by internal/npy's tests.

Run from the repository root:  /usr/bin/python3 testdata/gen/npy_fixtures.py

Every array holds arange(n) in its dtype reshaped to its shape, so a test
knows each element's value from its row-major index alone (bool: i % 2 == 1,
complex: i - i*1j).
"""

import os

import numpy as np

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "internal", "npy", "testdata")
os.makedirs(root, exist_ok=True)


def values(dtype, shape):
    n = int(np.prod(shape))
    i = np.arange(n)
    if dtype == np.bool_:
        v = i % 2 == 1
    elif np.issubdtype(dtype, np.complexfloating):
        v = i - 1j * i
    elif np.issubdtype(dtype, np.signedinteger) or np.issubdtype(dtype, np.floating):
        v = i - 3
    else:
        v = i
    return np.asarray(v, dtype=dtype).reshape(shape)


dtypes = {"b1": np.bool_, "i1": np.int8, "i2": np.int16, "i4": np.int32, "i8": np.int64,
          "u1": np.uint8, "u2": np.uint16, "u4": np.uint32, "u8": np.uint64,
          "f2": np.float16, "f4": np.float32, "f8": np.float64, "c8": np.complex64, "c16": np.complex128}
for code, dt in dtypes.items():
    a = values(dt, (2, 3, 4))
    np.save(os.path.join(root, "%s_c.npy" % code), a)
    np.save(os.path.join(root, "%s_fortran.npy" % code), np.asfortranarray(a))
    if a.dtype.itemsize > 1:
        np.save(os.path.join(root, "%s_big.npy" % code), a.astype(a.dtype.newbyteorder(">")))
np.save(os.path.join(root, "scalar_f8.npy"), np.float64(-2.5))
np.save(os.path.join(root, "empty_f4.npy"), np.zeros((0, 3), dtype=np.float32))
np.save(os.path.join(root, "vector_i4.npy"), values(np.int32, (5,)))
with open(os.path.join(root, "v2_f4.npy"), "wb") as f:
    np.lib.format.write_array(f, values(np.float32, (2, 3)), version=(2, 0))
np.savez(os.path.join(root, "pair.npz"), w=values(np.float32, (3, 2)), b=values(np.int64, (2,)))
print("wrote", root)
