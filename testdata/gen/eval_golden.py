#!/usr/bin/python3
"""Writes testdata/eval/golden.txt: expected results of elementwise and
data-movement HLO ops computed independently with numpy (and plain Python
integers where numpy's behaviour is undefined, e.g. shifts past the width or
division by zero), read by ir/eval's golden test.

Run from the repository root:  /usr/bin/python3 testdata/gen/eval_golden.py

Each case is one HLO module, its arguments and the expected result:

    === name
    HloModule ...
    ...
    ---
    arg TYPE DIMS HEX
    want TYPE DIMS HEX
    cmp exact|nan|ulp:N

TYPE is an XLA element type name, DIMS comma-separated sizes ("" for a
scalar), HEX the little-endian bytes of Kiln's dense row-major storage
(pred: one byte 0/1; s4/u4: one byte per element, s4 sign-extended; bf16,
f16, f8: their bit patterns; complex: real then imaginary). "cmp nan" is
exact except that any NaN matches any NaN; "ulp:N" allows N units in the
last place per real component.
"""

import math
import os
import sys

import numpy as np

np.seterr(all="ignore")
rng = np.random.default_rng(20240601)
out = []

NP = {
    "pred": np.uint8, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "s4": np.int8, "u4": np.uint8,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "bf16": np.uint16, "c64": np.complex64, "c128": np.complex128,
}
WIDTH = {"s4": 4, "u4": 4, "s8": 8, "u8": 8, "s16": 16, "u16": 16, "s32": 32, "u32": 32, "s64": 64, "u64": 64}


def shape_text(t, dims):
    return "%s[%s]" % (t, ",".join(str(d) for d in dims))


def hexbytes(t, a):
    return np.ascontiguousarray(np.asarray(a, dtype=NP[t])).tobytes().hex()


def case(name, module, args, want, cmp="exact"):
    out.append("=== " + name)
    out.append(module.strip())
    out.append("---")
    for t, a in args:
        a = np.asarray(a, dtype=NP[t])
        out.append("arg %s %s %s" % (t, ",".join(str(d) for d in a.shape), hexbytes(t, a)))
    t, a = want
    a = np.asarray(a, dtype=NP[t])
    out.append("want %s %s %s" % (t, ",".join(str(d) for d in a.shape), hexbytes(t, a)))
    out.append("cmp " + cmp)


def unary_module(op, t, tout, dims, attrs=""):
    s, so = shape_text(t, dims), shape_text(tout, dims)
    return "HloModule %s\nENTRY main {\n  x = %s parameter(0)\n  ROOT r = %s %s(x)%s\n}\n" % (
        op.replace("-", "_"), s, so, op, attrs)


def binary_module(op, t, tout, dims, attrs=""):
    s, so = shape_text(t, dims), shape_text(tout, dims)
    return ("HloModule %s\nENTRY main {\n  x = %s parameter(0)\n  y = %s parameter(1)\n"
            "  ROOT r = %s %s(x, y)%s\n}\n") % (op.replace("-", "_"), s, s, so, op, attrs)


# ---- value generators ----------------------------------------------------------

def special_floats(dt):
    f = np.finfo(dt)
    return np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, f.max, -f.max, f.tiny, -f.tiny,
                     f.tiny / 4, 0.5, 1.5, 2.5, -2.5, 3.0, 1e-3], dtype=dt)


def random_floats(dt, n, scale=10.0):
    v = rng.standard_normal(n) * scale
    v = np.concatenate([special_floats(dt), v.astype(dt)])
    return v.astype(dt)[:n] if len(v) > n else v.astype(dt)


def pairs(dt, n):
    a = random_floats(dt, n)
    b = random_floats(dt, n)
    rng.shuffle(b)
    # Include every special against every special at the front.
    s = special_floats(dt)
    sa, sb = np.meshgrid(s, s)
    a = np.concatenate([sa.ravel(), a]).astype(dt)
    b = np.concatenate([sb.ravel(), b]).astype(dt)
    return a, b


def int_values(t, n):
    w = WIDTH[t]
    signed = t.startswith("s")
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    edge = [lo, hi, 0, 1, -1 if signed else 2, lo + 1, hi - 1, 3, 7]
    vals = [min(max(v, lo), hi) for v in edge]
    while len(vals) < n:
        vals.append(int(rng.integers(lo, hi, endpoint=True, dtype=np.int64 if signed or w < 64 else np.uint64)))
        if len(vals) % 3 == 0:
            small = int(rng.integers(-9, 10))
            vals.append(min(max(small, lo), hi) if signed else small % (hi + 1))
    return vals[:n]


