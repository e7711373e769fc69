"""Exports the modules of testdata/jax from JAX, with their inputs and JAX's
outputs on the CPU: for each case NAME, NAME.hlo (the module as jax.jit
lowers it), NAME.opt.hlo (as XLA's CPU compiler optimizes it), NAME.inI.npy
(its parameters, in order) and NAME.outI.npy (the leaves of JAX's result).
bfloat16 arrays are saved as their uint16 bits, NAME.inI.bf16.npy. LOG.txt
lists the cases and the JAX version.

    JAX_PLATFORMS=cpu python3 export.py DIR
"""
import os, sys, traceback
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
print("jax", jax.__version__, "backend", jax.default_backend(), flush=True)
D = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(D, exist_ok=True)
rng = np.random.default_rng(7)
def rn(*s, dt=np.float32): return rng.standard_normal(s).astype(dt)
bf16 = jnp.bfloat16
log = [f"jax {jax.__version__}, backend {jax.default_backend()}"]

def hlo_text(lowered):
    for how in ("as_text_hlo", "compiler_ir"):
        try:
            if how == "as_text_hlo":
                return lowered.as_text(dialect="hlo")
            return lowered.compiler_ir("hlo").as_hlo_text()
        except Exception as e:
            last = e
    raise last

def save(path, a):
    a = np.asarray(a)
    if a.dtype == jnp.bfloat16:
        np.save(path + ".bf16.npy", a.view(np.uint16))
    else:
        np.save(path + ".npy", a)

def export(name, f, *args, jit=None, debug_info=False):
    try:
        jf = (jit or (lambda g: jax.jit(g, keep_unused=True)))(f)
        lowered = jf.lower(*args)
        text = lowered.as_text(dialect="hlo", debug_info=True) if debug_info else hlo_text(lowered)
        open(f"{D}/{name}.hlo", "w").write(text)
        try:
            open(f"{D}/{name}.opt.hlo", "w").write(lowered.compile().as_text())
        except Exception as e:
            log.append(f"{name}: optimized text failed: {e!r}")
        leaves = jax.tree_util.tree_leaves(args)
        for i, a in enumerate(leaves):
            save(f"{D}/{name}.in{i}", a)
        outs = jax.tree_util.tree_leaves(jf(*args))
        for i, o in enumerate(outs):
            save(f"{D}/{name}.out{i}", o)
        log.append(f"{name}: ok, {len(leaves)} inputs, {len(outs)} outputs")
    except Exception:
        log.append(f"{name}: FAILED\n" + traceback.format_exc(limit=3))

# --- plain jax.numpy models and ops
def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.log_softmax(h @ w2 + b2)
export("mlp", mlp, rn(4, 32), rn(32, 64) * 0.2, rn(64), rn(64, 10) * 0.2, rn(10))
export("mlp_bf16", mlp, *(a.astype(bf16) for a in (jnp.asarray(rn(4, 32)), jnp.asarray(rn(32, 64) * 0.2), jnp.asarray(rn(64)), jnp.asarray(rn(64, 10) * 0.2), jnp.asarray(rn(10)))))
export("gelu_tanh", lambda x: jax.nn.gelu(x, approximate=True), rn(8, 64))
export("gelu_erf", lambda x: jax.nn.gelu(x, approximate=False), rn(8, 64))
export("silu_softplus", lambda x: (jax.nn.silu(x), jax.nn.softplus(x), jax.nn.sigmoid(x)), rn(8, 33))
def layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-6) * g + b
export("layernorm", layernorm, rn(2, 8, 64), rn(64), rn(64))
export("layernorm_bf16", layernorm, jnp.asarray(rn(2, 8, 64)).astype(bf16), jnp.asarray(rn(64)).astype(bf16), jnp.asarray(rn(64)).astype(bf16))
export("softmax_lse", lambda x: (jax.nn.softmax(x, axis=-1), jax.scipy.special.logsumexp(x, axis=-1)), rn(4, 8, 17))
def attention(q, k, v, mask):
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
    s = jnp.where(mask, s, -1e9)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)
