// The self-check of examples/ir/moe_ep.mlir: the routed experts of an MoE
// layer on 1, 2 and 4 expert-parallel ranks (threads, or MPI processes
// under mpirun), each rank its function @layer_epN_rR and its experts'
// weights, every rank every token; and with seed 002's shared expert
// (@layer_shared_epN_rR, steps of 24 tokens), each rank running it for its
// share of the tokens: its shared rows equal the one-rank run's rows of
// those tokens bit for bit, the bound below counts the shared row too.
//
// Per batch (random bf16 tokens, random top-2 routing with distinct
// experts, random int8 weights), against the one-rank run and a naive
// reference:
// - every rank's out is the same bits (the all_reduce combines in rank
//   order);
// - each rank's down rows (its experts' rows, in expert order) equal the
//   one-rank run's rows of those experts bit for bit: a row is computed by
//   the same operations whichever rank runs it;
// - out differs from the one-rank out by at most what the roundings
//   allow: each rank rounds its part of a token (the weighted sum of its
//   experts' down rows, which are the one-rank rows) to bf16 once, half an
//   ulp, at most 2^-8 (bf16's unit roundoff) of sum_k w_k |down_k| over
//   the token's experts; the all_reduce rounds the ranks' sum once (2^-8
//   |out|) and the one rank its sum once (2^-8 |one-rank out|); f32 sums
//   of two terms add far less (a 2^-6 margin). The bound is computed per
//   element from the one-rank run's down rows;
// - the one-rank out is within 1% of each token's largest reference value
//   (moe_chain.selfcheck.cpp's bound: int8 activations carry 1/254 of a
//   row's max in rounding; measured below 0.4%).
// And a negative expert id on rank 0: its scatter fails, its all_reduce
// joins not ready, every rank's status is INVALID_PARAMS (3).
#include "moe_chain.hpp"
#include "ranks.hpp"

#include <functional>

using namespace selfcheck;
using namespace moe_chain;

namespace {

constexpr int64_t kH = 128, kBlocks = 24;

/// max(worst, ratio), a NaN counting as infinitely far.
double worse(double worst, double ratio) {
  return std::isnan(ratio) ? HUGE_VAL : std::max(worst, ratio);
}

using LayerFn = decltype(&wsp_gen::layer_ep1_r0);
/// Rank r of n's function (n = 1, 2, 4).
LayerFn layerOf(int64_t n, int64_t r) {
  static const LayerFn one[] = {wsp_gen::layer_ep1_r0};
  static const LayerFn two[] = {wsp_gen::layer_ep2_r0, wsp_gen::layer_ep2_r1};
  static const LayerFn four[] = {wsp_gen::layer_ep4_r0, wsp_gen::layer_ep4_r1,
                                 wsp_gen::layer_ep4_r2, wsp_gen::layer_ep4_r3};
  return n == 1 ? one[r] : n == 2 ? two[r] : four[r];
}

/// One batch: tokens, their routing, the experts' weights.
struct Batch : MoeWeights<kH> {
  int64_t tokens;
  std::vector<bf16> x;
  std::vector<int32_t> ids;
  std::vector<float> weights;