def to_np_int(t, vals):
    return np.array(vals, dtype=object).astype(NP[t]) if t not in ("u64",) else np.array(vals, dtype=np.uint64)


def wrap(t, v):
    w = WIDTH[t]
    v &= (1 << w) - 1
    if t.startswith("s") and v >= 1 << (w - 1):
        v -= 1 << w
    return v


# ---- bf16 helpers (numpy has no bfloat16) ----------------------------------

def f32_to_bf16_bits(a):
    a = np.asarray(a, dtype=np.float32)
    b = a.view(np.uint32).astype(np.uint64)
    nan = np.isnan(a)
    rounded = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    sign = ((b >> 16) & 0x8000).astype(np.uint16)
    return np.where(nan, sign | 0x7FC0, rounded).astype(np.uint16)


def bf16_bits_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


# ---- float arithmetic ----------------------------------------------------------

def xla_max(a, b):
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b:
        return b if math.copysign(1, a) < 0 else a
    return a if a > b else b


def xla_min(a, b):
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


def float_cases():
    n = 64
    for t, dt in (("f32", np.float32), ("f64", np.float64), ("f16", np.float16)):
        a, b = pairs(dt, n)
        dims = [len(a)]
        exact = {
            "add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b,
            "remainder": np.fmod(a, b),
        }
        for op, r in exact.items():
            case("%s_%s" % (t, op), binary_module(op, t, t, dims), [(t, a), (t, b)], (t, r), "nan")
        mx = np.array([xla_max(float(x), float(y)) for x, y in zip(a, b)], dtype=dt)
        mn = np.array([xla_min(float(x), float(y)) for x, y in zip(a, b)], dtype=dt)
        case("%s_maximum" % t, binary_module("maximum", t, t, dims), [(t, a), (t, b)], (t, mx), "nan")
        case("%s_minimum" % t, binary_module("minimum", t, t, dims), [(t, a), (t, b)], (t, mn), "nan")
        # pow and atan2: numpy's float64 result rounded to the type, 1 ulp.
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        pw = np.where((a64 == 1) | (b64 == 0), 1.0, np.power(a64, b64))
        case("%s_power" % t, binary_module("power", t, t, dims), [(t, a), (t, b)], (t, pw.astype(dt)),
             "ulp:2" if t == "f64" else "ulp:1")  # Go's float64 Pow errs by up to 2 ulps
        case("%s_atan2" % t, binary_module("atan2", t, t, dims), [(t, a), (t, b)], (t, np.arctan2(a64, b64).astype(dt)), "ulp:1")
        # Unary ops.
        x = random_floats(dt, 96, 3.0)
        if t == "f64":
            # Go's float64 sin/cos/tan lose accuracy after reducing arguments
            # near the top of the range; those stay out of this table.
            x = x[np.abs(np.nan_to_num(x)) < 2.0**29]
        x64 = x.astype(np.float64)
        dims = [len(x)]
        afz = np.where(np.abs(x64 - np.trunc(x64)) >= 0.5, np.trunc(x64) + np.sign(x64), np.trunc(x64))
        afz = np.where(np.isfinite(x64), afz, x64)
        sign = np.where(np.isnan(x64), x64, np.where(x64 > 0, 1.0, np.where(x64 < 0, -1.0, x64)))
        unary = {
            "negate": (-x64, "exact"), "abs": (np.abs(x64), "exact"), "floor": (np.floor(x64), "exact"),
            "ceil": (np.ceil(x64), "exact"), "round-nearest-even": (np.round(x64), "exact"),
            "round-nearest-afz": (afz, "exact"), "sign": (sign, "exact"), "sqrt": (np.sqrt(x64), "ulp:0"),
            "exponential": (np.exp(x64), "ulp:1"), "log": (np.log(x64), "ulp:1"),
            "log-plus-one": (np.log1p(x64), "ulp:1"), "exponential-minus-one": (np.expm1(x64), "ulp:1"),
            "tanh": (np.tanh(x64), "ulp:1"), "sine": (np.sin(x64), "ulp:1"), "cosine": (np.cos(x64), "ulp:1"),
            "tan": (np.tan(x64), "ulp:1"), "cbrt": (np.cbrt(x64), "ulp:1"),
            "rsqrt": (1 / np.sqrt(x64), "ulp:1"), "logistic": (1 / (1 + np.exp(-x64)), "ulp:1"),
            "erf": (np.array([math.erf(v) if not math.isnan(v) else v for v in x64]), "ulp:1"),
        }
        for op, (r, cmp) in unary.items():
            if t == "f16" and cmp != "exact":
                cmp = "ulp:1"
            if t == "f64" and cmp == "ulp:1":
                cmp = "ulp:4"  # Go's and numpy's float64 libm each err by an ulp or so
            if t == "f64" and op == "sqrt":
                cmp = "ulp:0"
            case("%s_%s" % (t, op), unary_module(op, t, t, dims), [(t, x)], (t, r.astype(dt)), "nan" if cmp == "exact" else cmp)
        fin = np.isfinite(x)
        case("%s_is-finite" % t, unary_module("is-finite", t, "pred", dims), [(t, x)], ("pred", fin.astype(np.uint8)))