export("attention", attention, rn(1, 8, 2, 16), rn(1, 8, 2, 16), rn(1, 8, 2, 16), np.tril(np.ones((8, 8), bool))[None, None])
try:
    export("dot_product_attention", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True), rn(1, 8, 2, 16), rn(1, 8, 2, 16), rn(1, 8, 2, 16))
except Exception:
    log.append("dot_product_attention: " + traceback.format_exc(limit=2))
export("sort_argsort", lambda x: (jnp.sort(x, axis=-1), jnp.argsort(x, axis=-1), jnp.sort(x, axis=0, descending=True)), rn(6, 37))
export("top_k", lambda x: lax.top_k(x, 5), rn(3, 50))
export("argmax_min", lambda x: (jnp.argmax(x, -1), jnp.argmin(x, 0), jnp.max(x, 1)), rn(5, 9))
export("cumsum_cumprod", lambda x: (jnp.cumsum(x, 1), jnp.cumprod(x * 0.5 + 1, 0), lax.cummax(x, 1)), rn(4, 12))
export("einsum_batch", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), rn(3, 5, 7), rn(3, 7, 4))
export("gather_take", lambda x, i: (x[i], jnp.take(x, i, axis=1), x[:, 2:5]), rn(10, 6), np.array([3, 0, 9, 9, 2], np.int32))
export("scatter_add", lambda x, i, v: (x.at[i].add(v), x.at[i].set(v), x.at[i].max(v)), rn(10, 3), np.array([1, 4, 1, 7], np.int32), rn(4, 3))
export("dynamic_slice_update", lambda x, i, u: (lax.dynamic_slice(x, (i, 1), (3, 4)), lax.dynamic_update_slice(x, u, (i, 0))), rn(8, 6), np.int32(3), rn(2, 6))
export("fori_loop", lambda x: lax.fori_loop(0, 5, lambda i, c: c * 0.9 + jnp.sin(c) + i, x), rn(4, 4))
export("while_loop", lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (jnp.int32(0), x))[1], rn(3))
export("cond", lambda p, x: lax.cond(p, lambda y: y * 2, lambda y: jnp.cos(y), x), np.bool_(True), rn(5))
def rnn(h0, xs, w, u):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u)
        return h, h.sum()
    return lax.scan(step, h0, xs)
export("scan_rnn", rnn, rn(2, 8), rn(6, 2, 4), rn(8, 8) * 0.3, rn(4, 8) * 0.3)
export("pad_concat_flip", lambda x: (jnp.pad(x, ((1, 2), (0, 3))), jnp.concatenate([x, x * 2], 0), jnp.flip(x, 1), x.T.reshape(-1), jnp.arange(7) * 3), rn(3, 4))
export("elementwise_math", lambda x, y: (jnp.expm1(x), jnp.log1p(jnp.abs(x)), jnp.arctan2(x, y), jnp.round(x * 3), jnp.floor(x), jnp.sign(x), jnp.clip(x, -0.5, 0.5), jnp.power(jnp.abs(x), y), jnp.tan(x * 0.5), jax.scipy.special.erf(x), jnp.cbrt(x)), rn(6, 5), rn(6, 5))
export("integer_ops", lambda a, b: (a // b, a % b, a >> 2, a & b, jnp.abs(a), jnp.maximum(a, b), a.astype(jnp.float32) / 3, (a * 7).astype(jnp.int8), jnp.left_shift(a, 3)), np.array([-7, 7, 100, -100, 3, 0, 2**30], np.int32), np.array([2, -3, 7, 9, -1, 5, 3], np.int32))
def rand(k):
    key = jax.random.wrap_key_data(k)
    a, b = jax.random.split(key)
    return jax.random.normal(a, (4, 5)), jax.random.uniform(b, (7,)), jax.random.randint(key, (6,), 0, 100)
export("random_normal", rand, np.array([0, 42], np.uint32))
export("int8_dot", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32), rng.integers(-128, 127, (4, 16)).astype(np.int8), rng.integers(-128, 127, (16, 8)).astype(np.int8))
export("conv_nhwc", lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), rn(2, 8, 8, 3), rn(3, 3, 3, 4))
export("conv_strided_dilated", lambda x, w: lax.conv_general_dilated(x, w, (2, 2), ((1, 1), (2, 0)), rhs_dilation=(2, 1), dimension_numbers=("NCHW", "OIHW", "NCHW")), rn(1, 4, 9, 9), rn(6, 4, 3, 2))
export("conv_depthwise", lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=8), rn(1, 6, 6, 8), rn(3, 3, 1, 8))
export("conv_transpose", lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), rn(1, 5, 5, 4), rn(3, 3, 4, 2))
export("pools", lambda x: (lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4), rn(2, 7, 7, 3))
export("bf16_mixed", lambda x, w: (jnp.dot(x.astype(bf16), w.astype(bf16), preferred_element_type=jnp.float32), (x.astype(bf16) * 3).astype(jnp.float32).sum(0)), rn(4, 16), rn(16, 8))
export("complex_mul", lambda x: (lax.complex(x, x * 2) * (1 + 2j)).real, rn(5))

