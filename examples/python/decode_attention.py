"""The decode attention workload of examples/ir/decode_attention.mlir,
written in Python op for op: the AICPU planning function @decode_step
(plan the KV chunk, generate one descriptor per (request, KV head, chunk),
dispatch on mix(24), row-affine) and the tiered tile kernel
@decode_attention (Q K^T and P V on the cube, the online softmax on the
vector core, the row's state passed between chunks through accumulators).
The .mlir file's comments explain the kernel; this file mirrors its
statements in the same order, so both parse to the same module
(python/test/test_decode_workload.py checks that, then runs this one
against wsp.reference.paged_decode_attention).

    from decode_attention import decode_attention_module
    prog = wsp.compile(decode_attention_module())
"""

from wsp.ir import Attr, Module, descriptor, memref, tile
from wsp.ops import arith, math, scf
from wsp.ops import func
from wsp.ops import memref as mr
from wsp.ops import tile as t
from wsp.ops import wsp as w

ATT = descriptor("attention")
BF16_4D = memref([None] * 4, "bf16")
I32_1D = memref([None], "i32")
TABLE = memref([None, None], "i32")
ACC_O = memref([None, None, 32, 128], "f32")
ACC_ML = memref([None, None, 32], "f32")
WS_BF16 = memref([None, 32, 128], "bf16")
WS_F32 = memref([None, 32, 128], "f32")
DESCS = memref([None], ATT)

# The kernel's tiles: !tile.tile<loc, RxCxT, valid = ?x?[, layout]>.
VV = [None, None]
Q_VEC = tile("vec", [32, 128], "bf16", valid=VV)
Q_MAT = tile("mat", [32, 128], "bf16", valid=VV)
Q_LEFT = tile("left", [32, 128], "bf16", valid=VV)
O_VEC = tile("vec", [32, 128], "f32", valid=VV)
O_BF16 = tile("vec", [32, 128], "bf16", valid=VV)
O_ACC = tile("acc", [32, 128], "f32", valid=VV)
COL = tile("vec", [32, 1], "f32", valid=[None, 1], layout="col_major")
ROW32 = tile("vec", [1, 32], "f32")
KT_MAT = tile("mat", [128, None], "bf16", valid=VV, layout="zn")
KT_RIGHT = tile("right", [128, None], "bf16", valid=VV)
S_ACC = tile("acc", [32, None], "f32", valid=VV)
S_VEC = tile("vec", [32, None], "f32", valid=VV)
POS_I32 = tile("vec", [1, None], "i32", valid=[1, None])
POS_F32 = tile("vec", [1, None], "f32", valid=[1, None])
P_VEC = tile("vec", [32, None], "bf16", valid=VV)
P_MAT = tile("mat", [32, None], "bf16", valid=VV)
P_LEFT = tile("left", [32, None], "bf16", valid=VV)
V_MAT = tile("mat", [None, 128], "bf16", valid=VV)
V_RIGHT = tile("right", [None, 128], "bf16", valid=VV)

KERNEL_ARGS = [
    ("q", BF16_4D), ("kv_ids", I32_1D), ("kv_lens", I32_1D),
    ("block_table", TABLE), ("k_cache", BF16_4D), ("v_cache", BF16_4D),
    ("acc_o", ACC_O), ("acc_m", ACC_ML), ("acc_l", ACC_ML), ("out", BF16_4D),
    ("ws_q", WS_BF16), ("ws_s", WS_F32), ("ws_p", WS_BF16), ("ws_o", WS_F32),
]


def idx(v, name=None):
    """An index value as f32 through i32 (arith.index_cast, sitofp)."""
    i32 = arith.index_cast(v, type="i32", result_name=name and name + "_i32")
    return arith.sitofp(i32, type="f32", result_name=name and name + "_f")


