// The self-check of examples/ir/qkv_block.mlir (run by `wspc --run` and
// the lit tests): the attention block up to attention, on a ragged packed
// batch, against a naive reference of the whole chain written here in
// double from the rules of docs/rationale/Operators.md (each op's
// reference as in its own self-check), fed only the block's inputs:
//   s = x + residual, after_res = bf16(s), a = after_res / rms(s) * w * smooth,
//   x8 = rint(a * 127 / max|a|), per_token_scale = max|a| / 127,
//   qkv = bf16(x8 W^T * per_token_scale * qkv_scale),
//   heads 0..4 of qkv: bf16(h / rms(h) * qk_norm_weight[h]),
//   heads 0..4 rotated (NeoX, position_ids[b] + s), bf16,
//   heads 4 and 5 of each token to its cache page and row.
// Tolerances: after_res is exact. The rest goes through int8 quantization
// (an int8 value at a rounding boundary may come out one off in the
// kernel, which moves a projection output by at most 1/127 of one of its
// 256 terms) and three bf16 roundings after the projection (2^-9 relative
// each); every cached head row is within 2% of the row's largest
// reference value, and so are the quantization scales of the tokens. Then
// INVALID_PARAMS: a page id outside the pool makes the last op return 3
// with the caches untouched (the ops before it ran: its status is the
// function's).
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kHidden = 256, kHeads = 6, kDim = 64, kQkv = kHeads * kDim;
constexpr int64_t kBlock = 16, kTable = 1024, kPool = 16, kPagesPerSeq = 8;

double bf(double v) { return toFloat(toStorage(float(v))); }

struct Block {
  std::vector<int32_t> lens = {3, 1, 9}, pos = {17, 0, 300}, ids = {1, 0, 2},
                       past = {17, 0, 30};
  int64_t tokens = 13;
  std::vector<bf16> x, r, normW, sin, cos;
  std::vector<float> smooth, qkvScale, qkNormW;
  std::vector<int8_t> w;
  std::vector<int32_t> table;

  explicit Block(std::mt19937 &rng) {
    std::uniform_real_distribution<float> uni(-2.f, 2.f), pos01(0.5f, 1.5f),
        scale(0.002f, 0.01f);
    std::uniform_int_distribution<int> i8(-127, 127);
    for (int64_t i = 0; i < tokens * kHidden; ++i) {
      x.push_back(toStorage(uni(rng)));
      r.push_back(toStorage(uni(rng)));
    }
    for (int64_t i = 0; i < kHidden; ++i) {
      normW.push_back(toStorage(pos01(rng)));
      smooth.push_back(pos01(rng));
    }
    for (int64_t i = 0; i < kQkv * kHidden; ++i)
      w.push_back(int8_t(i8(rng)));
    for (int64_t i = 0; i < kQkv; ++i)
      qkvScale.push_back(scale(rng));
    for (int64_t i = 0; i < 5 * kDim; ++i)
      qkNormW.push_back(pos01(rng));
    for (int64_t p = 0; p < kTable; ++p)
      for (int64_t i = 0; i < kDim; ++i) {
        double theta = p * std::pow(10000.0, -2.0 * (i % (kDim / 2)) / kDim);
        cos.push_back(toStorage(float(std::cos(theta))));
        sin.push_back(toStorage(float(std::sin(theta))));
      }
    for (int64_t i = 0; i < 3 * kPagesPerSeq; ++i)
      table.push_back(int32_t((i * 5) % kPool));
  }

  int64_t startOf(size_t b) const {
    int64_t s = 0;
    for (size_t j = 0; j < b; ++j)
      s += lens[j];
    return s;
  }

