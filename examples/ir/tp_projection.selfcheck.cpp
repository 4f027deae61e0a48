// The self-check of examples/ir/tp_projection.mlir: a row-parallel output
// projection on R ranks. The full problem is y = dequant(a . w^T) with a
// [T x 128R] int8, w [256 x 128R] int8 (stored [N, K]), per-token and
// per-channel f32 scales; rank r holds columns [128r, 128r + 128) of a and
// w and runs the program on them: its quant_matmul gives the partial
// y_r, its all_reduce the sum.
//
// In one process (pto::runtime::comm::ThreadGroup, one thread per rank) on
// 1, 2 and 4 ranks, and, when started by `mpirun -np N` (and built with
// MPI: WSP_WITH_MPI), on N processes. Checks:
// - every rank ends with the same bits;
// - those bits are the rank-order sum of the partials: each rank's slice
//   run alone (no group: the all_reduce leaves it), then summed here in
//   float in rank order 0, 1, ... and rounded to bf16 once;
// - against a naive reference of the whole product (exact int64 sums,
//   scales in double): each partial was rounded to bf16 (half an ulp,
//   2^-8 |y_r| at most, and the float products before it 2^-22), the float
//   sum of R partials adds R 2^-24 of their magnitudes, the last rounding
//   2^-8 |y|, so |y - ref| <= 2^-8 (|ref| + sum_r |ref_r|) (1 + 1e-4) +
//   2^-21 sum_r |ref_r| plus half the storage's subnormal spacing (a
//   partial can cancel, so the bound is on the partials' magnitudes, not
//   the sum's);
// - @extremes: every rank ends with the element-wise max (and min) of
//   every rank's values, bit for bit;
// - errors end the call on every rank, never in a hang: @row_parallel_tp2
//   (a grid of 2) on 4 ranks, ranks that disagree on the token count, and
//   a rank whose quant_matmul failed (too few per-token scales): every
//   rank returns an error and the collective writes nothing.
#include "ranks.hpp"

#include <cstdlib>

using namespace selfcheck;

namespace {

constexpr int64_t kKr = 128, kN = 256, kBlocks = 24, kMTile = 128,
                  kNTile = 128;

/// The whole projection for `ranks` ranks, drawn from `seed` (every process
/// of an MPI run draws the same one).
struct Problem {
  int64_t tokens, ranks, k;
  std::vector<int8_t> a, w; // [tokens x k], [kN x k]
  std::vector<float> pts, ws;

  Problem(int64_t tokens, int64_t ranks, unsigned seed)
      : tokens(tokens), ranks(ranks), k(kKr * ranks) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> i8(-127, 127);
    std::uniform_real_distribution<float> scale(1e-4f, 2e-2f);
    a.resize(size_t(tokens * k));
    w.resize(size_t(kN * k));
    for (int8_t &v : a)
      v = int8_t(i8(rng));
    for (int8_t &v : w)
      v = int8_t(i8(rng));
    pts.resize(size_t(tokens));
    ws.resize(size_t(kN));
    for (float &v : pts)
      v = scale(rng);
    for (float &v : ws)
      v = scale(rng);
  }

  /// The exact product of rows t and column n over features [k0, k1),
  /// dequantized in double.
  double product(int64_t t, int64_t n, int64_t k0, int64_t k1) const {
    int64_t acc = 0;
    for (int64_t kk = k0; kk < k1; ++kk)
      acc += int64_t(a[size_t(t * k + kk)]) * w[size_t(n * k + kk)];
    return double(acc) * pts[size_t(t)] * ws[size_t(n)];
  }
};

/// Rank r's arguments: its columns of a and w, the scales, its y.
struct Slice {
  std::vector<int8_t> a, w;
  std::vector<float> pts, ws;
  std::vector<bf16> y;
  std::vector<int32_t> workspace =
      std::vector<int32_t>(kBlocks * kMTile * kNTile);

  Slice(const Problem &p, int64_t r) : pts(p.pts), ws(p.ws) {
    a.resize(size_t(p.tokens * kKr));
    w.resize(size_t(kN * kKr));
    for (int64_t t = 0; t < p.tokens; ++t)
      for (int64_t kk = 0; kk < kKr; ++kk)
        a[size_t(t * kKr + kk)] = p.a[size_t(t * p.k + r * kKr + kk)];
    for (int64_t n = 0; n < kN; ++n)
      for (int64_t kk = 0; kk < kKr; ++kk)
        w[size_t(n * kKr + kk)] = p.w[size_t(n * p.k + r * kKr + kk)];
    y.assign(size_t(p.tokens * kN), sentinel());
  }

