// The self-check of examples/ir/rope.mlir (run by `wspc --run` and the lit
// tests): rotary_embedding on ragged batches against a reference written
// here in double from the rule docs/rationale/Operators.md fixes: token s
// of sequence b is at position position_ids[b] + s; for the first
// q_head_num + kv_head_num heads and i < rope_dim / 2, with x1 = x[o + i],
// x2 = x[o + rope_dim/2 + i] (o = rope_offset, NeoX pairs),
//   out1 = x1 cos[p, i] - x2 sin[p, i],
//   out2 = x2 cos[p, rope_dim/2 + i] + x1 sin[p, rope_dim/2 + i];
// every other value of a sequence's rows is x itself (bit for bit), and
// rows of no sequence (padding) are not written.
// Tolerance: the products of two bf16 values are exact in float, their
// difference is rounded once to float (2^-24 relative) and then to bf16,
// so |out - ref| <= 2^-8 |ref| (1 + 1e-4) (half a bf16 ulp) plus half the
// storage's subnormal spacing (examples/ir/selfcheck.hpp).
// Besides the fixed batches, four random ones each packed and with
// accum_q_len (checkRandom).
// Then INVALID_PARAMS, nothing written: a position beyond the tables, and
// more tokens than the buffer holds.
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kHeads = 12, kRopeHeads = 10, kDim = 128, kTable = 4096;

/// cos and sin tables [kTable, ropeDim], HF layout (halves repeated).
struct Tables {
  int64_t ropeDim;
  std::vector<bf16> cos, sin;
  explicit Tables(int64_t ropeDim) : ropeDim(ropeDim) {
    cos.resize(kTable * ropeDim);
    sin.resize(kTable * ropeDim);
    for (int64_t p = 0; p < kTable; ++p)
      for (int64_t i = 0; i < ropeDim; ++i) {
        int64_t k = i % (ropeDim / 2);
        double theta = p * std::pow(10000.0, -2.0 * k / ropeDim);
        cos[p * ropeDim + i] = toStorage(float(std::cos(theta)));
        sin[p * ropeDim + i] = toStorage(float(std::sin(theta)));
      }
  }
  MemRef<bf16, 2> cosView() { return {cos.data(), {kTable, ropeDim}}; }
  MemRef<bf16, 2> sinView() { return {sin.data(), {kTable, ropeDim}}; }
};

std::vector<bf16> randomRows(int64_t rows, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uni(-2.f, 2.f);
  std::vector<bf16> v(size_t(rows * kHeads * kDim));
  for (bf16 &x : v)
    x = toStorage(uni(rng));
  return v;
}

/// Compares `out` with the reference for rows `rowOf(b, s)`; rows of no
/// sequence must equal `untouched`.
template <typename RowOf>
bool compare(const char *what, const std::vector<bf16> &x,
             const std::vector<bf16> &out, const std::vector<bf16> &untouched,
             int64_t rows, const std::vector<int32_t> &pos,
             const std::vector<int32_t> &lens, Tables &t, int64_t offset,
             RowOf rowOf, int32_t status) {
  std::vector<bool> owned(size_t(rows), false);
  double worst = 0;
  int64_t wrongCopies = 0;
  const int64_t half = t.ropeDim / 2;
  for (size_t b = 0; b < lens.size(); ++b)
    for (int64_t s = 0; s < lens[b]; ++s) {
      int64_t row = rowOf(int64_t(b), s), p = pos[b] + s;
      owned[size_t(row)] = true;
      for (int64_t h = 0; h < kHeads; ++h) {
        const size_t base = size_t((row * kHeads + h) * kDim);
        for (int64_t c = 0; c < kDim; ++c) {
          bool rotated = h < kRopeHeads && c >= offset && c < offset + t.ropeDim;
          if (!rotated) {
            wrongCopies += out[base + c].bits != x[base + c].bits;
            continue;
          }
          int64_t i = (c - offset) % half;
          bool first = c - offset < half;
          double x1 = toFloat(x[base + offset + i]);
          double x2 = toFloat(x[base + offset + half + i]);
          int64_t col = first ? i : half + i;
          double cs = toFloat(t.cos[p * t.ropeDim + col]);
          double sn = toFloat(t.sin[p * t.ropeDim + col]);
          double ref = first ? x1 * cs - x2 * sn : x2 * cs + x1 * sn;
          double bound = std::ldexp(std::fabs(ref), -8) * (1 + 1e-4) +
                     selfcheck::kSubnormalRounding;
          worst = std::fmax(worst,
                            std::fabs(toFloat(out[base + c]) - ref) / bound);
        }
      }
    }
  int64_t padding = 0;
  for (int64_t row = 0; row < rows; ++row)
    if (!owned[size_t(row)])
      for (int64_t k = 0; k < kHeads * kDim; ++k) {
        size_t i = size_t(row * kHeads * kDim + k);
        padding += out[i].bits != untouched[i].bits;
      }
  bool ok = status == 0 && worst <= 1 && wrongCopies == 0 && padding == 0;
  std::printf("%s: %s (status %d, max err / bound %.3f, %lld copied and "
              "%lld padding values differ)\n",
              what, ok ? "ok" : "MISMATCH", status, worst,
              (long long)wrongCopies, (long long)padding);
  return ok;
}

MemRef<bf16, 3> packed(std::vector<bf16> &v, int64_t rows) {
  return {v.data(), {rows, kHeads, kDim}};
}

