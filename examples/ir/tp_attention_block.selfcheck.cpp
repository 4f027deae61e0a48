// The self-check of examples/ir/tp_attention_block.mlir: the attention
// block's decode step on one device (@decode_block) and sharded 4 ways
// (@decode_block_tp4: tensor parallel over the query heads, KV data
// parallel over the cache), on the same random block (attention_block.hpp:
// hidden 256, 4 query heads and 1 KV head of 64, pages of 16, ragged KV
// lengths).
//
// Rank r gets the QKV rows of its query head and of K and V, the norm
// weights of both, W_out's columns of its head and their smoothing, and
// its requests' pages (requests [r c, min(B, (r + 1) c)), c = ceil(B / 4))
// copied into a pool and a table of its own, rows reversed. Checks, for
// batches of 1, 3, 4 and 9 requests:
// - every rank's cache after the step holds, at every position of its
//   requests, the unsharded cache's bits (the same K and V columns of the
//   same projection, norm and rotation, stored by the rank that holds the
//   request);
// - every rank's attention output is the unsharded output's head r, bit
//   for bit (KV data parallelism gives the same bits, Sharding.md);
// - every rank ends with the same y, within the bound of the ranks'
//   partials computed in double from their own int8 outputs and scales
//   (y = sum_r attn8_r . W_out_r^T x scale_r x o_scale): each partial is
//   rounded to bf16 (2^-8 of its magnitude, and its float products 2^-22),
//   the float sum of 4 adds 4 x 2^-24 of their magnitudes, the last
//   rounding 2^-8 |y|: |y - ref| <= 2^-8 (|ref| + sum_r |ref_r|) (1 + 1e-4)
//   + 2^-21 sum_r |ref_r| plus half the storage's subnormal spacing;
// - a request longer than its rank's table (on rank 0): every rank
//   returns INVALID_PARAMS, no y written.
// And @decode_block_cp4 (the cache sharded by sequence: each rank's pool
// holds positions [4 r, 4 r + 4) of every page of 16, under the block's
// table), for batches of 1, 3 and 9: every rank's part of every page as
// the unsharded cache at the positions it holds; its attention head within
// twice the stated bound of the unsharded head (checkBatchCp); y as above.
//
// On 4 ranks as threads of one process (`wspc --run --ranks 4`), and,
// started by `mpirun -np 4` (built with MPI: WSP_WITH_MPI), on 4 processes.
#include "attention_block.hpp"
#include "ranks.hpp"

#include <functional>
#include <numeric>

using namespace attention_block;

namespace {

constexpr int64_t kRanks = 4, kRankQkv = 3 * kDim;

/// One rank's slice of the block's weights (its query head, K and V, and
/// W_out's columns of its head) and its outputs, whatever the cache's
/// sharding.
struct RankSlice {
  std::vector<int8_t> w, ow;
  std::vector<float> qkvScale, qkNormW, oSmooth;
  Outputs o;
  std::vector<int8_t> attn8;
  std::vector<float> attnScale; // the rank's per-token scales of attn
  std::vector<bf16> y;          // and its y
  std::vector<bf16> qkv, attn;