# --- flax models
try:
    import flax.linen as nn
    class Block(nn.Module):
        @nn.compact
        def __call__(self, x):
            y = nn.LayerNorm()(x)
            y = nn.MultiHeadDotProductAttention(num_heads=2, qkv_features=16)(y, y)
            x = x + y
            y = nn.LayerNorm()(x)
            y = nn.Dense(32)(y)
            y = nn.gelu(y)
            return x + nn.Dense(16)(y)
    x = jnp.asarray(rn(1, 8, 16))
    bp = Block().init(jax.random.PRNGKey(0), x)
    export("flax_transformer_block", lambda p, x: Block().apply(p, x), bp, x)
    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Conv(8, (3, 3))(x)
            x = nn.BatchNorm(use_running_average=True)(x)
            x = nn.relu(x)
            x = nn.max_pool(x, (2, 2), (2, 2))
            x = nn.Conv(8, (3, 3), feature_group_count=8)(x)
            x = nn.avg_pool(x, (2, 2), (2, 2))
            x = x.reshape(x.shape[0], -1)
            return nn.Dense(10)(x)
    x = jnp.asarray(rn(2, 8, 8, 3))
    cp = CNN().init(jax.random.PRNGKey(1), x)
    cp = jax.tree_util.tree_map(lambda a: a + 0.1 * jnp.asarray(rng.standard_normal(a.shape), a.dtype), cp)
    export("flax_cnn", lambda p, x: CNN().apply(p, x), cp, x)
    export("flax_cnn_bf16", lambda p, x: CNN().apply(jax.tree_util.tree_map(lambda a: a.astype(bf16), p), x.astype(bf16)), cp, x)
    class Emb(nn.Module):
        @nn.compact
        def __call__(self, ids):
            e = nn.Embed(50, 16)(ids)
            return nn.RMSNorm()(e) if hasattr(nn, "RMSNorm") else e
    ids = jnp.asarray(rng.integers(0, 50, (2, 7)), jnp.int32)
    ep = Emb().init(jax.random.PRNGKey(2), ids)
    export("flax_embed_rmsnorm", lambda p, i: Emb().apply(p, i), ep, ids)
except Exception:
    log.append("flax: FAILED\n" + traceback.format_exc(limit=4))

# --- gradients, training steps, recurrent cells, linear algebra, special
# functions and other corners of jax.numpy and jax.lax
def xent(params, x, y):
    w1, b1, w2, b2 = params
    logits = jax.nn.relu(x @ w1 + b1) @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 10), -1))
mp = (rn(32, 64) * 0.2, rn(64), rn(64, 10) * 0.2, rn(10))
export("grad_mlp", jax.grad(xent), mp, rn(4, 32), np.array([1, 7, 3, 3], np.int32))
def sgd_step(params, x, y):
    loss, g = jax.value_and_grad(xent)(params, x, y)
    return loss, jax.tree_util.tree_map(lambda p, d: p - 0.1 * d, params, g)