  /// The reference: heads of every token after rope ([tokens, 6, 64]), the
  /// per-token scales and after_res.
  void reference(std::vector<double> &heads, std::vector<double> &pts,
                 std::vector<bf16> &after) const {
    heads.assign(size_t(tokens * kQkv), 0.0);
    pts.assign(size_t(tokens), 0.0);
    after.resize(size_t(tokens * kHidden));
    for (int64_t t = 0; t < tokens; ++t) {
      std::vector<double> a(kHidden);
      double squares = 0, amax = 0;
      for (int64_t c = 0; c < kHidden; ++c) {
        size_t i = size_t(t * kHidden + c);
        float s = toFloat(x[i]) + toFloat(r[i]);
        squares += double(s) * s;
        after[i] = toStorage(s);
      }
      double rstd = 1.0 / std::sqrt(squares / kHidden + 1e-6);
      for (int64_t c = 0; c < kHidden; ++c) {
        a[size_t(c)] = toFloat(after[size_t(t * kHidden + c)]) * rstd *
                       toFloat(normW[size_t(c)]) * smooth[size_t(c)];
        amax = std::max(amax, std::fabs(a[size_t(c)]));
      }
      pts[size_t(t)] = amax / 127;
      std::vector<double> row(kQkv);
      for (int64_t n = 0; n < kQkv; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < kHidden; ++k)
          acc += std::nearbyint(a[size_t(k)] * 127 / amax) *
                 w[size_t(n * kHidden + k)];
        row[size_t(n)] = bf(acc * pts[size_t(t)] * qkvScale[size_t(n)]);
      }
      for (int64_t h = 0; h < 5; ++h) {
        double sq = 0;
        for (int64_t c = 0; c < kDim; ++c)
          sq += row[size_t(h * kDim + c)] * row[size_t(h * kDim + c)];
        double hr = 1.0 / std::sqrt(sq / kDim + 1e-6);
        for (int64_t c = 0; c < kDim; ++c)
          row[size_t(h * kDim + c)] =
              bf(row[size_t(h * kDim + c)] * hr * qkNormW[size_t(h * kDim + c)]);
      }
      std::copy(row.begin(), row.end(), heads.begin() + t * kQkv);
    }
    for (size_t b = 0; b < lens.size(); ++b)
      for (int64_t s = 0; s < lens[b]; ++s) {
        int64_t t = startOf(b) + s, p = pos[b] + s;
        for (int64_t h = 0; h < 5; ++h) {
          double *hv = &heads[size_t(t * kQkv + h * kDim)];
          std::vector<double> out(kDim);
          for (int64_t i = 0; i < kDim / 2; ++i) {
            double x1 = hv[i], x2 = hv[i + kDim / 2];
            out[size_t(i)] = x1 * toFloat(cos[size_t(p * kDim + i)]) -
                             x2 * toFloat(sin[size_t(p * kDim + i)]);
            out[size_t(i + kDim / 2)] =
                x2 * toFloat(cos[size_t(p * kDim + kDim / 2 + i)]) +
                x1 * toFloat(sin[size_t(p * kDim + kDim / 2 + i)]);
          }
          for (int64_t c = 0; c < kDim; ++c)
            hv[c] = bf(out[size_t(c)]);
        }
      }
  }
};

struct Outputs {
  std::vector<bf16> kc, vc, after, qkv;
  std::vector<int8_t> x8;
  std::vector<float> pts;
  std::vector<int32_t> workspace = std::vector<int32_t>(24 * 32 * 128);
  explicit Outputs(int64_t tokens) {
    kc.assign(size_t(kPool * kBlock * kDim), sentinel());
    vc = kc;
    after.resize(size_t(tokens * kHidden));
    qkv.resize(size_t(tokens * kQkv));
    x8.resize(size_t(tokens * kHidden));
    pts.resize(size_t(tokens));
  }
};

