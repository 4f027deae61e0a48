// The problems and arguments of examples/ir/kv_sharding.mlir, shared by its
// self-check and bench/KvShardingBench.cpp: a whole decode batch (ragged
// lengths, pages shuffled in the pool, the table's rows permuted) and the
// arguments of an unsharded function or of one rank's part of a sharded
// one (its heads of q, and its part of the cache as its kv_sharding says).
#ifndef WSP_EXAMPLES_KV_SHARDING_HPP
#define WSP_EXAMPLES_KV_SHARDING_HPP

#include "selfcheck.hpp"

#include <numeric>

namespace kv_sharding {

using namespace selfcheck;

constexpr int64_t kHeads = 8, kKvHeads = 2, kDim = 64;

/// A whole decode batch, unsharded.
struct Batch {
  int64_t batch, seq;
  bool int8;
  int64_t pageSize; // positions per page
  std::vector<int32_t> kvLens, qLens, accum, kvIds, table;
  int64_t pagesPerRow = 1;
  std::vector<bf16> q, k, v;  // bf16 caches
  std::vector<int8_t> k8, v8; // int8 caches
  std::vector<float> kScale, vScale;
  int64_t pages = 0;

  /// Lengths in [minLen, maxLen], pages of pageSize positions.
  Batch(int64_t batch, int64_t seq, bool int8, unsigned seed,
        int32_t minLen = 0, int32_t maxLen = 700, int64_t pageSize = 16)
      : batch(batch), seq(seq), int8(int8), pageSize(pageSize) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int32_t> len(minLen, maxLen);
    std::uniform_real_distribution<float> value(-1, 1);
    std::uniform_int_distribution<int> i8(-127, 127);
    std::uniform_real_distribution<float> scale(0.002f, 0.02f);
    for (int64_t b = 0; b < batch; ++b) {
      kvLens.push_back(len(rng));
      qLens.push_back(int32_t(seq));
      pagesPerRow = std::max<int64_t>(pagesPerRow, pagesOf(b));
    }
    for (int64_t b = 0; b <= batch; ++b)
      accum.push_back(int32_t(b * seq));
    // Rows of the table in a permuted order, pages shuffled in the pool.
    kvIds.resize(size_t(batch));
    std::iota(kvIds.begin(), kvIds.end(), 0);
    std::shuffle(kvIds.begin(), kvIds.end(), rng);
    for (int64_t b = 0; b < batch; ++b)
      pages += pagesOf(b);
    std::vector<int32_t> order(static_cast<size_t>(pages));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    table.assign(size_t(batch * pagesPerRow), -1);
    int64_t next = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t p = 0; p < pagesOf(b); ++p)
        table[size_t(kvIds[size_t(b)] * pagesPerRow + p)] =
            order[size_t(next++)];
    const size_t cache = size_t(pages * kKvHeads * pageSize * kDim);
    if (int8) {
      // A cheap generator for the cache (the long batches hold 10^8
      // values): xorshift, seeded from rng.
      uint32_t x = rng() | 1;
      for (auto *c : {&k8, &v8}) {
        c->resize(cache);
        for (size_t i = 0; i < cache; ++i) {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          (*c)[i] = int8_t(int(x % 255) - 127);
        }
      }
      for (auto *s : {&kScale, &vScale})
        for (int64_t i = 0; i < kKvHeads * kDim; ++i)
          s->push_back(scale(rng));
    } else {
      for (auto *c : {&k, &v})
        for (size_t i = 0; i < cache; ++i)
          c->push_back(toStorage(value(rng)));
    }
    for (int64_t i = 0; i < batch * seq * kHeads * kDim; ++i)
      q.push_back(toStorage(value(rng)));
  }

  /// The pages request b reads: its prior positions and its new tokens.
  int64_t pagesOf(int64_t b) const {
    return (kvLens[size_t(b)] + seq + pageSize - 1) / pageSize;
  }
};