  Batch(int64_t tokens, std::mt19937 &rng)
      : MoeWeights<kH>(rng), tokens(tokens) {
    x = randomBf16(size_t(tokens * kH), -2.f, 2.f, rng);
    std::uniform_real_distribution<float> share(0.1f, 0.9f);
    for (int64_t t = 0; t < tokens; ++t) {
      const int32_t a = int32_t(rng() % kE);
      const int32_t b = (a + 1 + int32_t(rng() % (kE - 1))) % int32_t(kE);
      const float w = share(rng);
      ids.insert(ids.end(), {a, b});
      weights.insert(weights.end(), {w, 1 - w});
    }
  }
};

using SharedFn = decltype(&wsp_gen::layer_shared_ep1_r0);
/// Rank r of n's function with the shared expert.
SharedFn sharedOf(int64_t n, int64_t r) {
  static const SharedFn one[] = {wsp_gen::layer_shared_ep1_r0};
  static const SharedFn two[] = {wsp_gen::layer_shared_ep2_r0,
                                 wsp_gen::layer_shared_ep2_r1};
  static const SharedFn four[] = {
      wsp_gen::layer_shared_ep4_r0, wsp_gen::layer_shared_ep4_r1,
      wsp_gen::layer_shared_ep4_r2, wsp_gen::layer_shared_ep4_r3};
  return n == 1 ? one[r] : n == 2 ? two[r] : four[r];
}
/// The shared-expert functions' step: 24 tokens, a static share per rank.
constexpr int64_t kSharedTokens = 24;

/// One rank's buffers and call: its experts [start, start + local), and
/// with the shared expert its tokens [offset, offset + shared), whose rows
/// come first in the scattered buffers.
struct Rank {
  int64_t tokens, local, start, shared, offset, allocated;
  std::vector<int8_t> rows, act;
  std::vector<float> rowScale, actScale;
  std::vector<int32_t> counts, offsets;
  std::vector<bf16> gateUp, down, out;
  std::vector<int32_t> upWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       downWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       sharedUpWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       sharedDownWs = std::vector<int32_t>(kBlocks * 128 * 128),
                       inverse = std::vector<int32_t>(8192 * kTopK);

  Rank(int64_t tokens, int64_t r, int64_t n, bool withShared = false)
      : tokens(tokens), local(kE / n), start(r * kE / n),
        shared(withShared ? tokens / n : 0), offset(r * shared),
        allocated(shared + tokens * kTopK) {
    rows.assign(size_t(allocated * kH), 0);
    rowScale.assign(size_t(allocated), 0.f);
    counts.assign(size_t(local), -5);
    offsets.assign(size_t(tokens * kTopK), -9); // a routed row's (token, slot)
    gateUp.assign(size_t(allocated * 2 * kI), sentinel());
    act.assign(size_t(allocated * kI), 0);
    actScale.assign(size_t(allocated), 0.f);
    down.assign(size_t(allocated * kH), sentinel());
    // The gather adds the rank's experts' rows into out (seed 002: it
    // accumulates, a shared expert's output may be there): zeros.
    out.assign(size_t(tokens * kH), toStorage(0.f));
  }

