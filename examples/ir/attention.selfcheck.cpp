// The self-check of examples/ir/attention.mlir (run by `wspc --run` and the
// lit tests): decode and chunked-prefill attention over a paged bf16 cache
// against a naive reference written here. Query token s of sequence b sees
// the cache positions p <= kv_lens[b] + s of slot kv_ids[b] (page
// block_table[slot, p / 16], row p % 16); its output for query head h is
// sum_p softmax_p(q . k_p / sqrt(head_dim)) v_p over KV head h / group,
// computed here in double from the same bf16 inputs.
//
// int8 caches hold k8 and v8 with per-(KV head, channel) scales: the
// reference dequantizes k = k8 k_scale[h, c] in double.
//
// A sliding window of W (@decode_window, @decode_window_int8,
// @prefill_window, @prefill_window_int8): the token sees only
// p > kv_lens[b] + s - W, new tokens included, and n counts those
// positions.
//
// Tolerance, per output element: the kernel rounds the probabilities to
// bf16 before P V (half an ulp, a relative error <= 2^-8 each, so <= 2^-8
// max|v| on the weighted mean) and rounds the output to bf16 (<= 2^-8 |o|
// <= 2^-8 max|v|); its f32 sums over n positions add at most n 2^-24
// relative per sum (scores, row sums, P V). So |out - ref| <= max_p |v_p|
// (2^-7 + n 2^-22), max over the positions the token sees.
//
// More query rows per KV head than a tile's 32 (@decode_g16_q4,
// @decode_g32_q8, @decode_g16_q4_window_int8) run in row tiles; the
// reference is the same per (token, head).
//
// Ring caches (@decode_ring, @prefill_ring_int8): each block-table row is
// a ring, position p at slot p mod (row pages x 16); the reference reads
// each position it sees at its slot. start_pos (@decode_start_pos_ring):
// the token sees p >= start_pos[b, s] instead.
//
// Besides the fixed batches, three random ones per function (randomBatch:
// batch size, slots, cached lengths, prefill lengths and row gaps drawn).
//
// Then INVALID_PARAMS with nothing written: a page id outside the pool, a
// sequence past its block-table row, a slot outside the table, a negative
// kv_len, decode's q_lens other than q_seq_len, prefill's q_lens beyond the
// packed tokens, a prefill sequence longer than max_q_len.
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kBlock = 16, kBlocks = 24, kRows = 32, kKvTile = 128;
/// The workspaces' rows: the wider of a KV tile and a head (head_dim 256
/// at most).
constexpr int64_t kMaxWsCols = 256;

/// A batch over a paged cache, the heads of one example function.
struct Batch {
  int64_t heads, kvHeads, dim, qSeqLen; // qSeqLen 0: packed prefill rows
  int64_t window = 0;                   // a sliding window's W (0: none)
  bool ring = false;                    // block-table rows are rings
  std::vector<int32_t> starts;          // start_pos [batch, q_seq_len]
  std::vector<int32_t> ids, past, qLens, accum;
  int64_t slots = 0, perSeq = 0, pool = 0, tokens = 0;
  std::vector<int32_t> table;
  std::vector<bf16> q, k, v, out;
  // int8 caches: k8 * k_scale[h, c], v8 * v_scale[h, c].
  bool int8 = false;
  std::vector<int8_t> k8, v8;
  std::vector<float> kScale, vScale;
  // Workspaces.
  std::vector<bf16> wsH = std::vector<bf16>(size_t(kBlocks * 2 * kRows * kMaxWsCols));
  std::vector<float> wsF = std::vector<float>(size_t(kBlocks * 3 * kRows * kMaxWsCols));
  std::vector<float> wsMl = std::vector<float>(size_t(kBlocks * 2 * kRows));

  Batch(int64_t heads, int64_t kvHeads, int64_t dim, int64_t qSeqLen,
        std::vector<int32_t> ids, std::vector<int32_t> past,
        std::vector<int32_t> qLens, std::mt19937 &rng,
        std::vector<int32_t> accum = {}, int64_t extraRows = 0)
      : heads(heads), kvHeads(kvHeads), dim(dim), qSeqLen(qSeqLen),
        ids(std::move(ids)), past(std::move(past)), qLens(std::move(qLens)),
        accum(std::move(accum)) {
    size_t batch = this->ids.size();
    slots = *std::max_element(this->ids.begin(), this->ids.end()) + 2;
    for (size_t b = 0; b < batch; ++b)
      perSeq = std::max<int64_t>(perSeq, (this->past[b] + this->qLens[b] +
                                          kBlock - 1) / kBlock);
    perSeq += 1;
    // Every page a sequence reads, from a shuffled pool; the rest of the
    // table points nowhere.
    table.assign(size_t(slots * perSeq), -1);
    std::vector<int32_t> order;
    for (size_t b = 0; b < batch; ++b)
      pool += (this->past[b] + this->qLens[b] + kBlock - 1) / kBlock;
    pool += 3;
    for (int32_t i = 0; i < pool; ++i)
      order.push_back(i);
    std::shuffle(order.begin(), order.end(), rng);
    size_t next = 0;
    for (size_t b = 0; b < batch; ++b)
      for (int64_t pg = 0; pg * kBlock < this->past[b] + this->qLens[b]; ++pg)
        table[size_t(this->ids[b] * perSeq + pg)] = order[next++];
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    auto fill = [&](std::vector<bf16> &x, size_t n, float scale) {
      x.resize(n);
      for (bf16 &e : x)
        e = toStorage(scale * uni(rng));
    };
    if (qSeqLen) {
      tokens = int64_t(batch) * qSeqLen;
    } else if (!this->accum.empty()) {
      tokens = this->accum.back() + extraRows;
    } else {
      for (int32_t l : this->qLens)
        tokens += l;
      tokens += extraRows;
    }
    // Peaked softmax rows: scores of a few units.
    fill(q, size_t(tokens * heads * dim), 3.f);
    fill(k, size_t(pool * kvHeads * kBlock * dim), 1.f);
    fill(v, size_t(pool * kvHeads * kBlock * dim), 2.f);
    out.assign(size_t(tokens * heads * dim), sentinel());
  }

