// The attention block's inputs and its naive reference, shared by the
// self-checks of examples/ir/attention_block.mlir and of the decoder layer
// that runs the block first (examples/ir/decoder_layers.mlir): one reference of
// the block, written in double from docs/rationale/Operators.md (the
// formulas and tolerances are in attention_block.selfcheck.cpp's opening
// comment).
#ifndef WSP_EXAMPLES_ATTENTION_BLOCK_HPP
#define WSP_EXAMPLES_ATTENTION_BLOCK_HPP

#include "selfcheck.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace attention_block {

using namespace selfcheck;

constexpr int64_t kHidden = 256, kHeads = 6, kDim = 64, kQkv = kHeads * kDim;
constexpr int64_t kQHeads = 4, kAttn = kQHeads * kDim;
constexpr int64_t kBlock = 16, kTable = 1024, kPagesPerSeq = 24;

inline double bf(double v) { return toFloat(toStorage(float(v))); }

/// NeoX rotary tables: kTable positions x kDim, the angle of column i
/// repeating over the two halves.
inline void ropeTables(std::vector<bf16> &sin, std::vector<bf16> &cos) {
  for (int64_t p = 0; p < kTable; ++p)
    for (int64_t i = 0; i < kDim; ++i) {
      double theta = p * std::pow(10000.0, -2.0 * (i % (kDim / 2)) / kDim);
      cos.push_back(toStorage(float(std::cos(theta))));
      sin.push_back(toStorage(float(std::sin(theta))));
    }
}

struct Block {
  bool decode;
  std::vector<int32_t> lens, ids, past, accum;
  int64_t tokens = 0, slots = 0, pool = 0;
  std::vector<bf16> x, r, normW, sin, cos, kc, vc;
  std::vector<float> smooth, qkvScale, qkNormW, oSmooth, oScale;
  std::vector<int8_t> w, ow;
  std::vector<int32_t> table;

  Block(bool decode, std::vector<int32_t> lens_, std::vector<int32_t> ids_,
        std::vector<int32_t> past_, std::mt19937 &rng)
      : decode(decode), lens(std::move(lens_)), ids(std::move(ids_)),
        past(std::move(past_)) {
    for (size_t b = 0; b <= lens.size(); ++b)
      accum.push_back(b == 0 ? 0 : accum.back() + lens[b - 1]);
    tokens = accum.back();
    slots = int64_t(lens.size()) + 1;
    pool = slots * kPagesPerSeq;
    std::uniform_real_distribution<float> uni(-2.f, 2.f), pos01(0.5f, 1.5f),
        scale(0.002f, 0.01f), cached(-1.5f, 1.5f);
    std::uniform_int_distribution<int> i8(-127, 127);
    for (int64_t i = 0; i < tokens * kHidden; ++i) {
      x.push_back(toStorage(uni(rng)));
      r.push_back(toStorage(uni(rng)));
    }
    for (int64_t i = 0; i < kHidden; ++i) {
      normW.push_back(toStorage(pos01(rng)));
      smooth.push_back(pos01(rng));
      oSmooth.push_back(pos01(rng));
      oScale.push_back(scale(rng));
    }
    for (int64_t i = 0; i < kQkv * kHidden; ++i)
      w.push_back(int8_t(i8(rng)));
    for (int64_t i = 0; i < kHidden * kAttn; ++i)
      ow.push_back(int8_t(i8(rng)));
    for (int64_t i = 0; i < kQkv; ++i)
      qkvScale.push_back(scale(rng));
    for (int64_t i = 0; i < 5 * kDim; ++i)
      qkNormW.push_back(pos01(rng));
    ropeTables(sin, cos);
    // Every slot's row of the table: distinct pages of the pool, shuffled.
    for (int32_t i = 0; i < pool; ++i)
      table.push_back(i);
    std::shuffle(table.begin(), table.end(), rng);
    // The cache: the tokens before the step, the sentinel elsewhere.
    kc.assign(size_t(pool * kBlock * kDim), sentinel());
    vc = kc;
    for (size_t b = 0; b < lens.size(); ++b)
      for (int64_t p = 0; p < past[b]; ++p)
        for (int64_t c = 0; c < kDim; ++c) {
          kc[at(b, p, c)] = toStorage(cached(rng));
          vc[at(b, p, c)] = toStorage(cached(rng));
        }
  }

  /// Where position p of sequence b's column c lives in a cache.
  size_t at(size_t b, int64_t p, int64_t c) const {
    int64_t page = table[size_t(ids[b] * kPagesPerSeq + p / kBlock)];
    return size_t((page * kBlock + p % kBlock) * kDim + c);
  }