bool checkPacked(std::mt19937 &rng) {
  std::vector<int32_t> lens = {5, 0, 17, 1, 40}, pos = {0, 9, 100, 4000, 2047};
  const int64_t rows = 63 + 3; // 3 rows of padding at the end
  Tables t(128);
  std::vector<bf16> x = randomRows(rows, rng), y = x;
  int32_t status = wsp_gen::rope_packed(packed(y, rows), t.sinView(),
                                        t.cosView(), vec(pos), vec(lens));
  std::vector<int64_t> starts = {0, 5, 5, 22, 23};
  return compare("packed, prefix sums, in place", x, y, x, rows, pos, lens, t,
                 0, [&](int64_t b, int64_t s) { return starts[b] + s; },
                 status);
}

bool checkAccum(std::mt19937 &rng) {
  std::vector<int32_t> lens = {5, 0, 17, 1, 40}, pos = {3, 9, 100, 4094, 0};
  std::vector<int32_t> accum = {0, 6, 6, 25, 27, 69};
  const int64_t rows = 69;
  Tables t(64);
  std::vector<bf16> x = randomRows(rows, rng), y(x.size(), sentinel());
  const std::vector<bf16> marked = y;
  int32_t status = wsp_gen::rope_accum(packed(x, rows), t.sinView(), t.cosView(),
                                       vec(pos), vec(lens), vec(accum),
                                       packed(y, rows));
  return compare("packed, accum_q_len with gaps, rope_offset 64, copy", x, y,
                 marked, rows, pos, lens, t, 64,
                 [&](int64_t b, int64_t s) { return accum[b] + s; }, status);
}

bool checkUnpacked(std::mt19937 &rng) {
  std::vector<int32_t> lens = {1, 3, 2, 0, 3, 1}, pos = {0, 17, 511, 3, 4093, 64};
  const int64_t batch = 6, slots = 3;
  Tables t(128);
  std::vector<bf16> x = randomRows(batch * slots, rng), y = x;
  int32_t status = wsp_gen::rope_unpacked(
      MemRef<bf16, 4>{y.data(), {batch, slots, kHeads, kDim}}, t.sinView(),
      t.cosView(), vec(pos), vec(lens));
  return compare("unpacked, 3 slots, in place", x, y, x, batch * slots, pos,
                 lens, t, 0, [&](int64_t b, int64_t s) { return b * slots + s; },
                 status);
}

/// Random ragged batches: 1 to 6 sequences of 0 to 60 tokens at positions
/// drawn so that every token lies in the tables; packed by prefix sums
/// (rope_packed, in place) or at accum_q_len rows with gaps of 0 to 3 rows
/// (rope_accum, into another buffer), 0 to 3 rows of padding after.
bool checkRandom(std::mt19937 &rng, bool withAccum) {
  auto draw = [&](int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  };
  std::vector<int32_t> lens, pos, starts = {withAccum ? draw(0, 3) : 0};
  for (int32_t b = 0, n = draw(1, 6); b < n; ++b) {
    lens.push_back(draw(0, 60));
    pos.push_back(draw(0, int32_t(kTable) - lens.back()));
    starts.push_back(starts.back() + lens.back() +
                     (withAccum ? draw(0, 3) : 0));
  }
  const int64_t rows = starts.back() + draw(0, 3);
  std::vector<bf16> x = randomRows(rows, rng);
  auto rowOf = [&](int64_t b, int64_t s) { return starts[size_t(b)] + s; };
  if (!withAccum) {
    Tables t(128);
    std::vector<bf16> y = x;
    int32_t status = wsp_gen::rope_packed(packed(y, rows), t.sinView(),
                                          t.cosView(), vec(pos), vec(lens));
    return compare("random packed batch, in place", x, y, x, rows, pos, lens, t,
                   0, rowOf, status);
  }
  Tables t(64);
  std::vector<bf16> y(x.size(), sentinel());
  const std::vector<bf16> marked = y;
  int32_t status =
      wsp_gen::rope_accum(packed(x, rows), t.sinView(), t.cosView(), vec(pos),
                          vec(lens), vec(starts), packed(y, rows));
  return compare("random accum_q_len batch, rope_offset 64", x, y, marked, rows,
                 pos, lens, t, 64, rowOf, status);
}

bool checkInvalid(std::mt19937 &rng) {
  Tables t(128);
  bool ok = true;
  // A position past the table; then more tokens than rows.
  for (auto [lens, pos, what] :
       {std::tuple{std::vector<int32_t>{4, 4}, std::vector<int32_t>{0, 4093},
                   "position beyond the tables"},
        std::tuple{std::vector<int32_t>{4, 5}, std::vector<int32_t>{0, 0},
                   "more tokens than rows"}}) {
    std::vector<bf16> x = randomRows(8, rng), y = x;
    int32_t status = wsp_gen::rope_packed(packed(y, 8), t.sinView(),
                                          t.cosView(), vec(pos), vec(lens));
    bool untouched = std::memcmp(x.data(), y.data(), x.size() * 2) == 0;
    ok = reportInvalid(what, status, untouched, "output") && ok;
  }
  return ok;
}

} // namespace

int main() {
  std::mt19937 rng(2029);
  bool ok = checkPacked(rng);
  ok = checkAccum(rng) && ok;
  ok = checkUnpacked(rng) && ok;
  for (int trial = 0; trial < 4; ++trial) {
    ok = checkRandom(rng, false) && ok;
    ok = checkRandom(rng, true) && ok;
  }
  ok = checkInvalid(rng) && ok;
  return ok ? 0 : 1;
}