  int64_t rowOf(size_t b, int64_t s) const {
    if (qSeqLen)
      return int64_t(b) * qSeqLen + s;
    if (!accum.empty())
      return accum[b] + s;
    int64_t start = 0;
    for (size_t j = 0; j < b; ++j)
      start += qLens[j];
    return start + s;
  }
  /// Makes every sequence's block-table row a ring of `pages` pages (seed
  /// 001's circular cache: position p at slot p mod pages x 16), dealt
  /// from a new shuffled pool with new random keys and values. Before
  /// quantize().
  void makeRing(int64_t pages, std::mt19937 &rng) {
    ring = true;
    perSeq = pages;
    pool = int64_t(ids.size()) * pages + 3;
    table.assign(size_t(slots * perSeq), -1);
    std::vector<int32_t> order(static_cast<size_t>(pool));
    for (int32_t i = 0; i < pool; ++i)
      order[size_t(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    size_t next = 0;
    for (int32_t id : ids)
      for (int64_t pg = 0; pg < pages; ++pg)
        table[size_t(id * perSeq + pg)] = order[next++];
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    k.resize(size_t(pool * kvHeads * kBlock * dim));
    v.resize(k.size());
    for (bf16 &e : k)
      e = toStorage(uni(rng));
    for (bf16 &e : v)
      e = toStorage(2.f * uni(rng));
  }
  /// Makes the caches int8 with per-(KV head, channel) scales.
  void quantize(std::mt19937 &rng) {
    int8 = true;
    std::uniform_int_distribution<int> i8(-127, 127);
    std::uniform_real_distribution<float> scale(0.005f, 0.04f);
    for (size_t i = 0; i < k.size(); ++i) {
      k8.push_back(int8_t(i8(rng)));
      v8.push_back(int8_t(i8(rng)));
    }
    for (int64_t i = 0; i < kvHeads * dim; ++i) {
      kScale.push_back(scale(rng));
      vScale.push_back(scale(rng));
    }
  }
  /// Key (or value) column col of KV head h at position p of sequence b.
  double cache(bool key, size_t b, int64_t p, int64_t h, int64_t col) const {
    const int64_t pg = ring ? (p / kBlock) % perSeq : p / kBlock;
    int64_t page = table[size_t(ids[b] * perSeq + pg)];
    size_t at = size_t(((page * kvHeads + h) * kBlock + p % kBlock) * dim + col);
    if (int8)
      return double(key ? k8[at] : v8[at]) *
             (key ? kScale : vScale)[size_t(h * dim + col)];
    return toFloat((key ? k : v)[at]);
  }

  // Views.
  template <typename T> MemRef<T, 4> caches(std::vector<T> &c) {
    return {c.data(), {pool, kvHeads, kBlock, dim}};
  }
  MemRef<float, 2> scales(std::vector<float> &x) {
    return {x.data(), {kvHeads, dim}};
  }
  MemRef<int32_t, 2> tableView() { return {table.data(), {slots, perSeq}}; }
  int64_t wsCols() const { return std::max(kKvTile, dim); }
  MemRef<bf16, 4> ws4() { return {wsH.data(), {kBlocks, 2, kRows, wsCols()}}; }
  MemRef<float, 4> wsf(int64_t parts) {
    return {wsF.data(), {kBlocks, parts, kRows, wsCols()}};
  }
  MemRef<float, 3> wsml() { return {wsMl.data(), {kBlocks, 2, kRows}}; }
};

/// Compares every output row of every sequence with the reference and
/// checks that the rows no sequence owns keep the sentinel. Returns the
/// largest error over its bound (or a large number when a row is wrong
/// there).
double compare(const Batch &bt, int64_t &untouchedWrong) {
  double worst = 0;
  int64_t group = bt.heads / bt.kvHeads;
  double scale = 1.0 / std::sqrt(double(bt.dim));
  std::vector<bool> owned(size_t(bt.tokens), false);
  for (size_t b = 0; b < bt.ids.size(); ++b)
    for (int64_t s = 0; s < bt.qLens[b]; ++s) {
      int64_t row = bt.rowOf(b, s), seen = bt.past[b] + s + 1;
      // The first position the token sees (a window: the last W).
      const int64_t first =
          !bt.starts.empty()
              ? bt.starts[size_t(int64_t(b) * bt.qSeqLen + s)]
          : bt.window ? std::max<int64_t>(0, seen - bt.window)
                      : 0;
      owned[size_t(row)] = true;
      for (int64_t h = 0; h < bt.heads; ++h) {
        int64_t kvh = h / group;
        const bf16 *qr = &bt.q[size_t((row * bt.heads + h) * bt.dim)];
        std::vector<double> w(static_cast<size_t>(seen - first));
        double mx = -1e300, sum = 0;
        for (int64_t p = first; p < seen; ++p) {
          double dot = 0;
          for (int64_t c = 0; c < bt.dim; ++c)
            dot += double(toFloat(qr[c])) * bt.cache(true, b, p, kvh, c);
          w[size_t(p - first)] = dot * scale;
          mx = std::max(mx, w[size_t(p - first)]);
        }
        for (double &x : w) {
          x = std::exp(x - mx);
          sum += x;
        }
        for (int64_t c = 0; c < bt.dim; ++c) {
          double o = 0, maxv = 0;
          for (int64_t p = first; p < seen; ++p) {
            double vv = bt.cache(false, b, p, kvh, c);
            o += w[size_t(p - first)] * vv;
            maxv = std::max(maxv, std::fabs(vv));
          }
          o /= sum;
          double bound = maxv * (0x1p-7 + double(seen - first) * 0x1p-22) +
                         kSubnormalRounding;
          double got = toFloat(bt.out[size_t((row * bt.heads + h) * bt.dim + c)]);
          double err = std::fabs(got - o);
          worst = std::max(worst, std::isfinite(got) ? err / bound : 1e30);
        }
      }
    }
  untouchedWrong = 0;
  for (int64_t row = 0; row < bt.tokens; ++row)
    if (!owned[size_t(row)])
      for (int64_t i = 0; i < bt.heads * bt.dim; ++i)
        untouchedWrong +=
            bt.out[size_t(row * bt.heads * bt.dim + i)].bits != sentinel().bits;
  return worst;
}

/// A bf16 decode function of attention.mlir on the batch's buffers.
template <typename Fn> int32_t runDecode(Fn fn, Batch &bt) {
  int64_t batch = int64_t(bt.ids.size());
  return fn(MemRef<bf16, 4>{bt.q.data(), {batch, bt.qSeqLen, bt.heads, bt.dim}},
            vec(bt.ids), vec(bt.past), vec(bt.qLens), vec(bt.accum),
            bt.tableView(), bt.caches(bt.k), bt.caches(bt.v),
            MemRef<bf16, 4>{bt.out.data(), {batch, bt.qSeqLen, bt.heads, bt.dim}},
            bt.ws4(), bt.wsf(3), bt.wsml());
}

/// A bf16 prefill function of attention.mlir without accum_q_len.
template <typename Fn> int32_t runPrefill(Fn fn, Batch &bt) {
  return fn(MemRef<bf16, 3>{bt.q.data(), {bt.tokens, bt.heads, bt.dim}},
            vec(bt.ids), vec(bt.past), vec(bt.qLens), bt.tableView(),
            bt.caches(bt.k), bt.caches(bt.v),
            MemRef<bf16, 3>{bt.out.data(), {bt.tokens, bt.heads, bt.dim}},
            bt.ws4(), bt.wsf(2));
}

int32_t runPrefillGqa8(Batch &bt) {
  return wsp_gen::prefill_gqa8(
      MemRef<bf16, 3>{bt.q.data(), {bt.tokens, 8, 128}}, vec(bt.ids),
      vec(bt.past), vec(bt.qLens), vec(bt.accum), bt.tableView(),
      bt.caches(bt.k), bt.caches(bt.v),
      MemRef<bf16, 3>{bt.out.data(), {bt.tokens, 8, 128}}, bt.ws4(),
      bt.wsf(2));
}

/// An int8-cache decode function of attention.mlir (its workspaces: the
/// f32 Q, the f32 K and bf16 V of a KV tile).
template <typename Fn> int32_t runDecodeInt8With(Fn fn, Batch &bt) {
  int64_t batch = int64_t(bt.ids.size());
  std::vector<float> wsQ(size_t(kBlocks * kRows * 128));
  std::vector<float> wsK(size_t(kBlocks * 64 * 128));
  std::vector<bf16> wsV(size_t(kBlocks * 64 * 128));
  return fn(
      MemRef<bf16, 4>{bt.q.data(), {batch, bt.qSeqLen, bt.heads, bt.dim}},
      vec(bt.ids), vec(bt.past), vec(bt.qLens), vec(bt.accum), bt.tableView(),
      bt.caches(bt.k8), bt.caches(bt.v8), bt.scales(bt.kScale),
      bt.scales(bt.vScale),
      MemRef<bf16, 4>{bt.out.data(), {batch, bt.qSeqLen, bt.heads, bt.dim}},
      MemRef<bf16, 4>{bt.wsH.data(), {kBlocks, 1, kRows, kKvTile}}, bt.wsf(3),
      bt.wsml(), MemRef<float, 3>{wsQ.data(), {kBlocks, kRows, 128}},
      MemRef<float, 3>{wsK.data(), {kBlocks, 64, 128}},
      MemRef<bf16, 3>{wsV.data(), {kBlocks, 64, 128}});
}

/// An int8-cache prefill function of attention.mlir.
template <typename Fn> int32_t runPrefillInt8With(Fn fn, Batch &bt) {
  std::vector<float> wsQ(size_t(kBlocks * kRows * 128));
  std::vector<float> wsK(size_t(kBlocks * 64 * 128));
  std::vector<bf16> wsV(size_t(kBlocks * 64 * 128));
  return fn(MemRef<bf16, 3>{bt.q.data(), {bt.tokens, bt.heads, bt.dim}},
            vec(bt.ids), vec(bt.past), vec(bt.qLens), bt.tableView(),
            bt.caches(bt.k8), bt.caches(bt.v8), bt.scales(bt.kScale),
            bt.scales(bt.vScale),
            MemRef<bf16, 3>{bt.out.data(), {bt.tokens, bt.heads, bt.dim}},
            MemRef<bf16, 4>{bt.wsH.data(), {kBlocks, 1, kRows, kKvTile}},
            bt.wsf(2), MemRef<float, 3>{wsQ.data(), {kBlocks, kRows, 128}},
            MemRef<float, 3>{wsK.data(), {kBlocks, 64, 128}},
            MemRef<bf16, 3>{wsV.data(), {kBlocks, 64, 128}});
}

/// A function `Fn` of attention.mlir as the checks call it, through the
/// runner of its family.
template <auto Fn> int32_t decodeFn(Batch &bt) { return runDecode(Fn, bt); }
template <auto Fn> int32_t prefillFn(Batch &bt) { return runPrefill(Fn, bt); }
template <auto Fn> int32_t decodeInt8Fn(Batch &bt) {
  return runDecodeInt8With(Fn, bt);
}
template <auto Fn> int32_t prefillInt8Fn(Batch &bt) {
  return runPrefillInt8With(Fn, bt);
}
int32_t runDecodeStartPosRing(Batch &bt) {
  int64_t batch = int64_t(bt.ids.size());
  return wsp_gen::decode_start_pos_ring(
      MemRef<bf16, 4>{bt.q.data(), {batch, bt.qSeqLen, bt.heads, bt.dim}},
      vec(bt.ids), vec(bt.past), vec(bt.qLens), vec(bt.accum), bt.tableView(),
      bt.caches(bt.k), bt.caches(bt.v),
      MemRef<int32_t, 2>{bt.starts.data(), {batch, bt.qSeqLen}},
      MemRef<bf16, 4>{bt.out.data(), {batch, bt.qSeqLen, bt.heads, bt.dim}},
      bt.ws4(), bt.wsf(3), bt.wsml());
}
/// Each query token's start_pos drawn inside its window of W: uniform in
/// [max(0, pos - W + 1), pos].
void drawStarts(Batch &bt, int64_t window, std::mt19937 &rng) {
  bt.starts.clear();
  for (size_t b = 0; b < bt.ids.size(); ++b)
    for (int64_t s = 0; s < bt.qSeqLen; ++s) {
      int64_t pos = bt.past[b] + s;
      int64_t lo = std::max<int64_t>(0, pos - window + 1);
      bt.starts.push_back(
          std::uniform_int_distribution<int32_t>(int32_t(lo), int32_t(pos))(rng));
    }
}

template <typename Run>
bool check(const char *what, Batch &bt, Run run) {
  int32_t status = run(bt);
  int64_t stray = 0;
  double worst = compare(bt, stray);
  bool ok = status == 0 && worst <= 1.0 && stray == 0;
  int64_t rows = 0;
  for (int32_t l : bt.qLens)
    rows += l;
  std::printf("%s, %lld query tokens in %zu sequences: %s (status %d, max "
              "err / bound %.3f, %lld values outside the sequences written)\n",
              what, (long long)rows, bt.ids.size(), ok ? "ok" : "MISMATCH",
              status, worst, (long long)stray);
  return ok;
}

std::vector<int32_t> decodeAccum(size_t batch, int32_t qSeqLen) {
  std::vector<int32_t> a;
  for (size_t b = 0; b <= batch; ++b)
    a.push_back(int32_t(b) * qSeqLen);
  return a;
}

/// A random batch for one function's heads: 1 to 5 sequences in shuffled
/// slots, cached lengths uniform in [0, maxPast] (so mostly not multiples of
/// the 16-position page); decode: qSeqLen tokens each; prefill: 0 to maxQ
/// tokens each, packed by prefix sums or, `withAccum`, at accum_q_len rows
/// with gaps of 0 to 3 rows; 0 to 2 rows past the last sequence.
Batch randomBatch(std::mt19937 &rng, int64_t heads, int64_t kvHeads,
                  int64_t dim, int64_t qSeqLen, int32_t maxPast, int32_t maxQ,
                  bool withAccum) {
  auto draw = [&](int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  };
  const int32_t batch = draw(1, 5);
  std::vector<int32_t> ids(static_cast<size_t>(batch)), past, qLens, accum;
  for (int32_t b = 0; b < batch; ++b)
    ids[size_t(b)] = b;
  std::shuffle(ids.begin(), ids.end(), rng);
  for (int32_t b = 0; b < batch; ++b) {
    past.push_back(draw(0, maxPast));
    qLens.push_back(qSeqLen ? int32_t(qSeqLen) : draw(0, maxQ));
  }
  if (qSeqLen)
    return Batch(heads, kvHeads, dim, qSeqLen, ids, past, qLens, rng,
                 decodeAccum(size_t(batch), int32_t(qSeqLen)));
  if (withAccum) {
    accum.push_back(draw(0, 3));
    for (int32_t l : qLens)
      accum.push_back(accum.back() + l + draw(0, 3));
  }
  return Batch(heads, kvHeads, dim, 0, ids, past, qLens, rng, accum,
               draw(0, 2));
}

bool checkInvalid(const char *what, std::mt19937 &rng, bool decode,
                  int which) {
  // (which 5: a prefill sequence one token past @prefill_mha's
  // max_q_len, 256.)
  std::vector<int32_t> ids = {2, 0, 1}, past = {40, 3, 100},
                       qLens = decode       ? std::vector<int32_t>{1, 1, 1}
                               : which == 5 ? std::vector<int32_t>{9, 4, 257}
                                            : std::vector<int32_t>{9, 4, 20};
  Batch bt = decode ? Batch(8, 2, 128, 1, ids, past, qLens, rng,
                            decodeAccum(3, 1))
                    : Batch(4, 4, 64, 0, ids, past, qLens, rng);
  switch (which) {
  case 0: bt.table[size_t(bt.ids[2] * bt.perSeq + 1)] = int32_t(bt.pool); break;
  case 1: bt.past[0] = int32_t(bt.perSeq * kBlock); break;
  case 2: bt.ids[1] = int32_t(bt.slots); break;
  case 3: bt.past[1] = -1; break;
  case 4: bt.qLens[2] += 1; break;
  }
  int32_t status = decode ? decodeFn<wsp_gen::decode_gqa4>(bt)
                          : prefillFn<wsp_gen::prefill_mha>(bt);
  return reportInvalid(what, status, allSentinel(bt.out), "output");
}

} // namespace

int main() {
  std::mt19937 rng(2031);
  bool ok = true;
  {
    // Rows of 1 to 4201 positions: one to many KV chunks, every tier but
    // the longest.
    Batch bt(8, 2, 128, 1, {3, 0, 2, 1}, {0, 37, 1500, 4200}, {1, 1, 1, 1},
             rng, decodeAccum(4, 1));
    ok = check("decode, GQA 4, head_dim 128", bt,
               decodeFn<wsp_gen::decode_gqa4>) &&
         ok;
  }
  {
    Batch bt(8, 1, 64, 2, {1, 2, 0}, {5, 300, 1030}, {2, 2, 2}, rng,
             decodeAccum(3, 2));
    ok = check("decode of 2 tokens, GQA 8, head_dim 64", bt,
               decodeFn<wsp_gen::decode_gqa8>) &&
         ok;
  }
  {
    // Two rows past the last sequence stay untouched.
    Batch bt(4, 4, 64, 0, {1, 0, 2}, {0, 64, 9}, {17, 1, 40}, rng, {}, 2);
    ok = check("chunked prefill, MHA, head_dim 64", bt,
               prefillFn<wsp_gen::prefill_mha>) &&
         ok;
  }
  {
    // Gaps between the sequences' rows, an empty sequence.
    Batch bt(8, 1, 128, 0, {3, 1, 0, 2}, {100, 0, 7, 3}, {5, 33, 0, 12}, rng,
             {0, 6, 40, 40, 52}, 2);
    ok = check("chunked prefill, GQA 8, head_dim 128", bt, runPrefillGqa8) && ok;
  }
  {
    Batch bt(8, 2, 128, 1, {2, 0, 1}, {3, 700, 2100}, {1, 1, 1}, rng,
             decodeAccum(3, 1));
    bt.quantize(rng);
    ok = check("decode, int8 cache, GQA 4, head_dim 128", bt,
               decodeInt8Fn<wsp_gen::decode_int8>) &&
         ok;
  }
  {
    Batch bt(4, 2, 64, 0, {0, 2, 1}, {40, 0, 130}, {21, 6, 3}, rng, {}, 1);
    bt.quantize(rng);
    ok = check("chunked prefill, int8 cache, GQA 2, head_dim 64", bt,
               prefillInt8Fn<wsp_gen::prefill_int8>) &&
         ok;
  }
  {
    Batch bt(4, 4, 128, 1, {1, 0, 2}, {0, 1025, 77}, {1, 1, 1}, rng,
             decodeAccum(3, 1));
    ok =
        check("decode, MHA, head_dim 128", bt, decodeFn<wsp_gen::decode_mha>) &&
        ok;
  }
  {
    Batch bt(8, 2, 64, 0, {2, 1, 0}, {31, 0, 200}, {12, 19, 1}, rng, {}, 1);
    ok = check("chunked prefill, GQA 4, head_dim 64", bt,
               prefillFn<wsp_gen::prefill_gqa4>) &&
         ok;
  }
  // Random batches, three per function.
  struct RandomCase {
    const char *what;
    int64_t heads, kvHeads, dim, qSeqLen;
    int32_t maxPast, maxQ;
    bool withAccum, int8;
    int32_t (*run)(Batch &);
  };
  const RandomCase randomCases[] = {
      {"random decode, GQA 4, head_dim 128", 8, 2, 128, 1, 4500, 0, false,
       false, decodeFn<wsp_gen::decode_gqa4>},
      {"random decode of 2 tokens, GQA 8, head_dim 64", 8, 1, 64, 2, 2000, 0,
       false, false, decodeFn<wsp_gen::decode_gqa8>},
      {"random chunked prefill, MHA, head_dim 64", 4, 4, 64, 0, 700, 48, false,
       false, prefillFn<wsp_gen::prefill_mha>},
      {"random chunked prefill, GQA 8, head_dim 128", 8, 1, 128, 0, 700, 40,
       true, false, runPrefillGqa8},
      {"random decode, MHA, head_dim 128", 4, 4, 128, 1, 3000, 0, false, false,
       decodeFn<wsp_gen::decode_mha>},
      {"random chunked prefill, GQA 4, head_dim 64", 8, 2, 64, 0, 700, 40,
       false, false, prefillFn<wsp_gen::prefill_gqa4>},
      {"random decode, int8 cache, GQA 4, head_dim 128", 8, 2, 128, 1, 3000, 0,
       false, true, decodeInt8Fn<wsp_gen::decode_int8>},
      {"random chunked prefill, int8 cache, GQA 2, head_dim 64", 4, 2, 64, 0,
       700, 40, false, true, prefillInt8Fn<wsp_gen::prefill_int8>},
  };
  for (int trial = 0; trial < 3; ++trial)
    for (const RandomCase &c : randomCases) {
      Batch bt = randomBatch(rng, c.heads, c.kvHeads, c.dim, c.qSeqLen,
                             c.maxPast, c.maxQ, c.withAccum);
      if (c.int8)
        bt.quantize(rng);
      ok = check(c.what, bt, c.run) && ok;
    }
  // Sliding windows: rows shorter than the window, as long, and many
  // windows long (the chunks before a window are not planned); then
  // random batches.
  {
    Batch bt(8, 2, 128, 2, {2, 0, 3, 1}, {0, 150, 298, 2500}, {2, 2, 2, 2},
             rng, decodeAccum(4, 2));
    bt.window = 300;
    ok = check("decode of 2 tokens, window 300, GQA 4, head_dim 128", bt,
               decodeFn<wsp_gen::decode_window>) &&
         ok;
  }
  {
    Batch bt(8, 2, 128, 1, {1, 0, 2}, {5, 999, 4100}, {1, 1, 1}, rng,
             decodeAccum(3, 1));
    bt.window = 1000;
    bt.quantize(rng);
    ok = check("decode, window 1000, int8 cache, GQA 4, head_dim 128", bt,
               decodeInt8Fn<wsp_gen::decode_window_int8>) &&
         ok;
  }
  {
    // A prompt of 200 tokens with none cached (each sees its last 48, the
    // first 47 fewer), a chunk after 30 cached, one after 500 cached, and
    // an empty sequence; two rows past the last sequence untouched.
    Batch bt(8, 2, 64, 0, {1, 3, 0, 2}, {0, 30, 500, 9}, {200, 40, 17, 0},
             rng, {}, 2);
    bt.window = 48;
    ok = check("chunked prefill, window 48, GQA 4, head_dim 64", bt,
               prefillFn<wsp_gen::prefill_window>) &&
         ok;
  }
  {
    Batch bt(4, 2, 64, 0, {0, 2, 1}, {0, 130, 7}, {150, 21, 3}, rng, {}, 1);
    bt.window = 100;
    bt.quantize(rng);
    ok = check("chunked prefill, window 100, int8 cache, GQA 2, head_dim 64",
               bt, prefillInt8Fn<wsp_gen::prefill_window_int8>) &&
         ok;
  }
  for (int trial = 0; trial < 3; ++trial) {
    Batch pw = randomBatch(rng, 8, 2, 64, 0, 700, 120, false);
    pw.window = 48;
    ok = check("random chunked prefill, window 48", pw,
               prefillFn<wsp_gen::prefill_window>) &&
         ok;
    Batch bt = randomBatch(rng, 8, 2, 128, 2, 3000, 0, false);
    bt.window = 300;
    ok = check("random decode of 2 tokens, window 300", bt,
               decodeFn<wsp_gen::decode_window>) &&
         ok;
    Batch b8 = randomBatch(rng, 8, 2, 128, 1, 4000, 0, false);
    b8.window = 1000;
    b8.quantize(rng);
    ok = check("random decode, window 1000, int8 cache", b8,
               decodeInt8Fn<wsp_gen::decode_window_int8>) &&
         ok;
  }
  // head_dims that are multiples of 16, not 32: 80 and 48.
  {
    Batch bt(8, 2, 80, 1, {2, 0, 1}, {0, 300, 1500}, {1, 1, 1}, rng,
             decodeAccum(3, 1));
    ok = check("decode, GQA 4, head_dim 80", bt,
               decodeFn<wsp_gen::decode_d80>) &&
         ok;
  }
  {
    Batch bt(4, 4, 48, 0, {1, 0, 2}, {0, 64, 9}, {17, 1, 40}, rng, {}, 2);
    ok = check("chunked prefill, MHA, head_dim 48", bt,
               prefillFn<wsp_gen::prefill_d48>) &&
         ok;
  }
  // Ring caches (seed 001's circular cache over pages): rows many rings
  // long, so that windows wrap the ring's end, and rows shorter than the
  // ring; then random batches. A window the ring cannot hold is
  // INVALID_PARAMS with nothing written.
  {
    // Rings of 6 pages (96 positions) for a window of 64 and 2 tokens.
    Batch bt(8, 2, 64, 2, {2, 0, 3, 1}, {0, 40, 1000, 4321}, {2, 2, 2, 2},
             rng, decodeAccum(4, 2));
    bt.window = 64;
    bt.makeRing(6, rng);
    ok = check("decode of 2 tokens, window 64, ring of 96, GQA 4, head_dim 64",
               bt, decodeFn<wsp_gen::decode_ring>) &&
         ok;
  }
  {
    // Rings of 7 pages (112 positions) for a window of 48 and chunks of up
    // to 60 tokens (48 + 60 - 1 <= 112).
    Batch bt(4, 2, 64, 0, {1, 0, 2}, {0, 500, 2049}, {60, 33, 7}, rng, {}, 1);
    bt.window = 48;
    bt.makeRing(7, rng);
    bt.quantize(rng);
    ok = check("chunked prefill, window 48, ring of 112, int8 cache, GQA 2, "
               "head_dim 64",
               bt, prefillInt8Fn<wsp_gen::prefill_ring_int8>) &&
         ok;
  }
  for (int trial = 0; trial < 2; ++trial) {
    Batch bt = randomBatch(rng, 8, 2, 64, 2, 5000, 0, false);
    bt.window = 64;
    bt.makeRing(5, rng);
    ok = check("random decode of 2 tokens, window 64, ring of 80", bt,
               decodeFn<wsp_gen::decode_ring>) &&
         ok;
    Batch pt = randomBatch(rng, 4, 2, 64, 0, 3000, 60, false);
    pt.window = 48;
    pt.makeRing(7, rng);
    pt.quantize(rng);
    ok = check("random chunked prefill, window 48, ring of 112, int8 cache", pt,
               prefillInt8Fn<wsp_gen::prefill_ring_int8>) &&
         ok;
  }
  {
    // A ring of 4 pages (64 positions) holds a window of 64 and 1 token
    // but not 2: INVALID_PARAMS, nothing written.
    Batch bt(8, 2, 64, 2, {1, 0}, {300, 10}, {2, 2}, rng, decodeAccum(2, 2));
    bt.window = 64;
    bt.makeRing(4, rng);
    ok = reportInvalid("decode: a window of 64 and 2 tokens over a ring of 64",
                       decodeFn<wsp_gen::decode_ring>(bt), allSentinel(bt.out),
                       "output") &&
         ok;
  }
  // Seed 001's start_pos tensor over ring caches: each query's window
  // start given at run time, anywhere inside its window (so the starts do
  // not grow with the token); then the window's own starts (W - 1 back),
  // random batches, and a start outside the window (INVALID_PARAMS).
  {
    Batch bt(8, 2, 64, 2, {2, 0, 3, 1}, {0, 90, 1000, 3001}, {2, 2, 2, 2},
             rng, decodeAccum(4, 2));
    bt.window = 128;
    bt.makeRing(10, rng);
    drawStarts(bt, 128, rng);
    ok = check("decode of 2 tokens, start_pos in windows of 128, ring of 160",
               bt, runDecodeStartPosRing) && ok;
    for (size_t b = 0; b < bt.ids.size(); ++b)
      for (int64_t s = 0; s < 2; ++s)
        bt.starts[b * 2 + size_t(s)] =
            int32_t(std::max<int64_t>(0, bt.past[b] + s - 127));
    std::fill(bt.out.begin(), bt.out.end(), sentinel());
    ok = check("decode of 2 tokens, start_pos = pos - 127, ring of 160", bt,
               runDecodeStartPosRing) && ok;
  }
  for (int trial = 0; trial < 2; ++trial) {
    Batch bt = randomBatch(rng, 8, 2, 64, 2, 5000, 0, false);
    bt.window = 128;
    bt.makeRing(10, rng);
    drawStarts(bt, 128, rng);
    ok = check("random decode of 2 tokens, start_pos, ring of 160", bt,
               runDecodeStartPosRing) && ok;
  }
  for (int which = 0; which < 2; ++which) {
    Batch bt(8, 2, 64, 2, {1, 0}, {300, 10}, {2, 2}, rng, decodeAccum(2, 2));
    bt.window = 128;
    bt.makeRing(10, rng);
    drawStarts(bt, 128, rng);
    // Below the window (pos - W), or past the query's own position.
    bt.starts[1] = which == 0 ? 301 - 128 : 302;
    ok = reportInvalid(which == 0 ? "decode: a start_pos below its window"
                                  : "decode: a start_pos past its position",
                       runDecodeStartPosRing(bt), allSentinel(bt.out),
                       "output") &&
         ok;
  }
  // Heads over 128 (KV tiles of 64 positions) and 96.
  {
    Batch bt(8, 2, 256, 1, {2, 0, 3, 1}, {0, 63, 1100, 4200}, {1, 1, 1, 1},
             rng, decodeAccum(4, 1));
    ok = check("decode, GQA 4, head_dim 256", bt,
               decodeFn<wsp_gen::decode_d256>) &&
         ok;
  }
  {
    Batch bt(4, 2, 256, 0, {1, 0, 2}, {0, 64, 300}, {70, 1, 40}, rng, {}, 2);
    ok = check("chunked prefill, GQA 2, head_dim 256", bt,
               prefillFn<wsp_gen::prefill_d256>) &&
         ok;
  }
  {
    Batch bt(8, 1, 192, 2, {1, 2, 0}, {5, 300, 2030}, {2, 2, 2}, rng,
             decodeAccum(3, 2));
    ok = check("decode of 2 tokens, GQA 8, head_dim 192", bt,
               decodeFn<wsp_gen::decode_d192>) &&
         ok;
  }
  {
    Batch bt(8, 2, 96, 0, {2, 1, 0}, {31, 0, 200}, {12, 19, 1}, rng, {}, 1);
    ok = check("chunked prefill, GQA 4, head_dim 96", bt,
               prefillFn<wsp_gen::prefill_d96>) &&
         ok;
  }
  {
    Batch bt = randomBatch(rng, 8, 2, 256, 1, 3000, 0, false);
    ok = check("random decode, GQA 4, head_dim 256", bt,
               decodeFn<wsp_gen::decode_d256>) &&
         ok;
    Batch pt = randomBatch(rng, 4, 2, 256, 0, 700, 60, false);
    ok = check("random chunked prefill, GQA 2, head_dim 256", pt,
               prefillFn<wsp_gen::prefill_d256>) &&
         ok;
  }
  // More rows per KV head than a tile holds: row tiles, each a row of the
  // plan (rows long enough for several chunks, so a tile's state passes
  // from chunk to chunk).
  {
    Batch bt(32, 2, 64, 4, {2, 0, 3, 1}, {0, 45, 1300, 3000}, {4, 4, 4, 4},
             rng, decodeAccum(4, 4));
    ok = check("decode of 4 tokens, GQA 16, head_dim 64", bt,
               decodeFn<wsp_gen::decode_g16_q4>) &&
         ok;
  }
  {
    Batch bt(32, 1, 128, 8, {1, 0, 2}, {3, 700, 2100}, {8, 8, 8}, rng,
             decodeAccum(3, 8));
    ok = check("decode of 8 tokens, GQA 32, head_dim 128", bt,
               decodeFn<wsp_gen::decode_g32_q8>) &&
         ok;
  }
  {
    Batch bt(32, 2, 64, 4, {1, 0, 2}, {2, 298, 2500}, {4, 4, 4}, rng,
             decodeAccum(3, 4));
    bt.window = 300;
    bt.quantize(rng);
    ok = check("decode of 4 tokens, GQA 16, window 300, int8 cache, "
               "head_dim 64",
               bt, decodeInt8Fn<wsp_gen::decode_g16_q4_window_int8>) &&
         ok;
  }
  for (int trial = 0; trial < 2; ++trial) {
    Batch bt = randomBatch(rng, 32, 2, 64, 4, 3000, 0, false);
    ok = check("random decode of 4 tokens, GQA 16", bt,
               decodeFn<wsp_gen::decode_g16_q4>) &&
         ok;
    Batch b8 = randomBatch(rng, 32, 2, 64, 4, 3000, 0, false);
    b8.window = 300;
    b8.quantize(rng);
    ok = check("random decode of 4 tokens, GQA 16, window 300, int8 cache", b8,
               decodeInt8Fn<wsp_gen::decode_g16_q4_window_int8>) &&
         ok;
  }
  const char *cases[] = {"page id outside the pool", "past the block-table row",
                         "slot outside the block table", "negative kv_len"};
  for (int which = 0; which < 4; ++which) {
    std::string d = std::string("decode: ") + cases[which];
    std::string p = std::string("prefill: ") + cases[which];
    ok = checkInvalid(d.c_str(), rng, true, which) && ok;
    ok = checkInvalid(p.c_str(), rng, false, which) && ok;
  }
  ok = checkInvalid("decode: q_lens other than q_seq_len", rng, true, 4) && ok;
  ok = checkInvalid("prefill: q_lens beyond the packed tokens", rng, false, 4) &&
       ok;
  ok = checkInvalid("prefill: a sequence longer than max_q_len", rng, false, 5) &&
       ok;
  return ok ? 0 : 1;
}