def bf16_cases():
    # bf16 arithmetic: inputs are bf16 values; the result is the f32 result rounded to bf16.
    n = 64
    a = f32_to_bf16_bits(random_floats(np.float32, n))
    b = f32_to_bf16_bits(random_floats(np.float32, n)[::-1])
    fa, fb = bf16_bits_to_f32(a), bf16_bits_to_f32(b)
    for op, r in {"add": fa + fb, "multiply": fa * fb, "divide": fa / fb, "subtract": fa - fb}.items():
        case("bf16_" + op, binary_module(op, "bf16", "bf16", [n]), [("bf16", a), ("bf16", b)],
             ("bf16", f32_to_bf16_bits(r.astype(np.float32))), "nan")
    sq = np.sqrt(fa.astype(np.float64)).astype(np.float32)
    case("bf16_sqrt", unary_module("sqrt", "bf16", "bf16", [n]), [("bf16", a)], ("bf16", f32_to_bf16_bits(sq)), "nan")


def compare_cases():
    for t, dt, it in (("f32", np.float32, np.int32), ("f64", np.float64, np.int64), ("f16", np.float16, np.int16)):
        a, b = pairs(dt, 48)
        # Add negative NaNs.
        a = np.concatenate([a, -np.full(4, np.nan, dtype=dt)]).astype(dt)
        b = np.concatenate([b, np.array([np.nan, -np.nan, -np.inf, 0], dtype=dt)]).astype(dt)
        w = np.dtype(it).itemsize * 8

        def key(v):
            k = v.view(it).astype(np.int64)
            return np.where(k < 0, k ^ ((1 << (w - 1)) - 1), k)
        ka, kb = key(a), key(b)
        for d, f in (("EQ", np.equal), ("NE", np.not_equal), ("LT", np.less), ("LE", np.less_equal),
                     ("GT", np.greater), ("GE", np.greater_equal)):
            case("%s_compare_%s" % (t, d), binary_module("compare", t, "pred", [len(a)], ", direction=" + d),
                 [(t, a), (t, b)], ("pred", f(a, b).astype(np.uint8)))
            case("%s_compare_%s_totalorder" % (t, d),
                 binary_module("compare", t, "pred", [len(a)], ", direction=%s, type=TOTALORDER" % d),
                 [(t, a), (t, b)], ("pred", f(ka, kb).astype(np.uint8)))
    for t in ("s8", "u8", "s32", "u32", "s64", "u64", "s4", "u4"):
        av = int_values(t, 40)
        bv = list(reversed(int_values(t, 40)))
        for d, f in (("LT", lambda x, y: x < y), ("GE", lambda x, y: x >= y), ("EQ", lambda x, y: x == y)):
            r = np.array([f(x, y) for x, y in zip(av, bv)], dtype=np.uint8)
            case("%s_compare_%s" % (t, d), binary_module("compare", t, "pred", [40], ", direction=" + d),
                 [(t, to_np_int(t, av)), (t, to_np_int(t, bv))], ("pred", r))


# ---- integer arithmetic ------------------------------------------------------