def decode_step(m):
    args = dict(KERNEL_ARGS[:10])
    args["descs"] = DESCS
    args.update(KERNEL_ARGS[10:])
    with m.function("decode_step", results=["i32"], **args) as f:
        c0, c1, c2, c3 = (arith.constant(i) for i in (0, 1, 2, 3))
        c32 = arith.constant(32)
        c128 = arith.constant(128)
        ok = arith.constant(0, "i32")
        c24 = arith.constant(24)
        batch = mr.dim(f.kv_lens, c0, result_name="batch")
        q_len = mr.dim(f.q, c1, result_name="q_len")
        heads = mr.dim(f.q, c2, result_name="heads")
        head_dim = mr.dim(f.q, c3, result_name="head_dim")
        kv_heads = mr.dim(f.k_cache, c1, result_name="kv_heads")

        # Run-time preconditions, checked before anything else (INVALID_PARAMS,
        # nothing written, unless every one holds).
        def all_of(*conditions):
            result = conditions[0]
            for c in conditions[1:]:
                result = arith.andi(result, c)
            return result

        def dims(memref, *ds):
            return [mr.dim(memref, d) for d in ds]

        some_kv_heads = arith.cmpi("ugt", kv_heads, c0)
        one_or_kv_heads = arith.maxui(kv_heads, c1)
        odd_heads = arith.remui(heads, one_or_kv_heads)
        whole_groups = arith.cmpi("eq", odd_heads, c0)
        w.require(arith.andi(some_kv_heads, whole_groups),
                  message="the query heads are a whole number of groups of "
                          "KV heads")
        group = arith.divui(heads, one_or_kv_heads, result_name="group")
        rows = arith.muli(q_len, group, result_name="rows")
        w.require(arith.cmpi("ule", rows, c32),
                  message="q_len x group fits the 32 rows of a tile")
        w.require(arith.cmpi("ule", head_dim, c128),
                  message="head_dim fits the 128 columns of a tile")
        q_rows = arith.cmpi("uge", mr.dim(f.q, c0), batch)
        out_batch, out_len, out_heads, out_dim = dims(f.out, c0, c1, c2, c3)
        out_rows = arith.cmpi("uge", out_batch, batch)
        same = [arith.cmpi("eq", a, b) for a, b in
                [(out_len, q_len), (out_heads, heads), (out_dim, head_dim)]]
        w.require(arith.andi(q_rows, all_of(out_rows, *same)),
                  message="q and out hold every request's tokens and heads")
        k_dim = mr.dim(f.k_cache, c3)
        k_pages = mr.dim(f.k_cache, c0)
        block_size = mr.dim(f.k_cache, c2, result_name="block_size")
        v_pages, v_heads, v_block, v_dim = dims(f.v_cache, c0, c1, c2, c3)
        same = [arith.cmpi("eq", a, b) for a, b in
                [(k_dim, head_dim), (v_pages, k_pages), (v_heads, kv_heads),
                 (v_block, block_size), (v_dim, head_dim)]]
        w.require(all_of(*same), message="the K and V caches have one shape, "
                                         "of pages of head_dim")
        o_slots, o_heads = dims(f.acc_o, c0, c1)
        m_slots, m_heads = dims(f.acc_m, c0, c1)
        l_slots, l_heads = dims(f.acc_l, c0, c1)
        slots = arith.minui(arith.minui(o_slots, m_slots), l_slots)
        acc_heads = arith.minui(arith.minui(o_heads, m_heads), l_heads)
        w.require(arith.andi(arith.cmpi("uge", slots, batch),
                             arith.cmpi("uge", acc_heads, kv_heads)),
                  message="the accumulators hold a slot per (request, KV "
                          "head)")
        blocks = [mr.dim(f[n], c0) for n in ("ws_q", "ws_s", "ws_p", "ws_o")]
        least = blocks[0]
        for b in blocks[1:]:
            least = arith.minui(least, b)
        w.require(arith.cmpi("uge", least, c24),
                  message="the workspaces hold a slot per block (24)")
        table_rows = mr.dim(f.block_table, c0)
        w.require(w.all_in_range(f.kv_ids, batch, table_rows),
                  message="every kv id names a row of the block table")
        w.require(w.pages_in_range(f.block_table, f.kv_ids, batch, f.kv_lens,
                                   block_size, k_pages),
                  message="every request's KV positions lie in pages of the "
                          "cache")

        config = Attr("#wsp.plan_config<chunk_min = 1024, chunk_max = "
                      "4096, max_work_units = 65536>")
        planned_chunk = w.plan_chunk_size(f.kv_lens, batch, kv_heads,
                                          config=config,
                                          result_name="planned_chunk")
        # Chunks start on the 128-position grid of the KV tiles.
        tiles_per_chunk = arith.ceildivui(planned_chunk, c128,
                                          result_name="tiles_per_chunk")
        chunk = arith.muli(tiles_per_chunk, c128, result_name="chunk")
        count, status = w.generate(
            lengths=f.kv_lens, batch=batch, heads=kv_heads, chunk=chunk,
            tiers="DecodeAttentionTiers",
            config=Attr("#wsp.plan_config<balance_chunks = false>"),
            buffer=f.descs)
        planned = arith.cmpi("eq", status, ok)
        run = scf.if_(planned)
        with run.then():
            w.dispatch(kernel="decode_attention",
                       args=[f[n] for n, _ in KERNEL_ARGS],
                       descriptors=f.descs, count=count,
                       core_kind="mix", num_cores=24, row_affine=True)
        func.return_([status])