  /// The reference: the heads of every token after rope ([tokens, 6, 64]),
  /// the per-token scales, after_res, attention's output and the block's.
  void reference(std::vector<double> &heads, std::vector<double> &pts,
                 std::vector<bf16> &after, std::vector<double> &attn,
                 std::vector<double> &y) const {
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
        int64_t t = accum[b] + s, p = past[b] + s;
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
    // Attention: the cached positions, then the step's own keys and values.
    attn.assign(size_t(tokens * kAttn), 0.0);
    for (size_t b = 0; b < lens.size(); ++b) {
      auto kv = [&](int64_t p, int64_t head, int64_t c) {
        if (p < past[b])
          return double(toFloat((head == 4 ? kc : vc)[at(b, p, c)]));
        return heads[size_t((accum[b] + p - past[b]) * kQkv + head * kDim + c)];
      };
      for (int64_t s = 0; s < lens[b]; ++s) {
        int64_t t = accum[b] + s, seen = past[b] + s + 1;
        for (int64_t h = 0; h < kQHeads; ++h) {
          std::vector<double> wts(static_cast<size_t>(seen));
          double mx = -1e300, sum = 0;
          for (int64_t p = 0; p < seen; ++p) {
            double dot = 0;
            for (int64_t c = 0; c < kDim; ++c)
              dot += heads[size_t(t * kQkv + h * kDim + c)] * kv(p, 4, c);
            wts[size_t(p)] = dot / std::sqrt(double(kDim));
            mx = std::max(mx, wts[size_t(p)]);
          }
          for (double &e : wts) {
            e = std::exp(e - mx);
            sum += e;
          }
          for (int64_t c = 0; c < kDim; ++c) {
            double o = 0;
            for (int64_t p = 0; p < seen; ++p)
              o += wts[size_t(p)] * kv(p, 5, c);
            attn[size_t(t * kAttn + h * kDim + c)] = bf(o / sum);
          }
        }
      }
    }
    // Quantized output projection.
    y.assign(size_t(tokens * kHidden), 0.0);
    for (int64_t t = 0; t < tokens; ++t) {
      std::vector<double> a(kAttn);
      double amax = 0;
      for (int64_t k = 0; k < kAttn; ++k) {
        a[size_t(k)] = attn[size_t(t * kAttn + k)] * oSmooth[size_t(k)];
        amax = std::max(amax, std::fabs(a[size_t(k)]));
      }
      for (int64_t n = 0; n < kHidden; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < kAttn; ++k)
          acc += std::nearbyint(a[size_t(k)] * 127 / amax) *
                 ow[size_t(n * kAttn + k)];
        y[size_t(t * kHidden + n)] = bf(acc * amax / 127 * oScale[size_t(n)]);
      }
    }
  }
};


/// The block's outputs and workspaces.
struct Outputs {
  std::vector<bf16> after, qkv, attn, y;
  std::vector<int8_t> x8, attn8;
  std::vector<float> pts, attnScale;
  std::vector<int32_t> qkvWs = std::vector<int32_t>(24 * 128 * 128), oWs = qkvWs;
  std::vector<bf16> wsH = std::vector<bf16>(24 * 2 * 32 * 128);
  std::vector<float> wsF = std::vector<float>(24 * 3 * 32 * 128),
                     wsMl = std::vector<float>(24 * 2 * 32);
  explicit Outputs(int64_t tokens) {
    after.resize(size_t(tokens * kHidden));
    qkv.resize(size_t(tokens * kQkv));
    attn.assign(size_t(tokens * kAttn), sentinel());
    y.assign(size_t(tokens * kHidden), sentinel());
    x8.resize(size_t(tokens * kHidden));
    attn8.resize(size_t(tokens * kAttn));
    pts.resize(size_t(tokens));
    attnScale.resize(size_t(tokens));
  }
};

/// @decode_block's arguments: the block's buffers, with the requests'
/// positions and KV lengths (the cached counts) in `positions` and
/// `kv_lens`.
inline auto decodeArgs(Block &blk, Outputs &o, std::vector<int32_t> &positions,
                std::vector<int32_t> &kv_lens) {
  int64_t t = blk.tokens;
  return std::make_tuple(
      MemRef<bf16, 2>{blk.x.data(), {t, kHidden}},
      MemRef<bf16, 2>{blk.r.data(), {t, kHidden}}, vec(blk.normW),
      vec(blk.smooth), MemRef<int8_t, 2>{blk.w.data(), {kQkv, kHidden}},
      vec(blk.qkvScale), MemRef<float, 2>{blk.qkNormW.data(), {5, kDim}},
      MemRef<bf16, 2>{blk.sin.data(), {kTable, kDim}},
      MemRef<bf16, 2>{blk.cos.data(), {kTable, kDim}}, vec(positions),
      vec(blk.lens), vec(blk.accum),
      MemRef<int32_t, 2>{blk.table.data(), {blk.slots, kPagesPerSeq}},
      vec(blk.ids), vec(kv_lens),
      MemRef<bf16, 4>{blk.kc.data(), {blk.pool, 1, kBlock, kDim}},
      MemRef<bf16, 4>{blk.vc.data(), {blk.pool, 1, kBlock, kDim}},
      vec(blk.oSmooth), MemRef<int8_t, 2>{blk.ow.data(), {kHidden, kAttn}},
      vec(blk.oScale), MemRef<int8_t, 2>{o.x8.data(), {t, kHidden}}, vec(o.pts),
      MemRef<bf16, 2>{o.after.data(), {t, kHidden}},
      MemRef<bf16, 2>{o.qkv.data(), {t, kQkv}},
      MemRef<bf16, 4>{o.attn.data(), {t, 1, kQHeads, kDim}},
      MemRef<int8_t, 2>{o.attn8.data(), {t, kAttn}}, vec(o.attnScale),
      MemRef<bf16, 2>{o.y.data(), {t, kHidden}},
      MemRef<int32_t, 3>{o.qkvWs.data(), {24, 128, 128}},
      MemRef<bf16, 4>{o.wsH.data(), {24, 2, 32, 128}},
      MemRef<float, 4>{o.wsF.data(), {24, 3, 32, 128}},
      MemRef<float, 3>{o.wsMl.data(), {24, 2, 32}},
      MemRef<int32_t, 3>{o.oWs.data(), {24, 128, 128}});
}

} // namespace attention_block

#endif // WSP_EXAMPLES_ATTENTION_BLOCK_HPP