  RankSlice(const Block &blk, int64_t r) : o(blk.tokens) {
    const int64_t rowsOfQkv[3] = {r, 4, 5}; // its Q head, K, V
    for (int64_t h : rowsOfQkv)
      for (int64_t i = 0; i < kDim; ++i) {
        qkvScale.push_back(blk.qkvScale[size_t(h * kDim + i)]);
        for (int64_t k = 0; k < kHidden; ++k)
          w.push_back(blk.w[size_t((h * kDim + i) * kHidden + k)]);
      }
    for (int64_t h : {r, int64_t(4)})
      for (int64_t i = 0; i < kDim; ++i)
        qkNormW.push_back(blk.qkNormW[size_t(h * kDim + i)]);
    for (int64_t n = 0; n < kHidden; ++n)
      for (int64_t k = 0; k < kDim; ++k)
        ow.push_back(blk.ow[size_t(n * kAttn + r * kDim + k)]);
    for (int64_t k = 0; k < kDim; ++k)
      oSmooth.push_back(blk.oSmooth[size_t(r * kDim + k)]);
    const int64_t t = blk.tokens;
    qkv.assign(size_t(t * kRankQkv), bf16{});
    attn.assign(size_t(t * kDim), sentinel());
    attn8.assign(size_t(t * kDim), 0);
    attnScale.assign(size_t(t), 0.f);
    y.assign(size_t(t * kHidden), sentinel());
  }
};

/// Calls one rank's program `f` (@decode_block_tp4 or _cp4): the block's
/// inputs, the rank's slice, its cache (table, kv_ids, kv_lens, pools), its
/// outputs, its sharding workspaces `sharding...`, the operators'
/// workspaces.
template <typename F, typename... Ws>
int32_t runRank(F &&f, Block &blk, RankSlice &s, MemRef<int32_t, 2> table,
                MemRef<int32_t, 1> kvIds, MemRef<int32_t, 1> kvLens,
                MemRef<bf16, 4> kc, MemRef<bf16, 4> vc, Ws... sharding) {
  const int64_t t = blk.tokens;
  Outputs &o = s.o;
  return f(MemRef<bf16, 2>{blk.x.data(), {t, kHidden}},
           MemRef<bf16, 2>{blk.r.data(), {t, kHidden}}, vec(blk.normW),
           vec(blk.smooth), MemRef<int8_t, 2>{s.w.data(), {kRankQkv, kHidden}},
           vec(s.qkvScale), MemRef<float, 2>{s.qkNormW.data(), {2, kDim}},
           MemRef<bf16, 2>{blk.sin.data(), {kTable, kDim}},
           MemRef<bf16, 2>{blk.cos.data(), {kTable, kDim}}, vec(blk.past),
           vec(blk.lens), vec(blk.accum), table, kvIds, kvLens, kc, vc,
           vec(s.oSmooth), MemRef<int8_t, 2>{s.ow.data(), {kHidden, kDim}},
           vec(blk.oScale), MemRef<int8_t, 2>{o.x8.data(), {t, kHidden}},
           vec(o.pts), MemRef<bf16, 2>{o.after.data(), {t, kHidden}},
           MemRef<bf16, 2>{s.qkv.data(), {t, kRankQkv}},
           MemRef<bf16, 4>{s.attn.data(), {t, 1, 1, kDim}},
           MemRef<int8_t, 2>{s.attn8.data(), {t, kDim}}, vec(s.attnScale),
           MemRef<bf16, 2>{s.y.data(), {t, kHidden}}, sharding...,
           MemRef<int32_t, 3>{o.qkvWs.data(), {24, 128, 128}},
           MemRef<bf16, 4>{o.wsH.data(), {24, 2, 32, 128}},
           MemRef<float, 4>{o.wsF.data(), {24, 3, 32, 128}},
           MemRef<float, 3>{o.wsMl.data(), {24, 2, 32}},
           MemRef<int32_t, 3>{o.oWs.data(), {24, 128, 128}});
}

/// A KV-data-parallel rank (@decode_block_tp4): its requests' pages in a
/// pool and a table of its own.
struct Rank : RankSlice {
  std::vector<int32_t> table, kvIds, kvLens;
  std::vector<bf16> kc, vc;
  int64_t rows = 1, pool = 0, b0 = 0, count = 0;
  std::vector<size_t> pageOf; // local page -> the block's page
  std::vector<bf16> sharding;
  std::vector<int32_t> accum; // the rank's accum_q_len's workspace

