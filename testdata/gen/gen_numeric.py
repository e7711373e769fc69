#!/usr/bin/python3
"""Writes testdata/eval/numeric_golden.json: expected results of ir/eval's
numeric ops (dot, convolution, reduce, reduce-window, select-and-scatter,
sort, topk, cholesky, triangular-solve, fft, batch norm) computed
independently with numpy, read by ir/eval's TestNumericGolden.

Run from the repository root:  /usr/bin/python3 testdata/gen/gen_numeric.py

The file is a JSON list of cases:
  {"name": ..., "hlo": HLO module text,
   "args": [{"type": "f32", "dims": [2, 3], "hex": ...}, ...],
   "want": [...same form, one per output...],
   "tol": relative tolerance per element (0: exact)}
HEX is the little-endian bytes of Kiln's dense row-major storage (pred one
byte 0/1; bf16/f16 their bits; complex real then imaginary).
"""

import json
import os

import numpy as np

rng = np.random.default_rng(7)
cases = []

NP = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
      "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64,
      "c64": np.complex64, "c128": np.complex128}


def bf16_bits(a):
    """Round float32 values to bfloat16 (nearest even) and return the bits."""
    b = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def enc(t, a):
    a = np.asarray(a)
    if t == "bf16":
        data = a.astype(np.uint16)  # already bits
    else:
        data = a.astype(NP[t])
    return {"type": t, "dims": list(a.shape), "hex": np.ascontiguousarray(data).tobytes().hex()}


def shape(t, dims):
    return "%s[%s]" % (t, ",".join(str(d) for d in dims))


def add_case(name, hlo, args, want, tol=0.0):
    cases.append({"name": name, "hlo": hlo.strip() + "\n", "args": [enc(t, a) for t, a in args],
                  "want": [enc(t, a) for t, a in want], "tol": tol})


def rand(t, dims):
    if t in ("f16", "f32", "f64"):
        return rng.uniform(-1, 1, dims).astype(NP[t])
    if t in ("c64", "c128"):
        return (rng.uniform(-1, 1, dims) + 1j * rng.uniform(-1, 1, dims)).astype(NP[t])
    if t == "pred":
        return rng.integers(0, 2, dims).astype(np.bool_)
    if t[0] == "u":
        return rng.integers(0, 10, dims).astype(NP[t])
    return rng.integers(-9, 10, dims).astype(NP[t])


TOL = {"f16": 2e-3, "bf16": 1e-2, "f32": 2e-6, "f64": 1e-13, "c64": 2e-6, "c128": 1e-13}


def reducer(name, op, t):
    return "%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT r = %s[] %s(a, b)\n}\n" % (name, t, t, t, op)


# ---- dot ------------------------------------------------------------------

for t in ["f16", "f32", "f64", "c64", "c128", "s8", "s32", "s64", "u8", "u32", "pred"]:
    a, b = rand(t, (3, 4, 5)), rand(t, (3, 5, 2))
    if t == "pred":
        want = np.einsum("bmk,bkn->bmn", a.astype(np.int64), b.astype(np.int64)) != 0
    elif t[0] in "su":
        want = np.einsum("bmk,bkn->bmn", a.astype(np.int64), b.astype(np.int64)).astype(NP[t])
    elif t == "f16":
        want = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64)).astype(np.float32).astype(np.float16)
    else:
        want = np.einsum("bmk,bkn->bmn", a.astype(np.complex128 if t[0] == "c" else np.float64),
                         b.astype(np.complex128 if t[0] == "c" else np.float64)).astype(NP[t])
    add_case("dot batch " + t, """HloModule m
ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  ROOT d = %s dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}""" % (shape(t, a.shape), shape(t, b.shape), shape(t, want.shape)), [(t, a), (t, b)], [(t, want)], TOL.get(t, 0))

# bf16 dot: inputs are bfloat16 bit patterns.
a32, b32 = rng.uniform(-1, 1, (4, 6)).astype(np.float32), rng.uniform(-1, 1, (6, 3)).astype(np.float32)
ab, bb = bf16_bits(a32), bf16_bits(b32)
want = bf16_bits((bf16_values(ab).astype(np.float64) @ bf16_values(bb).astype(np.float64)).astype(np.float32))
add_case("dot bf16", """HloModule m
ENTRY e {
  a = bf16[4,6] parameter(0)
  b = bf16[6,3] parameter(1)
  ROOT d = bf16[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}""", [("bf16", ab), ("bf16", bb)], [("bf16", want)], TOL["bf16"])