def decode_kernel(m):
    with m.kernel("decode_attention", "DecodeAttentionTiers", KERNEL_ARGS,
                  constants={"TILE_K": [64, 128, 128, 128]}) as k:
        c0, c1, c2, c3 = (arith.constant(i) for i in (0, 1, 2, 3))
        zero = arith.constant(0.0, "f32")
        one = arith.constant(1.0, "f32")
        minus_one = arith.constant(-1.0, "f32")
        lowest = arith.constant(-3.40282347e+38, "f32")
        largest = arith.constant(3.40282347e+38, "f32")

        req = w.param(k.desc, name="request_idx", result_name="req")
        kv_head = w.param(k.desc, name="head_idx", result_name="kv_head")
        kv_start = w.param(k.desc, name="kv_start", result_name="kv_start")
        kv_end = w.kv_end(k.desc, result_name="kv_end")
        init = w.has_flag(k.desc, "init", result_name="init")
        last = w.has_flag(k.desc, "last", result_name="last")
        tile_k = w.tier_constant("TILE_K", type="index", result_name="tile_k")
        blk = t.block_idx(result_name="blk")

        q_len = mr.dim(k.q, c1, result_name="q_len")
        head_num = mr.dim(k.q, c2, result_name="head_num")
        head_dim = mr.dim(k.q, c3, result_name="head_dim")
        kv_heads = mr.dim(k.k_cache, c1, result_name="kv_heads")
        group = arith.divui(head_num, kv_heads, result_name="group")
        rows = arith.muli(q_len, group, result_name="rows")
        # The vector work is split by rows over the block's vector cores:
        # this one takes rows [vr0, vr_end), every core as many.
        sb = t.subblock_id(result_name="sb")
        nsb = t.subblock_num(result_name="nsb")
        vrows = arith.ceildivui(rows, nsb, result_name="vrows")
        vr_last = arith.subi(rows, vrows, result_name="vr_last")
        vr_at = arith.muli(sb, vrows, result_name="vr_at")
        vr0 = arith.minui(vr_at, vr_last, result_name="vr0")
        vr_end = arith.addi(vr0, vrows, result_name="vr_end")
        head_base = arith.muli(kv_head, group, result_name="head_base")
        kv_id = arith.index_cast(mr.load(k.kv_ids, [req], type="i32"),
                                 type="index", result_name="kv_id")
        kv_len = arith.index_cast(mr.load(k.kv_lens, [req], type="i32"),
                                  type="index", result_name="kv_len")
        scale = math.rsqrt(idx(head_dim), result_name="scale")

        # Q into the workspace (each vector core its rows), then L1 and L0A.
        with scf.for_(c0, q_len, c1, iv_name="s") as loop:
            has_rows, n_rows, lo_r, tr, head = token_rows(
                loop.iv, group, vr0, vr_end, head_base)
            pack = scf.if_(has_rows)
            with pack.then():
                qv = t.alloc(dynamic_valid=[n_rows, head_dim], type=Q_VEC)
                t.load(qv, k.q, [req, loop.iv, head, c0])
                t.store(k.ws_q, [blk, lo_r, c0], qv)
        qm = t.alloc(dynamic_valid=[rows, head_dim], type=Q_MAT)
        t.load(qm, k.ws_q, [blk, c0, c0])
        ql = t.alloc(dynamic_valid=[rows, head_dim], type=Q_LEFT)
        t.mov(ql, qm)

        # The running state: o, and per row m and l.
        o = t.alloc(dynamic_valid=[vrows, head_dim], type=O_VEC)
        otmp = t.alloc(dynamic_valid=[vrows, head_dim], type=O_VEC)
        m_col = t.alloc(dynamic_valid=[vrows], type=COL)
        l_col = t.alloc(dynamic_valid=[vrows], type=COL)
        m_row = t.reshape(m_col, type=ROW32)
        l_row = t.reshape(l_col, type=ROW32)
        start = scf.if_(init)
        with start.then():
            t.expands(o, zero)
            t.expands(m_row, lowest)
            t.expands(l_row, zero)
        with start.else_():
            t.load(o, k.acc_o, [req, kv_head, vr0, c0])
            t.load(m_col, k.acc_m, [req, kv_head, vr0], transpose=True)
            t.load(l_col, k.acc_l, [req, kv_head, vr0], transpose=True)

        # Each row's visible positions.
        lo_t = t.alloc(dynamic_valid=[vrows], type=COL)
        hi_t = t.alloc(dynamic_valid=[vrows], type=COL)
        prior = arith.subi(kv_len, q_len, result_name="prior")
        with scf.for_(c0, vrows, c1, iv_name="r") as loop:
            row = arith.addi(vr0, loop.iv, result_name="row")
            s = arith.divui(row, group, result_name="s")
            pos = arith.addi(prior, s, result_name="pos")
            mask_lo, mask_hi = w.mask_range("standard", query=s, pos=pos,
                                            prior=prior)
            lo = arith.maxui(kv_start, mask_lo, result_name="lo")
            hi = arith.minui(kv_end, mask_hi, result_name="hi")
            lo_f = idx(lo, "lo")
            hi_f = idx(hi, "hi")
            t.setval(lo_t, loop.iv, c0, lo_f)
            t.setval(hi_t, loop.iv, c0, hi_f)
        last_token = arith.subi(q_len, c1, result_name="last_token")
        last_pos = arith.addi(prior, last_token, result_name="last_pos")
        lo_last, _ = w.mask_range("standard", query=last_token,
                                  pos=last_pos, prior=prior)
        lo_max = arith.maxui(kv_start, lo_last, result_name="lo_max")
        _, hi_first = w.mask_range("standard", query=c0, pos=prior,
                                   prior=prior)
        hi_min = arith.minui(kv_end, hi_first, result_name="hi_min")

        # KV tiles of TILE_K positions, software-pipelined: iteration j runs
        # A (vector: softmax of tile j - 1), B (cube: S of tile j), C
        # (vector: o += alpha O_t of tile j - 2), D (cube: P V of tile j - 1).
        w_first = arith.muli(arith.divui(kv_start, tile_k), tile_k,
                             result_name="w_first")
        span = arith.subi(kv_end, w_first, result_name="span")
        num_tiles = arith.ceildivui(span, tile_k, result_name="num_tiles")
        num_steps = arith.addi(num_tiles, c2, result_name="num_steps")
        block_size = mr.dim(k.k_cache, c2, result_name="block_size")
        alpha = t.alloc(dynamic_valid=[vrows], type=COL)
        alpha_row = t.reshape(alpha, type=ROW32)
        with scf.for_(c0, num_steps, c1, iv_name="j") as steps:
            j = steps.iv
            a_t = arith.subi(j, c1, result_name="a_t")
            a_live = arith.cmpi("ult", a_t, num_tiles, result_name="a_live")
            stage_a = scf.if_(a_live)
            with stage_a.then():
                wpos, n, w_end = kv_tile(a_t, tile_k, w_first, kv_end)
                softmax(k, blk, wpos, n, w_end, vrows, vr0, tile_k, scale,
                        lo_max,
                        hi_min, lo_t, hi_t, m_row, l_row, alpha, alpha_row,
                        zero, one, minus_one, largest, c0)
                t.rowexpandmul(o, o, alpha, otmp)
            with stage_a.else_():
                t.expands(alpha_row, one)

            b_live = arith.cmpi("ult", j, num_tiles, result_name="b_live")
            stage_b = scf.if_(b_live)
            with stage_b.then():
                wpos, n, w_end = kv_tile(j, tile_k, w_first, kv_end)
                # Cube: S = Q K^T, page by page, K in two L1 copies.
                with scf.for_(wpos, w_end, block_size, iv_name="p") as page:
                    seg, col = page_segment(page.iv, block_size, w_end, wpos,
                                            c1)
                    kt = t.alloc(dynamic_shape=[tile_k],
                                 dynamic_valid=[head_dim, seg], slot=j,
                                 buffers=2, type=KT_MAT)
                    t.load_paged(kt, k.k_cache, kv_head, k.block_table, kv_id,
                                 page.iv, transpose=True)
                    kr = t.alloc(dynamic_shape=[tile_k],
                                 dynamic_valid=[head_dim, seg], type=KT_RIGHT)
                    t.mov(kr, kt)
                    sa = t.alloc(dynamic_shape=[tile_k],
                                 dynamic_valid=[rows, seg], type=S_ACC)
                    t.matmul(sa, ql, kr)
                    t.store(k.ws_s, [blk, c0, col], sa)

            c_live = arith.cmpi("uge", j, c2, result_name="c_live")
            stage_c = scf.if_(c_live)
            with stage_c.then():
                ot = t.alloc(dynamic_valid=[vrows, head_dim], type=O_VEC)
                t.load(ot, k.ws_o, [blk, vr0, c0])
                t.rowexpandmul(ot, ot, alpha, otmp)
                t.add(o, o, ot)

            stage_d = scf.if_(a_live)
            with stage_d.then():
                wpos, n, w_end = kv_tile(a_t, tile_k, w_first, kv_end)
                # Cube: O_t = P V, page by page, V and P in two L1 copies.
                pm = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[rows, n],
                             slot=j, buffers=2, type=P_MAT)
                oa = t.alloc(dynamic_valid=[rows, head_dim], type=O_ACC)
                with scf.for_(wpos, w_end, block_size, iv_name="p") as page:
                    seg, col = page_segment(page.iv, block_size, w_end, wpos,
                                            c1)
                    vm = t.alloc(dynamic_shape=[tile_k],
                                 dynamic_valid=[seg, head_dim], slot=j,
                                 buffers=2, type=V_MAT)
                    t.load_paged(vm, k.v_cache, kv_head, k.block_table, kv_id,
                                 page.iv)
                    first_page = arith.cmpi("eq", page.iv, wpos,
                                            result_name="first_page")
                    load_p = scf.if_(first_page)
                    with load_p.then():
                        t.load(pm, k.ws_p, [blk, c0, c0])
                    vr = t.alloc(dynamic_shape=[tile_k],
                                 dynamic_valid=[seg, head_dim], type=V_RIGHT)
                    t.mov(vr, vm)
                    pl = t.alloc(dynamic_shape=[tile_k],
                                 dynamic_valid=[rows, seg], type=P_LEFT)
                    t.extract(pl, pm, c0, col)
                    first = scf.if_(first_page)
                    with first.then():
                        t.matmul(oa, pl, vr)
                    with first.else_():
                        t.matmul_acc(oa, pl, vr)
                t.store(k.ws_o, [blk, c0, c0], oa)

        finish = scf.if_(last)
        with finish.then():
            # The row's last chunk: o / l as bf16, token by token.
            t.rowexpanddiv(o, o, l_col, otmp)
            ob = t.alloc(dynamic_valid=[vrows, head_dim], type=O_BF16)
            t.cvt(ob, o)
            with scf.for_(c0, q_len, c1, iv_name="s") as loop:
                has_rows, n_rows, lo_r, tr, head = token_rows(
                    loop.iv, group, vr0, vr_end, head_base)
                store = scf.if_(has_rows)
                with store.then():
                    token = t.subview(ob, tr, c0, [n_rows, head_dim],
                                      type=O_BF16)
                    t.store(k.out, [req, loop.iv, head, c0], token)
        with finish.else_():
            # The next chunk of the row continues from this state.
            t.store(k.acc_o, [req, kv_head, vr0, c0], o)
            t.store(k.acc_m, [req, kv_head, vr0], m_col, transpose=True)
            t.store(k.acc_l, [req, kv_head, vr0], l_col, transpose=True)