export("train_step_sgd", sgd_step, mp, rn(4, 32), np.array([0, 9, 2, 5], np.int32))
def cnn_loss(w, x):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jnp.sum(jnp.tanh(y) ** 2)
export("grad_conv_maxpool", jax.grad(cnn_loss, argnums=(0, 1)), rn(3, 3, 3, 4), rn(2, 6, 6, 3))
export("grad_checkpoint", jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda y: jnp.sin(y) * jnp.cos(y) ** 2)(x))), rn(5, 7))
export("linalg_cholesky_solve", lambda a, b: (jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(4)), jax.scipy.linalg.solve_triangular(jnp.tril(a) + 4 * jnp.eye(4), b, lower=True)), rn(4, 4), rn(4, 2))
export("linalg_inv_det", lambda a: (jnp.linalg.inv(a + 3 * jnp.eye(4)), jnp.linalg.det(a + 3 * jnp.eye(4))), rn(4, 4))
export("linalg_qr", lambda a: jnp.linalg.qr(a), rn(5, 3))
export("linalg_eigh", lambda a: jnp.linalg.eigh(a + a.T)[0], rn(4, 4))
export("linalg_svd", lambda a: jnp.linalg.svd(a, compute_uv=False), rn(5, 3))
export("fft", lambda x: (jnp.abs(jnp.fft.fft(x)), jnp.fft.irfft(jnp.fft.rfft(x), n=16)), rn(3, 16))
export("special_functions", lambda x: (lax.lgamma(jnp.abs(x) + 0.5), lax.digamma(jnp.abs(x) + 0.5), lax.erf_inv(jnp.tanh(x) * 0.9), jax.scipy.special.erfc(x), jax.scipy.special.logit(jax.nn.sigmoid(x)), jax.scipy.special.xlogy(jnp.abs(x), jnp.abs(x) + 1), jax.scipy.special.i0e(x), lax.igamma(jnp.abs(x) + 1, jnp.abs(x))), rn(4, 6))
export("bit_ops", lambda a, f: (lax.population_count(a), lax.clz(a), lax.bitcast_convert_type(f, jnp.int32), lax.shift_right_logical(a, 3), jnp.all(a > 0, 1), jnp.any(a > 5, 1), jnp.isnan(f), jnp.isfinite(f), jnp.nextafter(f, jnp.float32(0))), np.array([[1, -2, 255, 1 << 20], [0, 7, -1, 12345]], np.int32), np.array([[1.5, np.nan, -np.inf, 0.0], [-0.0, 3e38, 1e-40, -2.5]], np.float32))
export("sort_multi_key", lambda k1, k2, v: lax.sort((k1, k2, v), dimension=0, num_keys=2), np.array([3, 1, 3, 1, 2, 3], np.int32), rn(6), np.arange(6, dtype=np.int32))
export("lexsort_argsort_desc", lambda a, b: (jnp.lexsort((a, b)), jnp.argsort(a, descending=True, stable=True)), np.array([2, 1, 2, 0, 1, 2, 0], np.int32), np.array([5, 4, 3, 5, 1, 0, 2], np.int32))
for method in ("scan", "sort", "compare_all"):
    export(f"searchsorted_{method}", lambda a, v, m=method: jnp.searchsorted(a, v, method=m), np.sort(rn(12)), rn(5))
export("one_hot_take_segment", lambda x, i, s: (jax.nn.one_hot(i, 6), jnp.take_along_axis(x, i[:, None] % 4, axis=1), jax.ops.segment_sum(x, s, num_segments=3)), rn(5, 4), np.array([0, 5, 2, 3, 3], np.int32), np.array([0, 2, 2, 1, 0], np.int32))
def decode(cache, q, xs):
    def step(i, c):
        cache, acc = c
        cache = lax.dynamic_update_slice(cache, xs[i][None], (i, 0))
        s = jnp.where(jnp.arange(cache.shape[0]) <= i, cache @ q, -jnp.inf)
        return cache, acc + jax.nn.softmax(s) @ cache
    return lax.fori_loop(0, xs.shape[0], step, (cache, jnp.zeros(q.shape)))