  Rank(const Block &blk, int64_t r) : RankSlice(blk, r) {
    // Its requests, rows reversed; their pages in order of use.
    const int64_t batch = int64_t(blk.lens.size());
    const int64_t c = (batch + kRanks - 1) / kRanks; // a rank's requests
    kvIds = reversedRankRows(batch, kRanks);
    const RankRequests mine = rankRequests(batch, r, kRanks);
    b0 = mine.first;
    count = mine.count;
    rows = std::max<int64_t>(count, 1);
    table.assign(size_t(rows * kPagesPerSeq), 0);
    for (int64_t j = 0; j < count; ++j)
      for (int64_t p = 0; p < kPagesPerSeq; ++p) {
        table[size_t(kvIds[size_t(b0 + j)] * kPagesPerSeq + p)] =
            int32_t(pageOf.size());
        pageOf.push_back(size_t(
            blk.table[size_t(blk.ids[size_t(b0 + j)] * kPagesPerSeq + p)]));
      }
    pool = std::max<int64_t>(int64_t(pageOf.size()), 1);
    kc.assign(size_t(pool * kBlock * kDim), sentinel());
    vc = kc;
    for (size_t page = 0; page < pageOf.size(); ++page)
      for (int64_t i = 0; i < kBlock * kDim; ++i) {
        kc[page * size_t(kBlock * kDim) + size_t(i)] =
            blk.kc[pageOf[page] * size_t(kBlock * kDim) + size_t(i)];
        vc[page * size_t(kBlock * kDim) + size_t(i)] =
            blk.vc[pageOf[page] * size_t(kBlock * kDim) + size_t(i)];
      }
    kvLens = blk.past;
    const int64_t t = blk.tokens;
    // Every q, each rank's and every rank's outputs, and q packed.
    sharding.assign(size_t((t + (kRanks + 1) * c) * kAttn + t * kDim), bf16{});
    accum.assign(size_t(c + 1), 0);
  }

  int32_t run(Block &blk) {
    return runRank(wsp_gen::decode_block_tp4, blk, *this,
                   MemRef<int32_t, 2>{table.data(), {rows, kPagesPerSeq}},
                   vec(kvIds), vec(kvLens),
                   MemRef<bf16, 4>{kc.data(), {pool, 1, kBlock, kDim}},
                   MemRef<bf16, 4>{vc.data(), {pool, 1, kBlock, kDim}},
                   vec(sharding), vec(accum));
  }
};

/// A context-parallel rank (@decode_block_cp4): its part of every page,
/// positions [4 r, 4 r + 4) of each page of 16, under the block's own table.
struct RankCp : RankSlice {
  static constexpr int64_t kPart = kBlock / kRanks;
  std::vector<bf16> kc, vc, sharding;
  std::vector<float> states;
  std::vector<int32_t> lens, store;

  RankCp(const Block &blk, int64_t r) : RankSlice(blk, r) {
    for (const std::vector<bf16> *whole : {&blk.kc, &blk.vc}) {
      std::vector<bf16> &part = whole == &blk.kc ? kc : vc;
      for (int64_t page = 0; page < blk.pool; ++page)
        for (int64_t i = 0; i < kPart * kDim; ++i)
          part.push_back(
              (*whole)[size_t((page * kBlock + r * kPart) * kDim + i)]);
    }
    // The workspaces (convert-llm-kv-sharding's sizes): q of every head
    // and the rank's q packed (a head range of the QKV), the states of
    // every head, visible_lens, the store's rows.
    const int64_t t = blk.tokens;
    sharding.assign(size_t(t * (kQHeads + 1) * kDim), bf16{});
    states.assign(size_t(2 * t * kQHeads * (kDim + 16)), 0.f);
    lens.assign(size_t(t), 0);
    store.assign(size_t(4 * (2 * t + t / (kRanks * kPart) + 1) + 1), 0);
  }