  int32_t run(bool tp2 = false, int64_t scales = -1) {
    const int64_t tokens = int64_t(y.size()) / kN;
    auto f = tp2 ? wsp_gen::row_parallel_tp2 : wsp_gen::row_parallel;
    return f(MemRef<int8_t, 2>{a.data(), {tokens, kKr}},
             MemRef<float, 1>{pts.data(), {scales < 0 ? tokens : scales}},
             MemRef<int8_t, 2>{w.data(), {kN, kKr}}, vec(ws),
             MemRef<bf16, 2>{y.data(), {tokens, kN}},
             MemRef<int32_t, 3>{workspace.data(), {kBlocks, kMTile, kNTile}});
  }
};

/// Each slice's y run alone, outside any group (the all_reduce leaves it:
/// the partial); `ok` false if a run failed.
std::vector<std::vector<bf16>> partialsAlone(const std::vector<Slice> &slices,
                                            bool &ok) {
  std::vector<std::vector<bf16>> partial;
  comm::SoloCommunicator solo;
  comm::CurrentCommunicator scope(solo);
  for (const Slice &slice : slices) {
    Slice alone = slice;
    ok = alone.run() == 0 && ok;
    partial.push_back(alone.y);
  }
  return partial;
}

bool checkSum(Ranks &ranks, int64_t tokens, unsigned seed) {
  const Problem p(tokens, ranks.count, seed);
  std::vector<Slice> slices;
  for (int64_t r = 0; r < ranks.count; ++r)
    slices.emplace_back(p, r);
  bool ok = true;
  const std::vector<std::vector<bf16>> partial = partialsAlone(slices, ok);
  std::vector<int32_t> status(size_t(ranks.count), -1);
  ranks.run([&](int r) { status[size_t(r)] = slices[size_t(r)].run(); });
  double worst = 0;
  bool same = true, rankOrder = true;
  for (int64_t r = 0; r < ranks.count; ++r) {
    if (!ranks.local(r))
      continue;
    ok = status[size_t(r)] == 0 && ok;
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t n = 0; n < kN; ++n) {
        const size_t at = size_t(t * kN + n);
        const bf16 got = slices[size_t(r)].y[at];
        float sum = 0;
        double ref = 0, magnitude = 0;
        for (int64_t q = 0; q < ranks.count; ++q) {
          const float v = toFloat(partial[size_t(q)][at]);
          sum = q == 0 ? v : sum + v;
          const double part = p.product(t, n, q * kKr, (q + 1) * kKr);
          ref += part;
          magnitude += std::fabs(part);
        }
        rankOrder = rankOrder && got.bits == toStorage(sum).bits;
        if (!ranks.world)
          same = same && got.bits == slices[0].y[at].bits;
        const double bound =
            std::ldexp(std::fabs(ref) + magnitude, -8) * (1 + 1e-4) +
            std::ldexp(magnitude, -21) + kSubnormalRounding;
        worst = std::fmax(worst, std::fabs(toFloat(got) - ref) / bound);
      }
  }
  ok = ranks.all(ok && same && rankOrder && worst <= 1);
  if (ranks.local(0))
    std::printf("row_parallel T=%lld on %lld ranks (K %lld, N %lld): %s "
                "(same bits on every rank: %s, the rank-order sum of the "
                "partials: %s, max err / bound %.3f)\n",
                (long long)tokens, (long long)ranks.count,
                (long long)p.k, (long long)kN, ok ? "ok" : "MISMATCH",
                same ? "yes" : "NO", rankOrder ? "yes" : "NO", worst);
  return ok;
}