int32_t run(Block &blk, Outputs &o) {
  int64_t t = blk.tokens;
  return wsp_gen::qkv_block(
      MemRef<bf16, 2>{blk.x.data(), {t, kHidden}},
      MemRef<bf16, 2>{blk.r.data(), {t, kHidden}}, vec(blk.normW),
      vec(blk.smooth), MemRef<int8_t, 2>{blk.w.data(), {kQkv, kHidden}},
      vec(blk.qkvScale), MemRef<float, 2>{blk.qkNormW.data(), {5, kDim}},
      MemRef<bf16, 2>{blk.sin.data(), {kTable, kDim}},
      MemRef<bf16, 2>{blk.cos.data(), {kTable, kDim}}, vec(blk.pos),
      vec(blk.lens), MemRef<int32_t, 2>{blk.table.data(), {3, kPagesPerSeq}},
      vec(blk.ids), vec(blk.past),
      MemRef<bf16, 4>{o.kc.data(), {kPool, 1, kBlock, kDim}},
      MemRef<bf16, 4>{o.vc.data(), {kPool, 1, kBlock, kDim}},
      MemRef<int8_t, 2>{o.x8.data(), {t, kHidden}}, vec(o.pts),
      MemRef<bf16, 2>{o.after.data(), {t, kHidden}},
      MemRef<bf16, 2>{o.qkv.data(), {t, kQkv}},
      MemRef<int32_t, 3>{o.workspace.data(), {24, 32, 128}});
}

bool check(std::mt19937 &rng) {
  Block blk(rng);
  Outputs o(blk.tokens);
  int32_t status = run(blk, o);
  std::vector<double> heads, pts;
  std::vector<bf16> after;
  blk.reference(heads, pts, after);
  int64_t afterWrong = 0;
  for (size_t i = 0; i < after.size(); ++i)
    afterWrong += after[i].bits != o.after[i].bits;
  double worst = 0;
  int64_t compared = 0, exact = 0;
  for (int64_t t = 0; t < blk.tokens; ++t)
    worst = std::max(worst, std::fabs(o.pts[size_t(t)] - pts[size_t(t)]) /
                                (0.02 * pts[size_t(t)]));
  for (size_t b = 0; b < blk.lens.size(); ++b)
    for (int64_t s = 0; s < blk.lens[b]; ++s) {
      int64_t t = blk.startOf(b) + s, p = blk.past[b] + s;
      int64_t page = blk.table[size_t(blk.ids[b] * kPagesPerSeq + p / kBlock)];
      for (auto [cache, head] : {std::pair{&o.kc, 4}, std::pair{&o.vc, 5}}) {
        const double *ref = &heads[size_t(t * kQkv + head * kDim)];
        double rowMax = 0;
        for (int64_t c = 0; c < kDim; ++c)
          rowMax = std::max(rowMax, std::fabs(ref[c]));
        for (int64_t c = 0; c < kDim; ++c) {
          double got = toFloat((*cache)[size_t(((page * 1) * kBlock + p % kBlock) * kDim + c)]);
          worst = std::max(worst, std::fabs(got - ref[c]) / (0.02 * rowMax));
          ++compared;
          exact += got == ref[c];
        }
      }
    }
  bool ok = status == 0 && afterWrong == 0 && worst <= 1;
  std::printf("qkv block, %lld tokens in 3 sequences: %s (status %d, max err "
              "/ bound %.3f, %lld after_res values differ; %lld cached values "
              "compared, %lld equal to the reference)\n",
              (long long)blk.tokens, ok ? "ok" : "MISMATCH", status, worst,
              (long long)afterWrong, (long long)compared, (long long)exact);
  return ok;
}

bool checkInvalid(std::mt19937 &rng) {
  Block blk(rng);
  blk.table[size_t(2 * kPagesPerSeq + 2)] = int32_t(kPool); // sequence 2's third page
  Outputs o(blk.tokens);
  int32_t status = run(blk, o);
  return reportInvalid("page id outside the pool", status,
                       allSentinel(o.kc) && allSentinel(o.vc), "caches");
}

} // namespace

int main() {
  std::mt19937 rng(2032);
  bool ok = check(rng);
  ok = checkInvalid(rng) && ok;
  return ok ? 0 : 1;
}