/// The decode attention's workspaces (convert-llm-to-wsp's sizes).
struct AttentionWorkspaces {
  std::vector<bf16> h;
  std::vector<float> f, ml, q, k;
  std::vector<bf16> v;
  explicit AttentionWorkspaces(bool int8)
      : h(size_t(24 * (int8 ? 1 : 2) * 32 * 128)), f(size_t(24 * 3 * 32 * 128)),
        ml(size_t(24 * 2 * 32)), q(int8 ? size_t(24 * 32 * 128) : 0),
        k(int8 ? size_t(24 * 64 * 128) : 0),
        v(int8 ? size_t(24 * 64 * 128) : 0) {}
};

/// How a rank's part of the cache is cut (the function's kv_sharding).
/// KvdpCp: a grid of 2 x (n / 2), KV data parallel along axis 0, context
/// parallel along axis 1.
enum class Mode { Kvdp, KvdpAllToAll, Cp, KvdpCp };

/// One function's arguments: the whole batch (unsharded) or one rank's part.
struct Args {
  int64_t batch, seq, heads;
  bool int8;
  std::vector<bf16> q, out;
  std::vector<int32_t> kvIds, kvLens, qLens, accum, table;
  int64_t rows, pagesPerRow, pages;
  std::vector<bf16> k, v;
  std::vector<int8_t> k8, v8;
  std::vector<float> kScale, vScale;
  std::vector<bf16> sharding; // the KV sharding workspace (sharded only)
  std::vector<float> states;  // context parallel: the states' workspace
  std::vector<int32_t> ints;  // the i32 workspace: kvdp's accum_q_len, cp's
                              // visible_lens
  // kvdp_cp: the context-parallel part's workspaces (q, visible_lens).
  std::vector<bf16> sharding2;
  std::vector<int32_t> ints2;
  int64_t firstHead = 0; // the whole attention's index of q's first head
  std::vector<int32_t> globalPages; // kvdp: the whole pool's page of each
  AttentionWorkspaces ws;
  int64_t page = 16;          // positions per page of this pool
  int64_t kvHeads = kKvHeads; // the KV heads this pool holds

  explicit Args(const Batch &whole)
      : batch(whole.batch), seq(whole.seq), heads(kHeads), int8(whole.int8),
        q(whole.q), kvIds(whole.kvIds), kvLens(whole.kvLens),
        qLens(whole.qLens), accum(whole.accum), table(whole.table),
        rows(whole.batch), pagesPerRow(whole.pagesPerRow), pages(whole.pages),
        k(whole.k), v(whole.v), k8(whole.k8), v8(whole.v8),
        kScale(whole.kScale), vScale(whole.vScale), ws(whole.int8),
        page(whole.pageSize) {
    out.assign(size_t(batch * seq * heads * kDim), sentinel());
  }