# ---- convolution ------------------------------------------------------------


def conv_nchw(x, w, stride, pad, lhs_dil, rhs_dil, groups=1):
    """x [N,C,H,W], w [O,I,KH,KW]; XLA semantics, computed with numpy."""
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    # Base dilation.
    hd, wdd = (h - 1) * lhs_dil[0] + 1, (wd - 1) * lhs_dil[1] + 1
    xd = np.zeros((n, c, hd, wdd), dtype=np.float64)
    xd[:, :, ::lhs_dil[0], ::lhs_dil[1]] = x
    # Padding (negative crops).
    (pl0, ph0), (pl1, ph1) = pad
    xp = np.pad(xd, ((0, 0), (0, 0), (max(pl0, 0), max(ph0, 0)), (max(pl1, 0), max(ph1, 0))))
    xp = xp[:, :, max(-pl0, 0):xp.shape[2] - max(-ph0, 0), max(-pl1, 0):xp.shape[3] - max(-ph1, 0)]
    # Window dilation.
    ekh, ekw = (kh - 1) * rhs_dil[0] + 1, (kw - 1) * rhs_dil[1] + 1
    wdil = np.zeros((o, i, ekh, ekw), dtype=np.float64)
    wdil[:, :, ::rhs_dil[0], ::rhs_dil[1]] = w
    oh = (xp.shape[2] - ekh) // stride[0] + 1
    ow = (xp.shape[3] - ekw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for y in range(oh):
        for xq in range(ow):
            patch = xp[:, :, y * stride[0]:y * stride[0] + ekh, xq * stride[1]:xq * stride[1] + ekw]
            for g in range(groups):
                out[:, g * og:(g + 1) * og, y, xq] = np.einsum(
                    "nchw,ochw->no", patch[:, g * i:(g + 1) * i], wdil[g * og:(g + 1) * og])
    return out


for t, tol in [("f32", 1e-5), ("f64", 1e-12), ("s32", 0)]:
    x = rand(t, (2, 4, 7, 6))
    w = rand(t, (6, 2, 3, 2))
    want = conv_nchw(x.astype(np.float64), w.astype(np.float64), (2, 1), ((1, 2), (-1, 1)), (1, 2), (2, 1), groups=2)
    # Kiln's input is NHWC and kernel HWIO with output NHWC: transpose.
    xn = np.transpose(x, (0, 2, 3, 1))
    wn = np.transpose(w, (2, 3, 1, 0))
    wantn = np.transpose(want, (0, 2, 3, 1)).astype(NP[t])
    add_case("conv nhwc groups dilation " + t, """HloModule m
ENTRY e {
  x = %s parameter(0)
  w = %s parameter(1)
  ROOT c = %s convolution(x, w), window={size=3x2 stride=2x1 pad=1_2x-1_1 lhs_dilate=1x2 rhs_dilate=2x1}, dim_labels=b01f_01io->b01f, feature_group_count=2
}""" % (shape(t, xn.shape), shape(t, wn.shape), shape(t, wantn.shape)), [(t, xn), (t, wn)], [(t, wantn)], tol)

# A plain NCHW 3x3 convolution with SAME padding.
x, w = rand("f32", (1, 3, 8, 8)), rand("f32", (5, 3, 3, 3))
want = conv_nchw(x.astype(np.float64), w.astype(np.float64), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)).astype(np.float32)
add_case("conv nchw same", """HloModule m
ENTRY e {
  x = f32[1,3,8,8] parameter(0)
  w = f32[5,3,3,3] parameter(1)
  ROOT c = f32[1,5,8,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
}""", [("f32", x), ("f32", w)], [("f32", want)], 1e-5)

# ---- reduce ---------------------------------------------------------------