export("kv_cache_decode", decode, np.zeros((6, 8), np.float32), rn(8), rn(6, 8))
export("image_resize", lambda x: (jax.image.resize(x, (1, 7, 9, 2), "bilinear"), jax.image.resize(x, (1, 2, 3, 2), "nearest")), rn(1, 4, 5, 2))
export("cumulative_scans", lambda x: (lax.cumlogsumexp(x, axis=1), lax.associative_scan(jnp.add, x, axis=1), lax.cumsum(x, 0, reverse=True)), rn(3, 9))
export("precision_types", lambda x: (lax.reduce_precision(x, exponent_bits=5, mantissa_bits=2), x.astype(jnp.float16).astype(jnp.float32), x.astype(jnp.float8_e4m3fn).astype(jnp.float32), x.astype(jnp.float8_e5m2).astype(jnp.float32), (x * 100).astype(jnp.uint8)), rn(4, 8) * 4)
export("integer_arith", lambda a, b: (a ** 3, lax.div(a, b), lax.rem(a, b), jnp.power(b, 2), (a.astype(jnp.uint8) * 7 + 200).astype(jnp.int32), jnp.clip(a, -5, 5), jnp.sign(a)), np.array([-9, 7, -4, 100, 0, 13], np.int32), np.array([4, -3, -4, 7, 1, 5], np.int32))
export("grad_conv_kernel_batch_group", jax.grad(lambda w, x: jnp.sum(lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2)), rn(3, 3, 2, 4), rn(3, 5, 5, 2))
export("complex_arith", lambda a, b: (jnp.abs(lax.complex(a, b) * lax.complex(b, a)), jnp.angle(lax.complex(a, b)), jnp.real(jnp.exp(lax.complex(a, b))), jnp.imag(jnp.conj(lax.complex(a, b)) @ lax.complex(b, a).T)), rn(3, 4), rn(3, 4))
try:
    import flax.linen as nn
    class LSTM(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.RNN(nn.OptimizedLSTMCell(8))(x)
    x = jnp.asarray(rn(2, 5, 4))
    lp = LSTM().init(jax.random.PRNGKey(3), x)
    export("flax_lstm", lambda p, x: LSTM().apply(p, x), lp, x)
    class GNT(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.GroupNorm(num_groups=2)(x)
            return nn.ConvTranspose(4, (3, 3), strides=(2, 2))(x)
    x = jnp.asarray(rn(1, 5, 5, 4))
    gp = GNT().init(jax.random.PRNGKey(4), x)
    export("flax_groupnorm_convtranspose", lambda p, x: GNT().apply(p, x), gp, x)
    class Drop(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.Dropout(0.5, deterministic=False)(x)
    export("flax_dropout", lambda k, x: Drop().apply({}, x, rngs={"dropout": jax.random.wrap_key_data(k)}), np.array([0, 11], np.uint32), rn(4, 6))
    class BlockBF16(nn.Module):
        @nn.compact
        def __call__(self, x):
            y = nn.LayerNorm(dtype=jnp.bfloat16)(x)
            y = nn.MultiHeadDotProductAttention(num_heads=2, qkv_features=16, dtype=jnp.bfloat16)(y, y)
            return x + nn.Dense(16, dtype=jnp.bfloat16)(nn.gelu(y))
    x = jnp.asarray(rn(1, 8, 16))
    bp2 = BlockBF16().init(jax.random.PRNGKey(5), x)
    export("flax_block_bf16_compute", lambda p, x: BlockBF16().apply(p, x), bp2, x)
except Exception:
    log.append("flax (2): FAILED\n" + traceback.format_exc(limit=4))
# --- whole small models as services run them, and more of jax.numpy
def gpt_greedy(params, prompt):
    emb, pos, wq, wk, wv, wo, w1, w2 = params
    T = 12
    def logits_at(tokens, length):
        x = emb[tokens] + pos
        h = x - x.mean(-1, keepdims=True)
        h = h / jnp.sqrt((h * h).mean(-1, keepdims=True) + 1e-5)
        q, k, v = h @ wq, h @ wk, h @ wv
        s = q @ k.T / jnp.sqrt(16.0)
        mask = jnp.tril(jnp.ones((T, T), bool)) & (jnp.arange(T)[None, :] < length)
        s = jnp.where(mask, s, -1e9)
        x = x + jax.nn.softmax(s) @ v @ wo
        x = x + jax.nn.gelu(x @ w1) @ w2
        return x @ emb.T
    def body(c):
        tokens, length = c
        nxt = jnp.argmax(logits_at(tokens, length)[length - 1]).astype(jnp.int32)
        return tokens.at[length].set(nxt), length + 1
    tokens = jnp.zeros(T, jnp.int32).at[:4].set(prompt)
    return lax.while_loop(lambda c: c[1] < T, body, (tokens, jnp.int32(4)))[0]
gp = (rn(50, 16) * 0.5, rn(12, 16) * 0.1, rn(16, 16) * 0.3, rn(16, 16) * 0.3, rn(16, 16) * 0.3, rn(16, 16) * 0.3, rn(16, 32) * 0.3, rn(32, 16) * 0.3)
export("gpt_greedy_decode", gpt_greedy, gp, np.array([3, 17, 42, 8], np.int32))
def vit(params, img):
    wp, cls, pos, wh = params
    p = lax.conv_general_dilated(img, wp, (4, 4), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    t = p.reshape(p.shape[0], -1, p.shape[-1])
    t = jnp.concatenate([jnp.broadcast_to(cls, (t.shape[0], 1, t.shape[-1])), t], 1) + pos
    a = jax.nn.softmax(jnp.einsum("bqd,bkd->bqk", t, t) / 4.0)
    return jnp.einsum("bqk,bkd->bqd", a, t)[:, 0] @ wh
export("vit_patch_attention", vit, (rn(4, 4, 3, 16) * 0.2, rn(1, 1, 16), rn(1, 5, 16) * 0.1, rn(16, 10)), rn(2, 8, 8, 3))
def mobilenet_block(params, x):
    wd, wp, g, b, m, v = params
    y = lax.conv_general_dilated(x, wd, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=x.shape[-1])
    y = (y - m) / jnp.sqrt(v + 1e-3) * g + b
    y = jnp.clip(y, 0, 6)
    y = lax.conv_general_dilated(y, wp, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    se = jax.nn.sigmoid(y.mean((1, 2), keepdims=True))
    return jax.nn.hard_swish(y * se)
export("mobilenet_se_block", mobilenet_block, (rn(3, 3, 1, 8), rn(1, 1, 8, 12) * 0.3, rn(8), rn(8), rn(8), np.abs(rn(8)) + 0.5), rn(2, 6, 6, 8))
export("unet_upsample_skip", lambda x, s: jnp.concatenate([jax.image.resize(x, (1, 8, 8, 4), "nearest"), s], -1), rn(1, 4, 4, 4), rn(1, 8, 8, 2))
export("int8_weight_dequant_dot", lambda x, w, sc: x @ (w.astype(jnp.float32) * sc), rn(3, 16), rng.integers(-127, 127, (16, 8)).astype(np.int8), np.abs(rn(8)) * 0.05)
export("mlp_f16", lambda x, w1, w2: jax.nn.relu(x @ w1) @ w2, rn(4, 16).astype(np.float16), (rn(16, 32) * 0.3).astype(np.float16), (rn(32, 4) * 0.3).astype(np.float16))
export("array_manipulation", lambda x: (jnp.roll(x, 2, 1), jnp.rot90(x), jnp.tile(x, (2, 1)), jnp.repeat(x, 2, 0), jnp.tril(x), jnp.triu(x, 1), jnp.diag(x[:, :4]), jnp.trace(x[:, :4]), jnp.kron(x[:2, :2], x[:2, :2]), jnp.outer(x[0], x[1]), jnp.tensordot(x, x.T, 1)), rn(4, 5))
export("advanced_indexing", lambda x, i, j: (x[i, :, j], x[:, i], x.at[:, i].set(0.0), x.at[i, 1, j].add(10.0), jnp.put_along_axis(x[0], i[:, None] % 3, 7.0, axis=0, inplace=False)), rn(5, 3, 4), np.array([4, 0, 2], np.int32), np.array([1, 3, 3], np.int32))
export("select_switch_piecewise", lambda x, i: (jnp.select([x < -1, x > 1], [x * 2, x * 3], x), lax.switch(i, [lambda y: y + 1, lambda y: y * y, lambda y: -y], x), jnp.piecewise(x, [x < 0, x >= 0], [lambda y: -y, lambda y: y ** 2])), rn(7), np.int32(1))
export("padding_forms", lambda x: (lax.pad(x, 0.5, ((1, -1, 1), (0, 2, 2))), jnp.pad(x, 2, mode="reflect"), jnp.pad(x, 1, mode="edge"), jnp.pad(x, (1, 2), mode="wrap")), rn(3, 4))
export("pool_forms", lambda x: (lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0))), lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID", window_dilation=(1, 2, 2, 1)), lax.reduce_window(x, jnp.inf, lax.min, (1, 3, 3, 1), (1, 2, 2, 1), "SAME", base_dilation=(1, 2, 2, 1))), rn(1, 6, 6, 2))
export("counting_and_sets", lambda x, i: (jnp.bincount(i, length=6), jnp.unique(i, size=5, fill_value=-1), jnp.nonzero(x > 0, size=6, fill_value=-1)[0], jnp.histogram(x, bins=4, range=(-2, 2))[0], jnp.count_nonzero(x > 0.5)), rn(10), np.array([1, 3, 3, 0, 5, 1, 1], np.int32))
export("vmap_gather_dot", jax.vmap(lambda t, i, w: jnp.tanh(t[i] @ w)), rn(3, 6, 4), np.array([[0, 2], [5, 5], [1, 3]], np.int32), rn(3, 4, 2))
export("newton_while_convergence", lambda a: lax.while_loop(lambda c: jnp.abs(c[0] * c[0] - a).max() > 1e-5, lambda c: (0.5 * (c[0] + a / c[0]), c[1] + 1), (a, jnp.int32(0))), np.abs(rn(6)) * 4 + 0.5)
def rand2(k):
    key = jax.random.wrap_key_data(k)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    return (jax.random.categorical(k1, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(8,)), jax.random.bernoulli(k2, 0.3, (10,)), jax.random.permutation(k3, 9), jax.random.truncated_normal(k4, -1.0, 1.0, (5,)), jax.random.bits(key, (4,), jnp.uint32))
export("random_sampling", rand2, np.array([7, 99], np.uint32))
export("fft_forms", lambda x: (jnp.abs(jnp.fft.fft2(x)), jnp.real(jnp.fft.ifft(x, axis=0)), jnp.fft.rfftn(x).imag), rn(4, 8))
export("int_types", lambda a, b: ((a * jnp.uint32(2654435761)) ^ (a >> 7), a.astype(jnp.int16) * b.astype(jnp.int16), (a.astype(jnp.uint8) + b.astype(jnp.uint8)), lax.shift_left(a.astype(jnp.uint16), b.astype(jnp.uint16) % 16), jnp.floor_divide(a, jnp.where(b == 0, 1, b)), jnp.minimum(a.astype(jnp.uint32), b.astype(jnp.uint32))), np.array([1, 2**31 - 1, 65535, 40000, 7, 300], np.uint32), np.array([3, 5, 0, 17, 255, 9], np.uint32))
export("numerics_edge", lambda x: (jnp.nan_to_num(x), jnp.isclose(x, x + 1e-7), jnp.exp(x), jnp.log(x), jnp.sqrt(x), lax.rsqrt(x), jnp.tanh(x), jax.nn.softplus(x), jnp.maximum(x, jnp.nan), jnp.sort(x), jnp.argmax(x), x.sum()), np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1.2e-38, 3e38, 88.7, -104.0], np.float32))
export("einsum_forms", lambda a, b, c: (jnp.einsum("ij,jk,kl->il", a, b, c), jnp.einsum("ii->i", b[:3, :3]), jnp.einsum("bij->bji", jnp.stack([a, a])), jnp.einsum("i,i->", a[0], a[1]), jnp.linalg.norm(a), jnp.linalg.norm(a, axis=1, ord=1)), rn(4, 3), rn(3, 5), rn(5, 2))
try:
    import flax.linen as nn
    class MLPMixer(nn.Module):
        @nn.compact
        def __call__(self, x):
            y = nn.LayerNorm()(x)
            y = jnp.swapaxes(nn.Dense(x.shape[1])(jnp.swapaxes(y, 1, 2)), 1, 2)
            x = x + y
            return x + nn.Dense(x.shape[-1])(nn.gelu(nn.Dense(32)(nn.LayerNorm()(x))))
    x = jnp.asarray(rn(2, 6, 8))
    mp2 = MLPMixer().init(jax.random.PRNGKey(6), x)
    export("flax_mlp_mixer", lambda p, x: MLPMixer().apply(p, x), mp2, x)
    class ConvBNTrain(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.Conv(4, (3, 3), strides=(2, 2))(x)
            return nn.BatchNorm(use_running_average=False)(x)
    x = jnp.asarray(rn(3, 8, 8, 2))
    cb = ConvBNTrain().init(jax.random.PRNGKey(7), x)
    export("flax_batchnorm_train_stats", lambda p, x: ConvBNTrain().apply(p, x, mutable=["batch_stats"]), cb, x)
    class GRU(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.RNN(nn.GRUCell(6))(x)
    x = jnp.asarray(rn(2, 4, 3))
    grp = GRU().init(jax.random.PRNGKey(8), x)
    export("flax_gru", lambda p, x: GRU().apply(p, x), grp, x)
except Exception:
    log.append("flax (3): FAILED\n" + traceback.format_exc(limit=4))
export("linalg_solve_pinv", lambda a, b: (jnp.linalg.solve(a + 3 * jnp.eye(4), b), jnp.linalg.pinv(a[:, :3]), jnp.linalg.slogdet(a + 3 * jnp.eye(4))[1], jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a @ a.T + jnp.eye(4)), b), jnp.linalg.matrix_power(a * 0.5, 3), jax.scipy.linalg.expm(a * 0.3), jnp.linalg.lstsq(a[:, :3], b)[0]), rn(4, 4), rn(4, 2))
# the ways of calling jax.jit that change the module's text
export("jit_donated_aliased", lambda x, y: (x * 2 + y, y - 1), rn(4, 4), rn(4, 4), jit=lambda g: jax.jit(g, donate_argnums=(0,)))
try:
    dev = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    export("jit_single_device_sharding", lambda x: jnp.tanh(x) @ x.T, rn(3, 5), jit=lambda g: jax.jit(g, in_shardings=dev, out_shardings=dev))
except Exception:
    log.append("sharding: FAILED\n" + traceback.format_exc(limit=3))
export("debug_info_text", lambda x: jax.nn.softmax(x @ x.T), rn(3, 4), debug_info=True)
jax.config.update("jax_enable_x64", True)
export("x64", lambda a, i: (a @ a.T, jnp.cumsum(i), i * 3_000_000_000, a.astype(jnp.float32)), rng.standard_normal((3, 4)), np.array([1, 2, 3, 2**40], np.int64))

open(f"{D}/LOG.txt", "w").write("\n".join(log) + "\n")
print("\n".join(log))