def token_rows(s, group, vr0, vr_end, head_base):
    """The rows of query token s that this vector core holds: whether any,
    how many, the first (lo_r), its row in the core's tiles (tr) and its
    head."""
    t_lo = arith.muli(s, group, result_name="t_lo")
    t_hi = arith.addi(t_lo, group, result_name="t_hi")
    lo_r = arith.maxui(t_lo, vr0, result_name="lo_r")
    hi_r = arith.minui(t_hi, vr_end, result_name="hi_r")
    has_rows = arith.cmpi("ult", lo_r, hi_r, result_name="has_rows")
    n_rows = arith.subi(hi_r, lo_r, result_name="n_rows")
    tr = arith.subi(lo_r, vr0, result_name="tr")
    g0 = arith.subi(lo_r, t_lo, result_name="g0")
    head = arith.addi(head_base, g0, result_name="head")
    return has_rows, n_rows, lo_r, tr, head


def kv_tile(t_idx, tile_k, w_first, kv_end):
    """KV tile t: its first position, its length and its end."""
    t_off = arith.muli(t_idx, tile_k, result_name="t_off")
    wpos = arith.addi(w_first, t_off, result_name="w")
    left = arith.subi(kv_end, wpos, result_name="left")
    n = arith.minui(tile_k, left, result_name="n")
    return wpos, n, arith.addi(wpos, n, result_name="w_end")