for t in ["f32", "f64", "f16", "s32", "u8", "s64", "c64"]:
    x = rand(t, (3, 4, 5))
    for op, fn in [("add", np.sum), ("maximum", np.max), ("minimum", np.min), ("multiply", np.prod)]:
        if t == "c64" and op in ("maximum", "minimum"):
            continue
        wide = x.astype(np.complex128 if t == "c64" else (np.int64 if t[0] in "su" else np.float64))
        if op == "multiply":
            want = fn(wide, axis=(0, 2))
        else:
            want = fn(wide, axis=(0, 2))
        if t[0] in "su":
            want = want.astype(np.int64).astype(NP[t]) if op != "multiply" else np.array(
                [int(v) for v in want.ravel()], dtype=object).astype(np.int64).astype(NP[t])
        init = {"add": 0, "multiply": 1}.get(op)
        if init is None:
            init = (-np.inf if op == "maximum" else np.inf) if t[0] in "fc" else (
                np.iinfo(NP[t]).min if op == "maximum" else np.iinfo(NP[t]).max)
        want = np.asarray(want).astype(NP[t])
        add_case("reduce %s %s" % (op, t), """HloModule m
%s
ENTRY e {
  x = %s parameter(0)
  i = %s[] parameter(1)
  ROOT r = %s reduce(x, i), dimensions={0,2}, to_apply=red
}""" % (reducer("red", op, t), shape(t, x.shape), t, shape(t, want.shape)),
                 [(t, x), (t, np.asarray(init).astype(NP[t]))], [(t, want)], TOL.get(t, 0) * 4)

# ---- reduce-window --------------------------------------------------------

x = rand("f32", (2, 9, 7, 3))
xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (0, 1), (0, 0)), constant_values=-np.inf)
oh, ow = (xp.shape[1] - 3) // 2 + 1, (xp.shape[2] - 3) // 2 + 1
want = np.empty((2, oh, ow, 3))
for y in range(oh):
    for q in range(ow):
        want[:, y, q, :] = xp[:, 2 * y:2 * y + 3, 2 * q:2 * q + 3, :].max(axis=(1, 2))
add_case("reduce-window maxpool f32", """HloModule m
%s
ENTRY e {
  x = f32[2,9,7,3] parameter(0)
  i = f32[] constant(-inf)
  ROOT r = %s reduce-window(x, i), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x0_1x0_0}, to_apply=mx
}""" % (reducer("mx", "maximum", "f32"), shape("f32", want.shape)), [("f32", x)], [("f32", want.astype(np.float32))], 0)

x = rand("s32", (10,))
xd = np.zeros(19, dtype=np.int64)
xd[::2] = x  # base dilation 2
xpad = np.pad(xd, (2, 1))
ws = 3
# window dilation 2: taps at 0, 2, 4
n_out = (len(xpad) - (2 * (ws - 1) + 1)) // 3 + 1
want = np.array([xpad[3 * o] + xpad[3 * o + 2] + xpad[3 * o + 4] for o in range(n_out)], dtype=np.int32)
add_case("reduce-window dilated sum s32", """HloModule m
%s
ENTRY e {
  x = s32[10] parameter(0)
  i = s32[] constant(0)
  ROOT r = %s reduce-window(x, i), window={size=3 stride=3 pad=2_1 lhs_dilate=2 rhs_dilate=2}, to_apply=add
}""" % (reducer("add", "add", "s32"), shape("s32", want.shape)), [("s32", x)], [("s32", want)], 0)

# ---- select-and-scatter (max-pool gradient) ---------------------------------

x = rng.permutation(48).reshape(6, 8).astype(np.float32)  # distinct values: no ties
src = rand("f32", (3, 4))
want = np.zeros((6, 8), dtype=np.float64)
for y in range(3):
    for q in range(4):
        win = x[2 * y:2 * y + 2, 2 * q:2 * q + 2]
        a, b = np.unravel_index(np.argmax(win), win.shape)
        want[2 * y + a, 2 * q + b] += src[y, q]
add_case("select-and-scatter maxpool grad", """HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
%s
ENTRY e {
  x = f32[6,8] parameter(0)
  s = f32[3,4] parameter(1)
  i = f32[] constant(0)
  ROOT r = f32[6,8] select-and-scatter(x, s, i), window={size=2x2 stride=2x2}, select=ge, scatter=add
}""" % reducer("add", "add", "f32"), [("f32", x), ("f32", src)], [("f32", want.astype(np.float32))], 0)

# ---- sort and topk ----------------------------------------------------------

for t in ["f32", "s32", "u16", "f64"]:
    k = rand(t, (4, 9))
    v = rng.integers(0, 100, (4, 9)).astype(np.int32)
    order = np.argsort(k, axis=1, kind="stable")
    add_case("sort by key " + t, """HloModule m
cmp {
  a = %s[] parameter(0)
  b = %s[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = %s parameter(0)
  v = s32[4,9] parameter(1)
  ROOT s = (%s, s32[4,9]) sort(k, v), dimensions={1}, is_stable=true, to_apply=cmp
}""" % (t, t, shape(t, k.shape), shape(t, k.shape)), [(t, k), ("s32", v)],
             [(t, np.take_along_axis(k, order, 1)), ("s32", np.take_along_axis(v, order, 1))], 0)