  int32_t run(Block &blk) {
    return runRank(
        wsp_gen::decode_block_cp4, blk, *this,
        MemRef<int32_t, 2>{blk.table.data(), {blk.slots, kPagesPerSeq}},
        vec(blk.ids), vec(blk.past),
        MemRef<bf16, 4>{kc.data(), {blk.pool, 1, kPart, kDim}},
        MemRef<bf16, 4>{vc.data(), {blk.pool, 1, kPart, kDim}}, vec(store),
        vec(sharding), vec(states), vec(lens));
  }
};

/// The unsharded block's step on one rank alone.
int32_t runWhole(Block &blk, Outputs &o) {
  comm::SoloCommunicator solo;
  comm::CurrentCommunicator scope(solo);
  return std::apply(wsp_gen::decode_block,
                    decodeArgs(blk, o, blk.past, blk.past));
}

/// Under MPI, every rank's int8 output, scales and y into every process's
/// copy of the ranks (the check needs them all).
template <typename Part> void share(Ranks &ranks, std::vector<Part> &parts) {
  if (!ranks.world)
    return;
  comm::Communicator &world = *ranks.world;
  Part &mine = parts[size_t(world.rank())];
  auto gather = [&](auto member) {
    auto &own = mine.*member;
    using T = typename std::decay_t<decltype(own)>::value_type;
    std::vector<T> all(own.size() * size_t(kRanks));
    if (world.all_gather(own.data(), all.data(), own.size() * sizeof(T)) !=
        comm::Status::OK)
      return;
    for (int64_t q = 0; q < kRanks; ++q)
      std::copy(all.begin() + long(size_t(q) * own.size()),
                all.begin() + long(size_t(q + 1) * own.size()),
                (parts[size_t(q)].*member).begin());
  };
  gather(&Part::attn8);
  gather(&Part::attnScale);
  gather(&Part::y);
}

/// Rank r's y against the ranks' partials in double, from their own int8
/// outputs and scales: the largest error over its bound (file comment),
/// and whether y has rank 0's bits.
template <typename Part>
void checkY(const std::vector<Part> &parts, int64_t r, const Block &initial,
            double &worst, bool &same) {
  const Part &part = parts[size_t(r)];
  const int64_t t = initial.tokens;
  for (int64_t i = 0; i < t; ++i)
    for (int64_t n = 0; n < kHidden; ++n) {
      double ref = 0, magnitude = 0;
      for (int64_t q = 0; q < kRanks; ++q) {
        const Part &other = parts[size_t(q)];
        int64_t acc = 0;
        for (int64_t k = 0; k < kDim; ++k)
          acc += int64_t(other.attn8[size_t(i * kDim + k)]) *
                 other.ow[size_t(n * kDim + k)];
        const double partial = double(acc) * other.attnScale[size_t(i)] *
                               initial.oScale[size_t(n)];
        ref += partial;
        magnitude += std::fabs(partial);
      }
      const double got = toFloat(part.y[size_t(i * kHidden + n)]);
      const double bound =
          std::ldexp(std::fabs(ref) + magnitude, -8) * (1 + 1e-4) +
          std::ldexp(magnitude, -21) + kSubnormalRounding;
      // (A NaN, an unwritten sentinel say, is an infinite error.)
      const double err = std::fabs(got - ref) / bound;
      worst = std::isnan(err) ? INFINITY : std::fmax(worst, err);
      same = same && part.y[size_t(i * kHidden + n)].bits ==
                         parts[0].y[size_t(i * kHidden + n)].bits;
    }
}

Block makeBlock(int64_t batch, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> len(0, 300);
  // Distinct table rows for the requests, one row left unused.
  std::vector<int32_t> lens(size_t(batch), 1), ids(size_t(batch + 1)), past;
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  ids.pop_back();
  for (int64_t b = 0; b < batch; ++b)
    past.push_back(len(rng));
  return Block(true, lens, ids, past, rng);
}

/// One step of a random block of `batch` requests: unsharded (`whole`,
/// `wo`, `ok`) and by every rank of `Part` (`parts`, `status`), from the
/// same inputs.
template <typename Part> struct Step {
  const Block initial;
  Block whole;
  Outputs wo;
  bool ok;
  std::vector<Part> parts;
  std::vector<int32_t> status = std::vector<int32_t>(size_t(kRanks), -1);

  Step(Ranks &ranks, int64_t batch, unsigned seed)
      : initial(makeBlock(batch, seed)), whole(initial), wo(whole.tokens) {
    ok = runWhole(whole, wo) == 0;
    Block shared = initial; // the inputs every rank reads
    for (int64_t r = 0; r < kRanks; ++r)
      parts.emplace_back(initial, r);
    ranks.run(
        [&](int r) { status[size_t(r)] = parts[size_t(r)].run(shared); });
    share(ranks, parts);
  }
};

bool checkBatch(Ranks &ranks, int64_t batch) {
  Step<Rank> step(ranks, batch, unsigned(500 + batch));
  const Block &initial = step.initial, &whole = step.whole;
  const Outputs &wo = step.wo;
  const std::vector<Rank> &parts = step.parts;
  const std::vector<int32_t> &status = step.status;
  bool ok = step.ok;

  bool caches = true, heads = true, same = true;
  double worst = 0;
  const int64_t t = whole.tokens;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (!ranks.local(r))
      continue;
    const Rank &part = parts[size_t(r)];
    ok = status[size_t(r)] == 0 && ok;
    // Its requests' positions, the step's included.
    for (int64_t j = 0; j < part.count; ++j) {
      const size_t b = size_t(part.b0 + j);
      for (int64_t p = 0; p <= initial.past[b]; ++p) {
        const size_t local = size_t(
            (part.table[size_t(part.kvIds[b] * kPagesPerSeq + p / kBlock)] *
                 kBlock +
             p % kBlock) *
            kDim);
        for (int64_t c = 0; c < kDim; ++c)
          caches = caches &&
                   part.kc[local + size_t(c)].bits ==
                       whole.kc[whole.at(b, p, c)].bits &&
                   part.vc[local + size_t(c)].bits ==
                       whole.vc[whole.at(b, p, c)].bits;
      }
    }
    for (int64_t i = 0; i < t; ++i)
      for (int64_t c = 0; c < kDim; ++c)
        heads = heads && part.attn[size_t(i * kDim + c)].bits ==
                             wo.attn[size_t(i * kAttn + r * kDim + c)].bits;
    checkY(parts, r, initial, worst, same);
  }
  ok = ranks.all(ok && caches && heads && same && worst <= 1);
  if (ranks.local(0))
    std::printf("decode_block_tp4 B=%lld on %lld ranks: %s (caches as the "
                "unsharded block's: %s, attention heads bit-equal: %s, same y "
                "on every rank: %s, max err / bound %.3f)\n",
                (long long)batch, (long long)kRanks, ok ? "ok" : "MISMATCH",
                caches ? "yes" : "NO", heads ? "yes" : "NO",
                same ? "yes" : "NO", worst);
  return ok;
}