def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def int_cases():
    for t in ("s4", "s8", "s16", "s32", "s64", "u4", "u8", "u16", "u32", "u64"):
        w = WIDTH[t]
        signed = t.startswith("s")
        lo = -(1 << (w - 1)) if signed else 0
        n = 48
        av = int_values(t, n)
        bv = int_values(t, n)[::-1]
        # Make sure the special pairs appear: x/0, INT_MIN/-1.
        av += [5, lo, lo, 0]
        bv += [0, -1 if signed else 1, 0, 0]
        n = len(av)

        def ops(x, y):
            r = {
                "add": wrap(t, x + y), "subtract": wrap(t, x - y), "multiply": wrap(t, x * y),
                "and": wrap(t, x & y), "or": wrap(t, x | y), "xor": wrap(t, x ^ y),
                "maximum": max(x, y), "minimum": min(x, y),
            }
            if y == 0:
                r["divide"] = -1 if signed else (1 << w) - 1
                r["remainder"] = x
            elif signed and x == lo and y == -1:
                r["divide"] = lo
                r["remainder"] = 0
            else:
                q = tdiv(x, y)
                r["divide"] = wrap(t, q)
                r["remainder"] = wrap(t, x - q * y)
            ux, uy = x & ((1 << w) - 1), y & ((1 << w) - 1)
            r["shift-left"] = 0 if uy >= w else wrap(t, x << uy)
            r["shift-right-logical"] = 0 if uy >= w else wrap(t, ux >> uy)
            sx = wrap("s%d" % w, ux)
            r["shift-right-arithmetic"] = wrap(t, (-1 if sx < 0 else 0) if uy >= w else sx >> uy)
            if x == 1 or y == 0:
                r["power"] = 1
            elif signed and y < 0:
                r["power"] = 0
            else:
                r["power"] = wrap(t, pow(x, y, 1 << w))
            return r
        res = [ops(x, y) for x, y in zip(av, bv)]
        for op in res[0]:
            vals = [r[op] for r in res]
            case("%s_%s" % (t, op), binary_module(op, t, t, [n]),
                 [(t, to_np_int(t, av)), (t, to_np_int(t, bv))], (t, to_np_int(t, vals)))
        # Shifts by small amounts too (the random amounts are mostly out of range).
        amt = [int(v) for v in rng.integers(0, w, n)]
        for op, f in (("shift-left", lambda x, s: wrap(t, x << s)),
                      ("shift-right-logical", lambda x, s: wrap(t, (x & ((1 << w) - 1)) >> s)),
                      ("shift-right-arithmetic", lambda x, s: wrap(t, wrap("s%d" % w, x & ((1 << w) - 1)) >> s))):
            case("%s_%s_in_range" % (t, op), binary_module(op, t, t, [n]),
                 [(t, to_np_int(t, av)), (t, to_np_int(t, amt))], (t, to_np_int(t, [f(x, s) for x, s in zip(av, amt)])))
        un = {
            "negate": [wrap(t, -x) for x in av], "abs": [wrap(t, abs(x)) for x in av],
            "not": [wrap(t, ~x) for x in av],
            "popcnt": [bin(x & ((1 << w) - 1)).count("1") for x in av],
            "count-leading-zeros": [w - (x & ((1 << w) - 1)).bit_length() for x in av],
            "sign": [(x > 0) - (x < 0) for x in av],
        }
        for op, vals in un.items():
            case("%s_%s" % (t, op), unary_module(op, t, t, [n]), [(t, to_np_int(t, av))], (t, to_np_int(t, vals)))


# ---- conversions -----------------------------------------------------------------

def sat_int(t, v):
    if math.isnan(v):
        return 0
    w = WIDTH[t]
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.startswith("s") else (0, (1 << w) - 1)
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(max(int(v), lo), hi)  # int() truncates toward zero