def softmax(k, blk, wpos, n, w_end, rows, vr0, tile_k, scale, lo_max, hi_min,
            lo_t, hi_t, m_row, l_row, alpha, alpha_row, zero, one, minus_one,
            largest, c0):
    """Stage A's vector work on one KV tile: its scores from the
    workspace, scaled and masked, then the online softmax (m, l and alpha
    updated, P to the workspace)."""
    sv = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[rows, n], type=S_VEC)
    tmp = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[rows, n], type=S_VEC)
    t.load(sv, k.ws_s, [blk, vr0, c0])
    t.muls(sv, sv, scale)
    cut_lo = arith.cmpi("ult", wpos, lo_max)
    cut_hi = arith.cmpi("ugt", w_end, hi_min)
    masked = scf.if_(arith.ori(cut_lo, cut_hi, result_name="masked"))
    with masked.then():
        w_i32 = arith.index_cast(wpos, type="i32", result_name="w_i32")
        pos_i = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[n],
                        type=POS_I32)
        pos_f = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[n],
                        type=POS_F32)
        t.ci(pos_i, w_i32)
        t.cvt(pos_f, pos_i)
        to_hi = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[rows, n],
                        type=S_VEC)
        from_lo = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[rows, n],
                          type=S_VEC)
        t.rowexpand(to_hi, hi_t)
        t.colexpandsub(to_hi, to_hi, pos_f)
        t.rowexpand(from_lo, lo_t)
        t.colexpandsub(from_lo, from_lo, pos_f)
        t.muls(from_lo, from_lo, minus_one)
        t.adds(from_lo, from_lo, one)
        t.min(to_hi, to_hi, from_lo)
        t.mins(to_hi, to_hi, one)
        t.maxs(to_hi, to_hi, zero)
        t.adds(to_hi, to_hi, minus_one)
        t.muls(to_hi, to_hi, largest)
        t.add(sv, sv, to_hi)

    mt = t.alloc(dynamic_valid=[rows], type=COL)
    mt_row = t.reshape(mt, type=ROW32)
    t.rowmax(mt, sv, tmp)
    t.max(mt_row, mt_row, m_row)
    t.sub(alpha_row, m_row, mt_row)
    t.exp(alpha_row, alpha_row)
    t.adds(m_row, mt_row, zero)
    t.rowexpandsub(sv, sv, mt, tmp)
    t.exp(sv, sv)
    lt = t.alloc(dynamic_valid=[rows], type=COL)
    lt_row = t.reshape(lt, type=ROW32)
    t.rowsum(lt, sv, tmp)
    t.mul(l_row, l_row, alpha_row)
    t.add(l_row, l_row, lt_row)
    pb = t.alloc(dynamic_shape=[tile_k], dynamic_valid=[rows, n], type=P_VEC)
    t.cvt(pb, sv)
    t.store(k.ws_p, [blk, vr0, c0], pb)


def page_segment(p, block_size, w_end, wpos, c1):
    """The positions [p, page end or w_end) of p's cache page, and their
    column in the KV tile."""
    p_page = arith.divui(p, block_size, result_name="p_page")
    p_next = arith.addi(p_page, c1, result_name="p_next_page")
    p_page_end = arith.muli(p_next, block_size, result_name="p_page_end")
    p_end = arith.minui(p_page_end, w_end, result_name="p_end")
    return (arith.subi(p_end, p, result_name="seg"),
            arith.subi(p, wpos, result_name="col"))


def decode_attention_module():
    """The whole workload: tier config, planning function, tiered kernel."""
    m = Module()
    m.tier_config("DecodeAttentionTiers", [(0, 1, 1024), (1, 1025, 4096),
                                           (2, 4097, 16384),
                                           (3, 16385, 131072)])
    decode_step(m)
    decode_kernel(m)
    return m