/// The block with the cache sharded by sequence: every rank's part of
/// every page holds the unsharded cache's bits at the positions it holds
/// (the step's K and V stored by the rank whose part holds its position);
/// every rank's attention head is the unsharded one's within twice the
/// bound each has of the exact attention (Sharding.md: 2^-8 (max|v| +
/// |out|) (1 + 2^-6), bf16 P and output; the ranks merge their softmax
/// states in another order than one device sums its chunks); y as for
/// KV data parallelism.
bool checkBatchCp(Ranks &ranks, int64_t batch) {
  Step<RankCp> step(ranks, batch, unsigned(700 + batch));
  const Block &initial = step.initial, &whole = step.whole;
  const Outputs &wo = step.wo;
  const std::vector<RankCp> &parts = step.parts;
  const std::vector<int32_t> &status = step.status;
  bool ok = step.ok;

  bool caches = true, same = true;
  double worst = 0, attention = 0;
  const int64_t t = whole.tokens, part = RankCp::kPart;
  for (int64_t r = 0; r < kRanks; ++r) {
    if (!ranks.local(r))
      continue;
    const RankCp &rank = parts[size_t(r)];
    ok = status[size_t(r)] == 0 && ok;
    for (size_t b = 0; b < initial.lens.size(); ++b) {
      double maxV = 0;
      for (int64_t p = 0; p <= initial.past[b]; ++p) {
        for (int64_t c = 0; c < kDim; ++c)
          maxV = std::fmax(maxV,
                           std::fabs(toFloat(whole.vc[whole.at(b, p, c)])));
        if ((p % kBlock) / part != r)
          continue;
        const int64_t page = initial.table[size_t(
            initial.ids[b] * kPagesPerSeq + p / kBlock)];
        const size_t local =
            size_t((page * part + p % kBlock - r * part) * kDim);
        for (int64_t c = 0; c < kDim; ++c)
          caches = caches &&
                   rank.kc[local + size_t(c)].bits ==
                       whole.kc[whole.at(b, p, c)].bits &&
                   rank.vc[local + size_t(c)].bits ==
                       whole.vc[whole.at(b, p, c)].bits;
      }
      // Request b's token is row b (one token each).
      for (int64_t c = 0; c < kDim; ++c) {
        const double want =
            toFloat(wo.attn[size_t(int64_t(b) * kAttn + r * kDim + c)]);
        const double got = toFloat(rank.attn[size_t(int64_t(b) * kDim + c)]);
        const double bound =
            std::ldexp(maxV + std::fabs(want), -7) * (1 + std::ldexp(1, -6));
        const double err = std::fabs(got - want) / bound;
        attention = std::isnan(err) ? INFINITY : std::fmax(attention, err);
      }
    }
    checkY(parts, r, initial, worst, same);
  }
  ok = ranks.all(ok && caches && attention <= 1 && same && worst <= 1);
  if (ranks.local(0) && status[0] != 0)
    std::printf("decode_block_cp4 B=%lld: status %d on rank 0\n",
                (long long)batch, status[0]);
  if (ranks.local(0))
    std::printf("decode_block_cp4 B=%lld on %lld ranks: %s (caches as the "
                "unsharded block's: %s, attention heads: max diff / bound "
                "%.3f, same y on every rank: %s, max err / bound %.3f)\n",
                (long long)batch, (long long)kRanks, ok ? "ok" : "MISMATCH",
                caches ? "yes" : "NO", attention, same ? "yes" : "NO", worst);
  (void)t;
  return ok;
}