def convert_cases():
    x = np.concatenate([special_floats(np.float32), (rng.standard_normal(64) * 1e10).astype(np.float32),
                        (rng.standard_normal(64) * 100).astype(np.float32),
                        np.array([2147483520, 2147483648, -2147483648, -2147483904, 255.9, 256, -0.99], dtype=np.float32)])
    x = x.astype(np.float32)
    for t in ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "s4", "u4"):
        case("convert_f32_%s" % t, unary_module("convert", "f32", t, [len(x)]), [("f32", x)],
             (t, to_np_int(t, [sat_int(t, float(v)) for v in x])))
    case("convert_f32_pred", unary_module("convert", "f32", "pred", [len(x)]), [("f32", x)], ("pred", (x != 0).astype(np.uint8)))
    case("convert_f32_f16", unary_module("convert", "f32", "f16", [len(x)]), [("f32", x)], ("f16", x.astype(np.float16)), "nan")
    case("convert_f32_f64", unary_module("convert", "f32", "f64", [len(x)]), [("f32", x)], ("f64", x.astype(np.float64)), "nan")
    case("convert_f32_bf16", unary_module("convert", "f32", "bf16", [len(x)]), [("f32", x)], ("bf16", f32_to_bf16_bits(x)), "nan")
    d = np.concatenate([(rng.standard_normal(64) * 1e30), np.array([1 + 2.0**-24, 1 + 2.0**-24 + 2.0**-40, 3.4028235677973366e38, 3.5e38, 1e-46])])
    case("convert_f64_f32", unary_module("convert", "f64", "f32", [len(d)]), [("f64", d)], ("f32", d.astype(np.float32)), "nan")
    case("convert_f64_f16_through_f32", unary_module("convert", "f64", "f16", [len(d)]), [("f64", d)],
         ("f16", d.astype(np.float32).astype(np.float16)), "nan")
    ints = np.array([int(v) for v in rng.integers(-(1 << 62), 1 << 62, 64)] + [(1 << 24) + 1, (1 << 24) + 3, (1 << 53) + 1, -(1 << 63)], dtype=np.int64)
    case("convert_s64_f32", unary_module("convert", "s64", "f32", [len(ints)]), [("s64", ints)], ("f32", ints.astype(np.float32)))
    case("convert_s64_f64", unary_module("convert", "s64", "f64", [len(ints)]), [("s64", ints)], ("f64", ints.astype(np.float64)))
    case("convert_s64_s8", unary_module("convert", "s64", "s8", [len(ints)]), [("s64", ints)], ("s8", ints.astype(np.int8)))
    case("convert_s64_u16", unary_module("convert", "s64", "u16", [len(ints)]), [("s64", ints)], ("u16", ints.astype(np.uint16)))
    case("convert_s64_f16", unary_module("convert", "s64", "f16", [len(ints)]), [("s64", ints)],
         ("f16", ints.astype(np.float32).astype(np.float16)), "nan")
    u = np.array([int(v) for v in rng.integers(0, 1 << 63, 32)] + [(1 << 64) - 1, 1 << 63], dtype=np.uint64)
    case("convert_u64_f32", unary_module("convert", "u64", "f32", [len(u)]), [("u64", u)], ("f32", u.astype(np.float32)))
    h = np.array(rng.integers(0, 1 << 16, 128), dtype=np.uint16).view(np.float16)
    case("convert_f16_f32", unary_module("convert", "f16", "f32", [len(h)]), [("f16", h)], ("f32", h.astype(np.float32)), "nan")
    c = (rng.standard_normal(32) + 1j * rng.standard_normal(32)).astype(np.complex128)
    case("convert_c128_c64", unary_module("convert", "c128", "c64", [len(c)]), [("c128", c)], ("c64", c.astype(np.complex64)))
    case("convert_f32_c64", unary_module("convert", "f32", "c64", [len(x)]), [("f32", x)], ("c64", x.astype(np.complex64)), "nan")
    # Bitcasts through numpy views.
    f = rng.standard_normal(12).astype(np.float32)
    case("bitcast_f32_u8", unary_module("bitcast-convert", "f32", "u8", [12]).replace("u8[12]", "u8[12,4]"),
         [("f32", f)], ("u8", f.view(np.uint8).reshape(12, 4)))
    case("bitcast_f32_s32", unary_module("bitcast-convert", "f32", "s32", [12]), [("f32", f)], ("s32", f.view(np.int32)))
    halves = f[:6].view(np.uint16).reshape(6, 2)
    case("bitcast_u16_f32", unary_module("bitcast-convert", "u16", "f32", [6, 2]).replace("f32[6,2]", "f32[6]"),
         [("u16", halves)], ("f32", halves.copy().view(np.float32).ravel()))
    case("bitcast_f64_f16", unary_module("bitcast-convert", "f64", "f16", [3]).replace("f16[3]", "f16[3,4]"),
         [("f64", f[:6].view(np.float64))], ("f16", f[:6].view(np.float64).view(np.float16).reshape(3, 4)), "nan")


# ---- complex -------------------------------------------------------------------