/// Every rank returns an error; the collective wrote nothing (y still holds
/// the rank's own partial, or the sentinel where quant_matmul failed).
bool checkError(Ranks &ranks, const char *what, int64_t badRank,
                bool tp2, bool badTokens, bool badScales, int32_t want,
                int32_t wantBad) {
  // The rank that disagrees holds a consistent problem of 4 tokens: its
  // own quant_matmul succeeds, the collective's sizes differ.
  const Problem p(8, ranks.count, 99), fewer(4, ranks.count, 99);
  std::vector<Slice> slices;
  for (int64_t r = 0; r < ranks.count; ++r)
    slices.emplace_back(r == badRank && badTokens ? fewer : p, r);
  // The bad rank's own run may fail: what it leaves is still its partial.
  bool allRan = true;
  const std::vector<std::vector<bf16>> partial = partialsAlone(slices, allRan);
  std::vector<int32_t> status(size_t(ranks.count), -1);
  ranks.run([&](int r) {
    status[size_t(r)] = slices[size_t(r)].run(
        tp2, r == badRank && badScales ? 4 : -1);
  });
  bool ok = true, untouched = true;
  for (int64_t r = 0; r < ranks.count; ++r) {
    if (!ranks.local(r))
      continue;
    const bool bad = r == badRank && (badTokens || badScales);
    ok = status[size_t(r)] == (bad ? wantBad : want) && ok;
    if (r == badRank && badScales)
      untouched = untouched && allSentinel(slices[size_t(r)].y);
    else
      for (size_t i = 0; i < slices[size_t(r)].y.size(); ++i)
        untouched = untouched &&
                    slices[size_t(r)].y[i].bits == partial[size_t(r)][i].bits;
  }
  ok = ranks.all(ok && untouched);
  if (ranks.local(0))
    std::printf("%s on %lld ranks: %s (every rank's status as expected, "
                "the collective wrote %s)\n",
                what, (long long)ranks.count, ok ? "ok" : "MISMATCH",
                untouched ? "nothing" : "SOMETHING");
  return ok;
}

/// all_reduce kind max and kind min: rank r's values are drawn from seed
/// 500 + r (every process draws every rank's), the result must be their
/// element-wise extreme on every rank.
bool checkExtremes(Ranks &ranks, int64_t tokens) {
  constexpr int64_t kCols = 64;
  const size_t n = size_t(tokens * kCols);
  std::vector<std::vector<float>> high, low;
  for (int64_t r = 0; r < ranks.count; ++r) {
    std::mt19937 rng(unsigned(500 + r));
    std::uniform_real_distribution<float> uni(-100.f, 100.f);
    high.emplace_back(n);
    low.emplace_back(n);
    for (size_t i = 0; i < n; ++i) {
      high.back()[i] = uni(rng);
      low.back()[i] = uni(rng);
    }
  }
  std::vector<float> wantHigh = high[0], wantLow = low[0];
  for (int64_t r = 1; r < ranks.count; ++r)
    for (size_t i = 0; i < n; ++i) {
      wantHigh[i] = std::max(wantHigh[i], high[size_t(r)][i]);
      wantLow[i] = std::min(wantLow[i], low[size_t(r)][i]);
    }
  std::vector<int32_t> status(size_t(ranks.count), -1);
  ranks.run([&](int r) {
    status[size_t(r)] = wsp_gen::extremes(
        MemRef<float, 2>{high[size_t(r)].data(), {tokens, kCols}},
        MemRef<float, 2>{low[size_t(r)].data(), {tokens, kCols}});
  });
  bool ok = true;
  for (int64_t r = 0; r < ranks.count; ++r)
    if (ranks.local(r))
      ok = ok && status[size_t(r)] == 0 && high[size_t(r)] == wantHigh &&
           low[size_t(r)] == wantLow;
  ok = ranks.all(ok);
  if (ranks.local(0))
    std::printf("extremes T=%lld on %lld ranks: %s (kind max and kind min "
                "equal the element-wise extremes on every rank)\n",
                (long long)tokens, (long long)ranks.count,
                ok ? "ok" : "MISMATCH");
  return ok;
}

bool checkAll(Ranks &ranks) {
  bool ok = true;
  for (int64_t tokens : {1, 9})
    ok = checkExtremes(ranks, tokens) && ok;
  for (int64_t tokens : {1, 7, 33})
    ok = checkSum(ranks, tokens, unsigned(100 + tokens)) && ok;
  if (ranks.count > 1) {
    ok = checkError(ranks, "ranks that disagree on the token count", 1,
                    false, true, false, 3, 3) &&
         ok;
    ok = checkError(ranks, "a rank whose quant_matmul failed", 0, false,
                    false, true, 3, 3) &&
         ok;
  }
  if (ranks.count != 2)
    ok = checkError(ranks, "row_parallel_tp2 (a grid of 2)", -1, true, false,
                    false, 3, 3) &&
         ok;
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  return runOnRanks(argc, argv, {1, 2, 4}, checkAll);
}