x = rand("f32", (3, 11))
x[0, 3] = x[0, 7]  # a tie: the lower index first
idx = np.argsort(-x.astype(np.float64), axis=1, kind="stable")[:, :4]
add_case("topk f32", """HloModule m
ENTRY e {
  x = f32[3,11] parameter(0)
  ROOT t = (f32[3,4], s32[3,4]) topk(x), k=4, largest=true
}""", [("f32", x)], [("f32", np.take_along_axis(x, idx, 1)), ("s32", idx.astype(np.int32))], 0)

# ---- cholesky and triangular-solve -------------------------------------------

for t in ["f32", "f64", "c64", "c128"]:
    m = rand(t, (2, 4, 4)).astype(np.complex128 if t[0] == "c" else np.float64)
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + 4 * np.eye(4)
    a = a.astype(NP[t])
    l = np.linalg.cholesky(a.astype(np.complex128 if t[0] == "c" else np.float64))
    add_case("cholesky lower " + t, """HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT l = %s cholesky(a), lower=true
}""" % (shape(t, a.shape), shape(t, a.shape)), [(t, a)], [(t, l.astype(NP[t]))], TOL[t] * 10)
    u = np.conj(np.swapaxes(l, -1, -2))
    add_case("cholesky upper " + t, """HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT l = %s cholesky(a), lower=false
}""" % (shape(t, a.shape), shape(t, a.shape)), [(t, a)], [(t, u.astype(NP[t]))], TOL[t] * 10)

for t in ["f32", "f64", "c128"]:
    wide = np.complex128 if t[0] == "c" else np.float64
    a = rand(t, (2, 5, 5)).astype(wide) + 3 * np.eye(5)
    b = rand(t, (2, 5, 3)).astype(wide)
    lo = np.tril(a)
    x = np.linalg.solve(np.conj(np.swapaxes(lo, -1, -2)), b)  # ADJOINT of lower, left side
    add_case("triangular-solve left lower adjoint " + t, """HloModule m
ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  ROOT x = %s triangular-solve(a, b), left_side=true, lower=true, transpose_a=ADJOINT
}""" % (shape(t, a.shape), shape(t, b.shape), shape(t, b.shape)), [(t, a.astype(NP[t])), (t, b.astype(NP[t]))],
             [(t, x.astype(NP[t]))], TOL[t] * 20)
    b2 = rand(t, (2, 3, 5)).astype(wide)
    up = np.triu(a)
    up[:, range(5), range(5)] = 1  # unit diagonal
    x2 = np.swapaxes(np.linalg.solve(np.swapaxes(up, -1, -2), np.swapaxes(b2, -1, -2)), -1, -2)  # x·U = b
    add_case("triangular-solve right upper unit " + t, """HloModule m
ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  ROOT x = %s triangular-solve(a, b), left_side=false, lower=false, unit_diagonal=true, transpose_a=NO_TRANSPOSE
}""" % (shape(t, a.shape), shape(t, b2.shape), shape(t, b2.shape)), [(t, a.astype(NP[t])), (t, b2.astype(NP[t]))],
             [(t, x2.astype(NP[t]))], TOL[t] * 20)

# ---- fft ------------------------------------------------------------------