  /// Rank r of n: its heads of q, and its part of the cache as `mode` says
  /// (KV data parallel or context parallel). With `kvGroups` > 1 (KV data
  /// parallel only) the ranks are a grid of kvGroups x (n / kvGroups): rank
  /// r = g (n / kvGroups) + d holds KV head g alone, and is rank d of its
  /// group's KV data parallelism.
  Args(const Batch &whole, int64_t r, int64_t n, Mode mode,
       int64_t kvGroups = 1)
      : batch(whole.batch), seq(whole.seq), heads(kHeads / n), int8(whole.int8),
        kvLens(whole.kvLens), qLens(whole.qLens), accum(whole.accum),
        pagesPerRow(whole.pagesPerRow), ws(whole.int8) {
    // With kv groups, rank r = g (n / kvGroups) + q holds KV head g and is
    // rank q of its group. kvdp_cp: q = (d, c) of a 2 x (group / 2) grid
    // holds the heads of group rank c 2 + d (the heads ordered by (cp,
    // kvdp) coordinate).
    const int64_t group = n / kvGroups, kvHead = kvGroups > 1 ? r / group : -1;
    const int64_t mine = r % group, kvdpRanks = 2, cpRanks = group / kvdpRanks;
    firstHead =
        (r - mine +
         (mode == Mode::KvdpCp ? (mine % cpRanks) * kvdpRanks + mine / cpRanks
                               : mine)) *
        heads;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < seq; ++s)
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t d = 0; d < kDim; ++d)
            q.push_back(whole.q[size_t(
                ((b * seq + s) * kHeads + firstHead + h) * kDim + d)]);
    out.assign(size_t(batch * seq * heads * kDim), sentinel());
    kvHeads = kvGroups > 1 ? kKvHeads / kvGroups : kKvHeads;
    for (const auto &[to, of] :
         {std::pair{&kScale, &whole.kScale}, std::pair{&vScale, &whole.vScale}})
      if (!of->empty())
        to->assign(of->begin() + (kvHead < 0 ? 0 : kvHead * kDim),
                   of->begin() + (kvHead < 0 ? 0 : kvHead * kDim) +
                       kvHeads * kDim);
    if (mode == Mode::KvdpCp) {
      dataPart(whole, mine / cpRanks, kvdpRanks, /*allToAll=*/true, kvHead);
      keepPositions(mine % cpRanks, cpRanks, heads * group);
      return;
    }
    if (mode == Mode::Cp)
      contextPart(whole, r, n);
    else
      dataPart(whole, mine, group, mode == Mode::KvdpAllToAll, kvHead);
  }

  /// Appends `n` values of the whole batch's caches, from `from`, to this
  /// pool's.
  void appendCache(const Batch &whole, size_t from, size_t n) {
    auto take = [&](auto &to, const auto &of) {
      to.insert(to.end(), of.begin() + long(from), of.begin() + long(from + n));
    };
    if (int8) {
      take(k8, whole.k8);
      take(v8, whole.v8);
    } else {
      take(k, whole.k);
      take(v, whole.v);
    }
  }

  /// kvdp_cp's context-parallel part, after dataPart: positions [c page /
  /// n, (c + 1) page / n) of every page of this pool, and the workspaces
  /// of the context-parallel attention of its requests (the group's
  /// `groupHeads` heads).
  void keepPositions(int64_t c, int64_t n, int64_t groupHeads) {
    const int64_t part = page / n;
    const size_t row = size_t(part * kDim), whole = size_t(page * kDim);
    auto keep = [&](auto &cache) {
      if (cache.empty())
        return;
      std::decay_t<decltype(cache)> kept;
      for (int64_t p = 0; p < pages * kvHeads; ++p) {
        auto from = cache.begin() + long(size_t(p) * whole + size_t(c) * row);
        kept.insert(kept.end(), from, from + long(row));
      }
      cache.swap(kept);
    };
    keep(k), keep(v), keep(k8), keep(v8);
    page = part;
    const int64_t requests = int64_t(ints.size()) - 1; // c of dataPart
    const int64_t row4 = seq * groupHeads * kDim, state = seq * groupHeads * 8;
    sharding2.assign(size_t(requests * row4), bf16{});
    states.assign(size_t(requests * (2 * row4 + 4 * state)), 0.f);
    ints2.assign(size_t(requests * seq), 0);
  }

  /// Context parallel: positions [r 16 / n, (r + 1) 16 / n) of every page,
  /// the whole table and kv_ids; the workspaces every q (bf16) and the
  /// softmax states (f32: the rank's and every rank's of its heads).
  void contextPart(const Batch &whole, int64_t r, int64_t n) {
    kvIds = whole.kvIds;
    table = whole.table;
    rows = batch;
    pages = whole.pages;
    page = whole.pageSize / n;
    const size_t row = size_t(page * kDim);
    for (int64_t p = 0; p < pages; ++p)
      for (int64_t h = 0; h < kKvHeads; ++h) {
        const size_t from =
            size_t(((p * kKvHeads + h) * whole.pageSize + r * page) * kDim);
        appendCache(whole, from, row);
      }
    const int64_t row4 = seq * kHeads * kDim, state = seq * kHeads * 8;
    sharding.assign(size_t(batch * row4), bf16{});
    states.assign(size_t(batch * (2 * row4 + 4 * state)), 0.f);
    ints.assign(size_t(batch * seq), 0);
  }

  /// KV data parallel: its requests' pages in a pool and a table of its
  /// own (rows and pages reversed), kv_ids naming each request's row in its
  /// own rank's table; every KV head, or KV head `kvHead` alone.
  void dataPart(const Batch &whole, int64_t r, int64_t n, bool allToAll,
                int64_t kvHead) {
    page = whole.pageSize;
    const int64_t c = (batch + n - 1) / n; // the requests of a rank
    kvIds = reversedRankRows(batch, n);
    const auto [b0, count] = rankRequests(batch, r, n);
    rows = std::max<int64_t>(count, 1);
    table.assign(size_t(rows * pagesPerRow), -1);
    std::vector<int32_t> order;
    for (int64_t j = count - 1; j >= 0; --j)
      for (int64_t p = 0; p < whole.pagesOf(b0 + j); ++p)
        order.push_back(
            whole.table[size_t(whole.kvIds[size_t(b0 + j)] * pagesPerRow + p)]);
    pages = int64_t(order.size());
    // Local page i holds global page order[pages - 1 - i].
    globalPages.assign(order.rbegin(), order.rend());
    const size_t pageBytes = size_t(kKvHeads * whole.pageSize * kDim);
    const size_t headBytes = size_t(whole.pageSize * kDim);
    int64_t next = 0;
    for (int64_t j = count - 1; j >= 0; --j)
      for (int64_t p = 0; p < whole.pagesOf(b0 + j); ++p, ++next)
        table[size_t(kvIds[size_t(b0 + j)] * pagesPerRow + p)] =
            int32_t(pages - 1 - next);
    for (int64_t i = 0; i < pages; ++i) {
      const size_t from = size_t(globalPages[size_t(i)]) * pageBytes;
      if (kvHead < 0)
        appendCache(whole, from, pageBytes);
      else
        appendCache(whole, from + size_t(kvHead) * headBytes, headBytes);
    }
    // A request's row: every head of the group (the rank's n ranks).
    const int64_t row = seq * heads * n * kDim;
    sharding.assign(size_t((allToAll ? 4 * c : batch + (n + 1) * c) * row),
                    bf16{});
    ints.assign(size_t(c + 1), 0);
  }

  // The four signatures: unsharded or sharded (the KV sharding workspace
  // before the attention's), bf16 or int8 caches (scales, three more
  // workspaces).
  using I32s = MemRef<int32_t, 1>;
  using Bf16Whole = int32_t (*)(MemRef<bf16, 4>, I32s, I32s, I32s, I32s,
                                MemRef<int32_t, 2>, MemRef<bf16, 4>,
                                MemRef<bf16, 4>, MemRef<bf16, 4>,
                                MemRef<bf16, 4>, MemRef<float, 4>,
                                MemRef<float, 3>);
  using Bf16Part = int32_t (*)(MemRef<bf16, 4>, I32s, I32s, I32s, I32s,
                               MemRef<int32_t, 2>, MemRef<bf16, 4>,
                               MemRef<bf16, 4>, MemRef<bf16, 4>,
                               MemRef<bf16, 1>, I32s, MemRef<bf16, 4>,
                               MemRef<float, 4>, MemRef<float, 3>);
  using Int8Whole = int32_t (*)(MemRef<bf16, 4>, I32s, I32s, I32s, I32s,
                                MemRef<int32_t, 2>, MemRef<int8_t, 4>,
                                MemRef<int8_t, 4>, MemRef<float, 2>,
                                MemRef<float, 2>, MemRef<bf16, 4>,
                                MemRef<bf16, 4>, MemRef<float, 4>,
                                MemRef<float, 3>, MemRef<float, 3>,
                                MemRef<float, 3>, MemRef<bf16, 3>);
  using Int8Part = int32_t (*)(
      MemRef<bf16, 4>, I32s, I32s, I32s, I32s, MemRef<int32_t, 2>,
      MemRef<int8_t, 4>, MemRef<int8_t, 4>, MemRef<float, 2>, MemRef<float, 2>,
      MemRef<bf16, 4>, MemRef<bf16, 1>, I32s, MemRef<bf16, 4>, MemRef<float, 4>,
      MemRef<float, 3>, MemRef<float, 3>, MemRef<float, 3>, MemRef<bf16, 3>);

  using Bf16KvdpCp = int32_t (*)(MemRef<bf16, 4>, I32s, I32s, I32s, I32s,
                                 MemRef<int32_t, 2>, MemRef<bf16, 4>,
                                 MemRef<bf16, 4>, MemRef<bf16, 4>,
                                 MemRef<bf16, 1>, I32s, MemRef<bf16, 1>,
                                 MemRef<float, 1>, I32s, MemRef<bf16, 4>,
                                 MemRef<float, 4>, MemRef<float, 3>);
  using Bf16Cp = int32_t (*)(MemRef<bf16, 4>, I32s, I32s, I32s, I32s,
                             MemRef<int32_t, 2>, MemRef<bf16, 4>,
                             MemRef<bf16, 4>, MemRef<bf16, 4>, MemRef<bf16, 1>,
                             MemRef<float, 1>, I32s, MemRef<bf16, 4>,
                             MemRef<float, 4>, MemRef<float, 3>);
  using Int8Cp = int32_t (*)(MemRef<bf16, 4>, I32s, I32s, I32s, I32s,
                             MemRef<int32_t, 2>, MemRef<int8_t, 4>,
                             MemRef<int8_t, 4>, MemRef<float, 2>,
                             MemRef<float, 2>, MemRef<bf16, 4>, MemRef<bf16, 1>,
                             MemRef<float, 1>, I32s, MemRef<bf16, 4>,
                             MemRef<float, 4>, MemRef<float, 3>,
                             MemRef<float, 3>, MemRef<float, 3>,
                             MemRef<bf16, 3>);

  MemRef<bf16, 4> qView() { return {q.data(), {batch, seq, heads, kDim}}; }
  MemRef<bf16, 4> outView() { return {out.data(), {batch, seq, heads, kDim}}; }
  MemRef<int32_t, 2> tableView() { return {table.data(), {rows, pagesPerRow}}; }
  template <typename T> MemRef<T, 4> cacheView(std::vector<T> &c) {
    return {c.data(), {pages, kvHeads, page, kDim}};
  }
  MemRef<float, 2> scaleView(std::vector<float> &s) {
    return {s.data(), {kvHeads, kDim}};
  }
  MemRef<bf16, 4> hView() { return {ws.h.data(), {24, int8 ? 1 : 2, 32, 128}}; }
  MemRef<float, 4> fView() { return {ws.f.data(), {24, 3, 32, 128}}; }
  MemRef<float, 3> mlView() { return {ws.ml.data(), {24, 2, 32}}; }

  int32_t call(Bf16Whole f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k), cacheView(v), outView(), hView(),
             fView(), mlView());
  }
  int32_t call(Bf16Part f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k), cacheView(v), outView(), vec(sharding),
             vec(ints), hView(), fView(), mlView());
  }
  int32_t call(Bf16KvdpCp f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k), cacheView(v), outView(), vec(sharding),
             vec(ints), vec(sharding2), vec(states), vec(ints2), hView(),
             fView(), mlView());
  }
  int32_t call(Bf16Cp f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k), cacheView(v), outView(), vec(sharding),
             vec(states), vec(ints), hView(), fView(), mlView());
  }
  int32_t call(Int8Cp f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k8), cacheView(v8), scaleView(kScale),
             scaleView(vScale), outView(), vec(sharding), vec(states),
             vec(ints), hView(), fView(), mlView(),
             {ws.q.data(), {24, 32, 128}}, {ws.k.data(), {24, 64, 128}},
             {ws.v.data(), {24, 64, 128}});
  }
  int32_t call(Int8Whole f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k8), cacheView(v8), scaleView(kScale),
             scaleView(vScale), outView(), hView(), fView(), mlView(),
             {ws.q.data(), {24, 32, 128}}, {ws.k.data(), {24, 64, 128}},
             {ws.v.data(), {24, 64, 128}});
  }
  int32_t call(Int8Part f) {
    return f(qView(), vec(kvIds), vec(kvLens), vec(qLens), vec(accum),
             tableView(), cacheView(k8), cacheView(v8), scaleView(kScale),
             scaleView(vScale), outView(), vec(sharding), vec(ints), hView(),
             fView(), mlView(), {ws.q.data(), {24, 32, 128}},
             {ws.k.data(), {24, 64, 128}}, {ws.v.data(), {24, 64, 128}});
  }
};

} // namespace kv_sharding

#endif // WSP_EXAMPLES_KV_SHARDING_HPP