/// A request on rank 0 longer than its table: every rank fails, no y.
bool checkTooLong(Ranks &ranks) {
  const Block initial = makeBlock(6, 77);
  Block shared = initial;
  std::vector<Rank> parts;
  for (int64_t r = 0; r < kRanks; ++r)
    parts.emplace_back(initial, r);
  parts[0].kvLens[0] = int32_t(kPagesPerSeq * kBlock);
  std::vector<int32_t> status(size_t(kRanks), -1);
  ranks.run([&](int r) { status[size_t(r)] = parts[size_t(r)].run(shared); });
  bool ok = true;
  for (int64_t r = 0; r < kRanks; ++r)
    if (ranks.local(r))
      ok = ok && status[size_t(r)] == 3 && allSentinel(parts[size_t(r)].y);
  ok = ranks.all(ok);
  if (ranks.local(0))
    std::printf("a request longer than its table on rank 0, on %lld ranks: "
                "%s (INVALID_PARAMS on every rank, y untouched)\n",
                (long long)kRanks, ok ? "ok" : "MISMATCH");
  return ok;
}

bool checkAll(Ranks &ranks) {
  bool ok = true;
  for (int64_t batch : {1, 3, 4, 9})
    ok = checkBatch(ranks, batch) && ok;
  // Context parallelism: fewer requests than ranks is its case (seed 003's
  // rule), and more.
  for (int64_t batch : {1, 3, 9})
    ok = checkBatchCp(ranks, batch) && ok;
  return checkTooLong(ranks) && ok;
}

} // namespace

int main(int argc, char **argv) {
  return runOnRanks(argc, argv, {kRanks}, [](Ranks &ranks) {
    if (ranks.count != kRanks) {
      if (ranks.local(0))
        std::printf("decode_block_tp4 runs on %lld ranks, not %lld\n",
                    (long long)kRanks, (long long)ranks.count);
      return false;
    }
    return checkAll(ranks);
  });
}