for n in [8, 12, 7, 97]:
    x = rand("c128", (2, n))
    add_case("fft %d" % n, """HloModule m
ENTRY e {
  x = c128[2,%d] parameter(0)
  ROOT f = c128[2,%d] fft(x), fft_type=FFT, fft_length={%d}
}""" % (n, n, n), [("c128", x)], [("c128", np.fft.fft(x))], 1e-12)
x = rand("c64", (3, 5, 6))
add_case("ifft 2d c64", """HloModule m
ENTRY e {
  x = c64[3,5,6] parameter(0)
  ROOT f = c64[3,5,6] fft(x), fft_type=IFFT, fft_length={5,6}
}""", [("c64", x)], [("c64", np.fft.ifft2(x.astype(np.complex128)).astype(np.complex64))], 1e-5)
x = rand("f32", (2, 3, 4, 10))
add_case("rfft 3d f32", """HloModule m
ENTRY e {
  x = f32[2,3,4,10] parameter(0)
  ROOT f = c64[2,3,4,6] fft(x), fft_type=RFFT, fft_length={3,4,10}
}""", [("f32", x)], [("c64", np.fft.rfftn(x.astype(np.float64), axes=(1, 2, 3)).astype(np.complex64))], 1e-5)
x = rand("c128", (4, 6))
add_case("irfft 2d c128 odd", """HloModule m
ENTRY e {
  x = c128[4,6] parameter(0)
  ROOT f = f64[4,11] fft(x), fft_type=IRFFT, fft_length={4,11}
}""", [("c128", x)], [("f64", np.fft.irfftn(x, s=(4, 11)))], 1e-12)
x = rand("c128", (3, 5))
add_case("irfft 1d c128 even", """HloModule m
ENTRY e {
  x = c128[3,5] parameter(0)
  ROOT f = f64[3,8] fft(x), fft_type=IRFFT, fft_length={8}
}""", [("c128", x)], [("f64", np.fft.irfft(x, n=8))], 1e-12)

# ---- batch norm -------------------------------------------------------------

for t in ["f32", "f64"]:
    x = rand(t, (4, 3, 5)).astype(np.float64) * 3 + 1
    scale, offset = rand(t, (3,)).astype(np.float64), rand(t, (3,)).astype(np.float64)
    eps = 0.001
    xs = x.astype(NP[t]).astype(np.float64)
    sc, of = scale.astype(NP[t]).astype(np.float64), offset.astype(NP[t]).astype(np.float64)
    axes = (0, 2)
    mean = xs.mean(axis=axes)
    var = (xs * xs).mean(axis=axes) - mean * mean
    bc = lambda v: v[None, :, None]
    y = (xs - bc(mean)) / np.sqrt(bc(var) + np.float64(np.float32(eps))) * bc(sc) + bc(of)
    add_case("batch-norm-training " + t, """HloModule m
ENTRY e {
  x = %s[4,3,5] parameter(0)
  s = %s[3] parameter(1)
  o = %s[3] parameter(2)
  ROOT b = (%s[4,3,5], %s[3], %s[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
}""" % ((t,) * 6), [(t, xs), (t, sc), (t, of)], [(t, y), (t, mean), (t, var)], TOL[t] * 10)
    m, v = rand(t, (3,)).astype(np.float64), np.abs(rand(t, (3,)).astype(np.float64)) + 0.5
    m, v = m.astype(NP[t]).astype(np.float64), v.astype(NP[t]).astype(np.float64)
    e32 = np.float64(np.float32(eps))
    yi = (xs - bc(m)) / np.sqrt(bc(v) + e32) * bc(sc) + bc(of)
    add_case("batch-norm-inference " + t, """HloModule m
ENTRY e {
  x = %s[4,3,5] parameter(0)
  s = %s[3] parameter(1)
  o = %s[3] parameter(2)
  m = %s[3] parameter(3)
  v = %s[3] parameter(4)
  ROOT b = %s[4,3,5] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1
}""" % ((t,) * 6), [(t, xs), (t, sc), (t, of), (t, m), (t, v)], [(t, yi)], TOL[t] * 10)
    dy = rand(t, (4, 3, 5)).astype(NP[t]).astype(np.float64)
    nn = 20.0
    d = xs - bc(m)
    r = 1 / np.sqrt(v + e32)
    gscale = (dy * d).sum(axis=axes) * r
    goff = dy.sum(axis=axes)
    gx = bc(sc * r) / nn * (nn * dy - bc(goff) - d * bc((dy * d).sum(axis=axes)) / bc(v + e32))
    add_case("batch-norm-grad " + t, """HloModule m
ENTRY e {
  x = %s[4,3,5] parameter(0)
  s = %s[3] parameter(1)
  m = %s[3] parameter(2)
  v = %s[3] parameter(3)
  dy = %s[4,3,5] parameter(4)
  ROOT b = (%s[4,3,5], %s[3], %s[3]) batch-norm-grad(x, s, m, v, dy), epsilon=0.001, feature_index=1
}""" % ((t,) * 8), [(t, xs), (t, sc), (t, m), (t, v), (t, dy)], [(t, gx), (t, gscale), (t, goff)], TOL[t] * 10)

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "..", "eval", "numeric_golden.json")
with open(path, "w") as f:
    json.dump(cases, f, indent=0)
    f.write("\n")
print("wrote %d cases to %s" % (len(cases), os.path.normpath(path)))