  int32_t call(LayerFn f, Batch &w, std::vector<int32_t> &ids) {
    const int64_t e = start;
    return f(
        MemRef<bf16, 2>{w.x.data(), {tokens, kH}},
        MemRef<int32_t, 2>{ids.data(), {tokens, kTopK}},
        MemRef<float, 2>{w.weights.data(), {tokens, kTopK}},
        MemRef<float, 2>{&w.smoothUp[size_t(e * kH)], {local, kH}},
        MemRef<int8_t, 3>{&w.up[size_t(e * kH * 2 * kI)], {local, kH, 2 * kI}},
        MemRef<float, 2>{&w.upScale[size_t(e * 2 * kI)], {local, 2 * kI}},
        MemRef<float, 2>{&w.smoothDown[size_t(e * kI)], {local, kI}},
        MemRef<int8_t, 3>{&w.down[size_t(e * kI * kH)], {local, kI, kH}},
        MemRef<float, 2>{&w.downScale[size_t(e * kH)], {local, kH}},
        MemRef<int8_t, 2>{rows.data(), {allocated, kH}},
        MemRef<float, 1>{rowScale.data(), {allocated}},
        MemRef<int32_t, 1>{counts.data(), {local}},
        MemRef<int32_t, 1>{offsets.data(), {tokens * kTopK}},
        MemRef<bf16, 2>{gateUp.data(), {allocated, 2 * kI}},
        MemRef<int8_t, 2>{act.data(), {allocated, kI}},
        MemRef<float, 1>{actScale.data(), {allocated}},
        MemRef<bf16, 2>{down.data(), {allocated, kH}},
        MemRef<bf16, 2>{out.data(), {tokens, kH}},
        MemRef<int32_t, 3>{upWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{downWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 1>{inverse.data(), {8192 * kTopK}});
  }
  /// With the shared expert: its smoothing rows first.
  int32_t call(SharedFn f, Batch &w) {
    const int64_t e = start;
    std::vector<float> su(w.sharedSmoothUp), sd(w.sharedSmoothDown);
    su.insert(su.end(), w.smoothUp.begin() + e * kH,
              w.smoothUp.begin() + (e + local) * kH);
    sd.insert(sd.end(), w.smoothDown.begin() + e * kI,
              w.smoothDown.begin() + (e + local) * kI);
    return f(
        MemRef<bf16, 2>{w.x.data(), {tokens, kH}},
        MemRef<int32_t, 2>{w.ids.data(), {tokens, kTopK}},
        MemRef<float, 2>{w.weights.data(), {tokens, kTopK}},
        MemRef<float, 2>{su.data(), {1 + local, kH}},
        MemRef<int8_t, 3>{&w.up[size_t(e * kH * 2 * kI)], {local, kH, 2 * kI}},
        MemRef<float, 2>{&w.upScale[size_t(e * 2 * kI)], {local, 2 * kI}},
        MemRef<int8_t, 2>{w.sharedUp.data(), {kH, 2 * kI}},
        MemRef<float, 1>{w.sharedUpScale.data(), {2 * kI}},
        MemRef<float, 2>{sd.data(), {1 + local, kI}},
        MemRef<int8_t, 3>{&w.down[size_t(e * kI * kH)], {local, kI, kH}},
        MemRef<float, 2>{&w.downScale[size_t(e * kH)], {local, kH}},
        MemRef<int8_t, 2>{w.sharedDown.data(), {kI, kH}},
        MemRef<float, 1>{w.sharedDownScale.data(), {kH}},
        MemRef<int8_t, 2>{rows.data(), {allocated, kH}},
        MemRef<float, 1>{rowScale.data(), {allocated}},
        MemRef<int32_t, 1>{counts.data(), {local}},
        MemRef<int32_t, 1>{offsets.data(), {tokens * kTopK}},
        MemRef<bf16, 2>{gateUp.data(), {allocated, 2 * kI}},
        MemRef<int8_t, 2>{act.data(), {allocated, kI}},
        MemRef<float, 1>{actScale.data(), {allocated}},
        MemRef<bf16, 2>{down.data(), {allocated, kH}},
        MemRef<bf16, 2>{out.data(), {tokens, kH}},
        MemRef<int32_t, 3>{upWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{sharedUpWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{downWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 3>{sharedDownWs.data(), {kBlocks, 128, 128}},
        MemRef<int32_t, 1>{inverse.data(), {8192 * kTopK}});
  }
  int64_t used() const {
    int64_t u = 0;
    for (int32_t c : counts)
      u += c;
    return u;
  }
};

/// The one-rank run of a batch, and the reference's deviation from it.
struct OneRank {
  Rank rank;
  int32_t status;
  double worstRef = 0; // |out - ref| / the token's largest |ref|
  OneRank(Batch &w, bool withShared) : rank(w.tokens, 0, 1, withShared) {
    comm::SoloCommunicator solo;
    comm::CurrentCommunicator scope(solo);
    status = withShared ? rank.call(wsp_gen::layer_shared_ep1_r0, w)
                        : rank.call(wsp_gen::layer_ep1_r0, w, w.ids);
    for (int64_t t = 0; t < w.tokens; ++t) {
      std::vector<double> x(kH), ref(kH, 0.0);
      for (int64_t h = 0; h < kH; ++h)
        x[size_t(h)] = toFloat(w.x[size_t(t * kH + h)]);
      if (withShared)
        ref = w.sharedExpertOf(x.data());
      for (int64_t k = 0; k < kTopK; ++k) {
        const std::vector<double> e =
            w.expertOf(x.data(), w.ids[size_t(t * kTopK + k)]);
        for (int64_t h = 0; h < kH; ++h)
          ref[size_t(h)] += w.weights[size_t(t * kTopK + k)] * e[size_t(h)];
      }
      double top = 0;
      for (double v : ref)
        top = std::max(top, std::fabs(v));
      for (int64_t h = 0; h < kH; ++h)
        worstRef =
            worse(worstRef, std::fabs(toFloat(rank.out[size_t(t * kH + h)]) -
                                      ref[size_t(h)]) /
                                std::max(top, 1e-30));
    }
  }
};

/// One batch on the ranks, with or without the shared expert.
bool checkBatch(Ranks &ranks, int64_t tokens, unsigned seed,
                bool withShared = false) {
  std::mt19937 rng(seed);
  Batch w(tokens, rng);
  const OneRank one(w, withShared);
  const int64_t n = ranks.count;
  std::vector<Rank> parts;
  for (int64_t r = 0; r < n; ++r)
    parts.emplace_back(tokens, r, n, withShared);
  std::vector<int32_t> status(size_t(n), -1);
  ranks.run([&](int r) {
    Rank &p = parts[size_t(r)];
    status[size_t(r)] = withShared ? p.call(sharedOf(n, r), w)
                                   : p.call(layerOf(n, r), w, w.ids);
  });
  bool ok = one.status == 0 && one.worstRef <= 0.01;
  int64_t rowMismatches = 0;
  double worst = 0;
  // The one-rank run's first row of expert e: its shared rows, then the
  // counts before it.
  const int64_t sharedRows = one.rank.shared;
  auto firstRow = [&](int64_t e) {
    int64_t row = sharedRows;
    for (int64_t i = 0; i < e; ++i)
      row += one.rank.counts[size_t(i)];
    return row;
  };
  // The one-rank run's down row of (token, slot): token_offset names the
  // (token, slot) of each routed row.
  std::vector<int64_t> rowOf(size_t(tokens * kTopK), -1);
  for (int64_t i = 0; i < one.rank.used(); ++i)
    if (int32_t ts = one.rank.offsets[size_t(i)];
        ts >= 0 && ts < tokens * kTopK)
      rowOf[size_t(ts)] = sharedRows + i;
  for (int64_t r = 0; r < n; ++r) {
    if (!ranks.local(r))
      continue;
    const Rank &p = parts[size_t(r)];
    ok = ok && status[size_t(r)] == 0;
    // Its routed rows, then its shared rows (tokens [offset, offset +
    // shared), the one-rank run's shared rows of those tokens).
    const int64_t from = firstRow(p.start);
    for (int64_t i = 0; i < p.used() * kH; ++i)
      rowMismatches += p.down[size_t(p.shared * kH + i)].bits !=
                       one.rank.down[size_t(from * kH + i)].bits;
    for (int64_t i = 0; i < p.shared * kH; ++i)
      rowMismatches += p.down[size_t(i)].bits !=
                       one.rank.down[size_t(p.offset * kH + i)].bits;
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t h = 0; h < kH; ++h) {
        // The shared expert's row of t, weight 1, then its routed rows.
        double parts =
            sharedRows ? std::fabs(toFloat(one.rank.down[size_t(t * kH + h)]))
                       : 0.0;
        for (int64_t k = 0; k < kTopK; ++k) {
          const int64_t row = rowOf[size_t(t * kTopK + k)];
          parts +=
              row < 0
                  ? HUGE_VAL
                  : w.weights[size_t(t * kTopK + k)] *
                        std::fabs(toFloat(one.rank.down[size_t(row * kH + h)]));
        }
        const double got = toFloat(p.out[size_t(t * kH + h)]);
        const double want = toFloat(one.rank.out[size_t(t * kH + h)]);
        const double bound =
            0x1p-8 * (parts + std::fabs(got) + std::fabs(want)) * (1 + 0x1p-6) +
            kSubnormalRounding;
        worst = worse(worst, std::fabs(got - want) / bound);
      }
  }
  // Every rank's out the same bits: in one process compared directly;
  // over MPI, each rank's digest (FNV-1a of its out) against the largest
  // and the smallest of all ranks'.
  bool same = true;
  if (!ranks.world) {
    for (int64_t r = 1; r < n; ++r)
      for (size_t i = 0; i < parts[0].out.size(); ++i)
        same = same && parts[size_t(r)].out[i].bits == parts[0].out[i].bits;
  } else {
    uint32_t hash = 2166136261u;
    for (bf16 v : parts[size_t(ranks.world->rank())].out)
      hash = (hash ^ v.bits) * 16777619u;
    int32_t lo = int32_t(hash & 0x7fffffff), hi = lo;
    same = ranks.world->all_reduce(&lo, 1, comm::ElemType::I32,
                                   comm::ReduceOp::Min) == comm::Status::OK &&
           ranks.world->all_reduce(&hi, 1, comm::ElemType::I32,
                                   comm::ReduceOp::Max) == comm::Status::OK &&
           lo == hi;
  }
  ok = ranks.all(ok && same && rowMismatches == 0 && worst <= 1);
  if (ranks.local(0))
    std::printf("layer%s on %lld ranks, %lld tokens: %s (out the same on "
                "every rank: %s; down rows bit-equal to one rank's: %s; out "
                "within bound x %.3g of one rank's; one rank within %.2g%% of "
                "the reference, bound 1%%)\n",
                withShared ? " with the shared expert" : "", (long long)n,
                (long long)tokens, ok ? "ok" : "MISMATCH", same ? "yes" : "NO",
                rowMismatches ? "NO" : "yes", worst, one.worstRef * 100);
  return ok;
}

/// A negative expert id on rank 0: every rank's status is INVALID_PARAMS.
bool checkBadId(Ranks &ranks) {
  std::mt19937 rng(99);
  Batch w(8, rng);
  const int64_t n = ranks.count;
  std::vector<Rank> parts;
  std::vector<std::vector<int32_t>> ids(size_t(n), w.ids);
  ids[0][3] = -1;
  for (int64_t r = 0; r < n; ++r)
    parts.emplace_back(w.tokens, r, n);
  std::vector<int32_t> status(size_t(n), -1);
  ranks.run([&](int r) {
    status[size_t(r)] = parts[size_t(r)].call(layerOf(n, r), w, ids[size_t(r)]);
  });
  bool ok = true;
  for (int64_t r = 0; r < n; ++r)
    if (ranks.local(r))
      ok = ok && status[size_t(r)] == 3;
  ok = ranks.all(ok);
  if (ranks.local(0))
    std::printf("layer on %lld ranks, a negative expert id on rank 0: %s "
                "(INVALID_PARAMS on every rank)\n",
                (long long)n, ok ? "ok" : "MISMATCH");
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  return runOnRanks(argc, argv, {1, 2, 4}, [](Ranks &ranks) {
    if (ranks.count != 1 && ranks.count != 2 && ranks.count != 4) {
      if (ranks.local(0))
        std::printf("moe_ep has programs for 1, 2 and 4 ranks, not %lld\n",
                    (long long)ranks.count);
      return false;
    }
    bool ok = true;
    for (int64_t tokens : {1, 7, 24, 64})
      ok = checkBatch(ranks, tokens, unsigned(500 + tokens)) && ok;
    for (unsigned seed : {7u, 8u})
      ok = checkBatch(ranks, kSharedTokens, seed, /*withShared=*/true) && ok;
    return checkBadId(ranks) && ok;
  });
}