def complex_cases():
    n = 48
    a = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3).astype(np.complex64)
    b = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3).astype(np.complex64)
    a128, b128 = a.astype(np.complex128), b.astype(np.complex128)
    for op, r in {"add": a128 + b128, "subtract": a128 - b128, "multiply": a128 * b128, "divide": a128 / b128}.items():
        case("c64_" + op, binary_module(op, "c64", "c64", [n]), [("c64", a), ("c64", b)], ("c64", r.astype(np.complex64)), "ulp:1")
    case("c128_multiply", binary_module("multiply", "c128", "c128", [n]), [("c128", a128), ("c128", b128)], ("c128", a128 * b128), "ulp:1")
    for op, r in {"sqrt": np.sqrt(a128), "exponential": np.exp(a128), "log": np.log(a128), "tanh": np.tanh(a128),
                  "sine": np.sin(a128), "cosine": np.cos(a128), "negate": -a128}.items():
        case("c64_" + op, unary_module(op, "c64", "c64", [n]), [("c64", a)], ("c64", r.astype(np.complex64)), "ulp:2")
    case("c64_abs", unary_module("abs", "c64", "f32", [n]), [("c64", a)], ("f32", np.abs(a128).astype(np.float32)), "ulp:1")
    case("c64_real", unary_module("real", "c64", "f32", [n]), [("c64", a)], ("f32", a.real))
    case("c64_imag", unary_module("imag", "c64", "f32", [n]), [("c64", a)], ("f32", a.imag))
    re, im = a.real.copy(), a.imag.copy()
    case("complex_f32", binary_module("complex", "f32", "c64", [n]), [("f32", re), ("f32", im)], ("c64", a))


def reduce_precision_cases():
    # (5, 10) on f32 values inside the normal f16 range, or above it, is a
    # round trip through numpy's float16; (8, 7) is bf16 rounding.
    x = np.concatenate([(rng.standard_normal(64) * 100), np.array([65519, 65520, 1e6, -1e6, 1 / 3, 6.1035156e-05, np.inf, -np.inf])]).astype(np.float32)
    r = x.astype(np.float16).astype(np.float32)
    case("reduce_precision_f16", unary_module("reduce-precision", "f32", "f32", [len(x)], ", exponent_bits=5, mantissa_bits=10"),
         [("f32", x)], ("f32", r))
    case("reduce_precision_bf16", unary_module("reduce-precision", "f32", "f32", [len(x)], ", exponent_bits=8, mantissa_bits=7"),
         [("f32", x)], ("f32", bf16_bits_to_f32(f32_to_bf16_bits(x))))


# ---- data movement ------------------------------------------------------------

def movement_cases():
    a = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5) * 7 - 100
    perm = (2, 0, 3, 1)
    m = ("HloModule t\nENTRY main {\n  x = s32[2,3,4,5] parameter(0)\n"
         "  ROOT r = s32[4,2,5,3] transpose(x), dimensions={2,0,3,1}\n}\n")
    case("transpose_4d", m, [("s32", a)], ("s32", np.transpose(a, perm)))
    f = rng.standard_normal((3, 4, 5)).astype(np.float32)
    m = ("HloModule r\nENTRY main {\n  x = f32[3,4,5] parameter(0)\n"
         "  ROOT r = f32[5,3,4] reverse(x), dimensions={0,2}\n}\n").replace("f32[5,3,4]", "f32[3,4,5]")
    case("reverse_0_2", m, [("f32", f)], ("f32", np.flip(f, (0, 2))))
    m = ("HloModule s\nENTRY main {\n  x = f32[3,4,5] parameter(0)\n"
         "  ROOT r = f32[2,2,2] slice(x), slice={[1:3], [0:4:2], [1:5:3]}\n}\n")
    case("slice_strided", m, [("f32", f)], ("f32", f[1:3, 0:4:2, 1:5:3]))
    b = f[:, :2, :]
    m = ("HloModule c\nENTRY main {\n  x = f32[3,4,5] parameter(0)\n  y = f32[3,2,5] parameter(1)\n"
         "  ROOT r = f32[3,6,5] concatenate(x, y), dimensions={1}\n}\n")
    case("concatenate_dim1", m, [("f32", f), ("f32", b)], ("f32", np.concatenate([f, b], axis=1)))
    v = rng.standard_normal((4,)).astype(np.float64)
    m = ("HloModule b\nENTRY main {\n  x = f64[4] parameter(0)\n"
         "  ROOT r = f64[2,4,3] broadcast(x), dimensions={1}\n}\n")
    case("broadcast_middle", m, [("f64", v)], ("f64", np.broadcast_to(v[None, :, None], (2, 4, 3))))
    # pad with low/high (negative too) and interior.
    src = np.arange(12, dtype=np.int16).reshape(3, 4) + 1
    inter = np.zeros((3 + 2 * 1, 4 + 3 * 2), dtype=np.int16) - 1
    inter[::2, ::3] = src
    padded = np.pad(inter, ((2, 0), (0, 1)), constant_values=-1)[:, 1:]
    m = ("HloModule p\nENTRY main {\n  x = s16[3,4] parameter(0)\n  v = s16[] constant(-1)\n"
         "  ROOT r = s16[%d,%d] pad(x, v), padding=2_0_1x-1_1_2\n}\n") % padded.shape
    case("pad_mixed", m, [("s16", src)], ("s16", padded))
    # dynamic-slice with clamping.
    m = ("HloModule d\nENTRY main {\n  x = f32[3,4,5] parameter(0)\n  i = s32[] parameter(1)\n"
         "  j = s32[] parameter(2)\n  k = s32[] parameter(3)\n"
         "  ROOT r = f32[2,3,2] dynamic-slice(x, i, j, k), dynamic_slice_sizes={2,3,2}\n}\n")
    for (i, j, k) in ((1, 1, 3), (5, -2, 9), (0, 0, 0)):
        ci, cj, ck = min(max(i, 0), 1), min(max(j, 0), 1), min(max(k, 0), 3)
        case("dynamic_slice_%d_%d_%d" % (i, j, k), m, [("f32", f), ("s32", np.int32(i)), ("s32", np.int32(j)), ("s32", np.int32(k))],
             ("f32", f[ci:ci + 2, cj:cj + 3, ck:ck + 2]))
    # gather rows (tf.gather on axis 1) and scatter-add with duplicates.
    idx = np.array([[3, 0], [2, 3], [1, 1]], dtype=np.int32)
    m = ("HloModule g\nENTRY main {\n  x = f32[3,4,5] parameter(0)\n  i = s32[3,2] parameter(1)\n"
         "  ROOT r = f32[3,3,2,5] gather(x, i), offset_dims={0,3}, collapsed_slice_dims={1}, start_index_map={1},"
         " index_vector_dim=2, slice_sizes={3,1,5}\n}\n")
    case("gather_axis1", m, [("f32", f), ("s32", idx)], ("f32", np.transpose(f[:, idx, :], (0, 1, 2, 3))))
    upd = rng.integers(-5, 5, (6, 5)).astype(np.int32)
    sidx = np.array([0, 3, 3, 1, 0, 3], dtype=np.int32)
    base = rng.integers(-5, 5, (4, 5)).astype(np.int32)
    want = base.copy()
    np.add.at(want, sidx, upd)
    m = ("HloModule s\nadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = s32[] add(a, b)\n}\n"
         "ENTRY main {\n  x = s32[4,5] parameter(0)\n  i = s32[6] parameter(1)\n  u = s32[6,5] parameter(2)\n"
         "  ROOT r = s32[4,5] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0},"
         " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n")
    case("scatter_add_rows", m, [("s32", base), ("s32", sidx), ("s32", upd)], ("s32", want))
    # iota in f32 beyond 2^24 rounds like int → f32.
    m = "HloModule i\nENTRY main {\n  ROOT r = f32[3,6] iota(), iota_dimension=1\n}\n"
    case("iota_f32", m, [], ("f32", np.broadcast_to(np.arange(6, dtype=np.float32), (3, 6))))


def main():
    float_cases()
    bf16_cases()
    compare_cases()
    int_cases()
    convert_cases()
    complex_cases()
    reduce_precision_cases()
    movement_cases()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval")
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, "golden.txt")
    with open(path, "w") as fh:
        fh.write("# Generated by testdata/gen/eval_golden.py with numpy %s. DO NOT EDIT.\n" % np.__version__)
        fh.write("\n".join(out) + "\n")
    print("wrote %d cases to %s" % (sum(1 for l in out if l.startswith("=== ")), os.path.normpath(path)), file=sys.stderr)


if __name__ == "__main__":
    main()
