// The self-check of examples/ir/kv_store.mlir (run by `wspc --run` and the
// lit tests): the KV cache stores on ragged batches against a reference
// written here: token s of sequence b goes to position p = kv_lens[b] + s
// of cache slot kv_ids[b] (paged: page block_table[kv_ids[b], p / 16], row
// p % 16), each KV head's row of key into k_cache and of value into
// v_cache. bf16 caches hold the values bit for bit; int8 caches hold
// clamp(rint(x / scale[h, c]), -128, 127) computed here in float as the
// rule says, so they match exactly too. Every other cache entry keeps its
// sentinel. Ring caches (@store_paged_ring) put position p in page
// (p / 16) mod the row's pages. Then INVALID_PARAMS with nothing written: a page id outside the
// pool, tokens past a sequence's capacity, a slot outside the cache, more
// tokens than rows (paged), and a slot outside the cache, tokens past
// max_seq_len, more tokens than rows (contiguous).
#include "selfcheck.hpp"

using namespace selfcheck;

namespace {

constexpr int64_t kHeads = 2, kDim = 128, kBlock = 16;

std::vector<bf16> randomRows(int64_t rows, std::mt19937 &rng) {
  std::uniform_real_distribution<float> uni(-3.f, 3.f);
  std::vector<bf16> v(size_t(rows * kHeads * kDim));
  for (bf16 &x : v)
    x = toStorage(uni(rng));
  return v;
}

/// A paged batch: 3 sequences in slots 2, 0, 1 with 20, 0 and 5 tokens in
/// the cache; new tokens 7, 3, 12 (packed, 22 rows); 8 pages per slot.
struct PagedBatch {
  std::vector<int32_t> ids = {2, 0, 1}, lens = {7, 3, 12}, past = {20, 0, 5};
  std::vector<int32_t> table;
  int64_t pool = 24, rows = 22;
  PagedBatch() {
    table.resize(3 * 8);
    for (int i = 0; i < 24; ++i)
      table[size_t(i)] = (i * 7) % 24; // every page of the pool once
  }
  MemRef<int32_t, 2> tableView() { return {table.data(), {3, 8}}; }
  int64_t rowOf(size_t b, int64_t s) const {
    int64_t start = 0;
    for (size_t j = 0; j < b; ++j)
      start += lens[j];
    return start + s;
  }
};

bool same(bf16 a, bf16 b) { return a.bits == b.bits; }
bool same(int8_t a, int8_t b) { return a == b; }

/// `ring`: the block-table rows are rings of `ringPages` pages (position
/// p in page (p / 16) mod ringPages of the row).
template <typename T, typename Expect>
int64_t compareCache(const std::vector<T> &cache, T marker,
                     const PagedBatch &batch, bool paged, int64_t seqLen,
                     Expect expect, int64_t ringPages = 0) {
  std::vector<bool> written(cache.size(), false);
  int64_t wrong = 0;
  for (size_t b = 0; b < batch.lens.size(); ++b)
    for (int64_t s = 0; s < batch.lens[b]; ++s) {
      int64_t p = batch.past[b] + s, slot = batch.ids[b];
      for (int64_t h = 0; h < kHeads; ++h)
        for (int64_t c = 0; c < kDim; ++c) {
          size_t at;
          if (paged) {
            int64_t pg = ringPages ? (p / kBlock) % ringPages : p / kBlock;
            int64_t page = batch.table[size_t(slot * 8 + pg)];
            at = size_t(((page * kHeads + h) * kBlock + p % kBlock) * kDim + c);
          } else {
            at = size_t(((slot * kHeads + h) * seqLen + p) * kDim + c);
          }
          written[at] = true;
          wrong += !same(cache[at], expect(batch.rowOf(b, s), h, c));
        }
    }
  for (size_t i = 0; i < cache.size(); ++i)
    if (!written[i])
      wrong += !same(cache[i], marker);
  return wrong;
}

/// bf16 paged caches holding the sentinel, and a run of store_paged on
/// them.
struct PagedCaches {
  std::vector<bf16> k, v;
  explicit PagedCaches(const PagedBatch &batch)
      : k(size_t(batch.pool * kHeads * kBlock * kDim), sentinel()), v(k) {}
  int32_t store(PagedBatch &batch, std::vector<bf16> &key,
                std::vector<bf16> &value) {
    return wsp_gen::store_paged(
        MemRef<bf16, 3>{key.data(), {batch.rows, kHeads, kDim}},
        MemRef<bf16, 3>{value.data(), {batch.rows, kHeads, kDim}},
        batch.tableView(), vec(batch.ids), vec(batch.lens), vec(batch.past),
        MemRef<bf16, 4>{k.data(), {batch.pool, kHeads, kBlock, kDim}},
        MemRef<bf16, 4>{v.data(), {batch.pool, kHeads, kBlock, kDim}});
  }
};

bool checkPaged(std::mt19937 &rng) {
  PagedBatch batch;
  std::vector<bf16> key = randomRows(batch.rows, rng);
  std::vector<bf16> value = randomRows(batch.rows, rng);
  PagedCaches caches(batch);
  int32_t status = caches.store(batch, key, value);
  auto from = [](const std::vector<bf16> &x) {
    return [&x](int64_t row, int64_t h, int64_t c) {
      return x[size_t((row * kHeads + h) * kDim + c)];
    };
  };
  int64_t wrong =
      compareCache(caches.k, sentinel(), batch, true, 0, from(key)) +
      compareCache(caches.v, sentinel(), batch, true, 0, from(value));
  bool ok = status == 0 && wrong == 0;
  std::printf("paged bf16: %s (status %d, %lld cache values differ)\n",
              ok ? "ok" : "MISMATCH", status, (long long)wrong);
  return ok;
}

/// Ring caches: rows of 8 pages (128 positions) written past their end.
/// Sequence 0 (past 300) lands at slots 44-50 of its ring, sequence 1
/// (past 126) wraps within the step (slots 126, 127, 0), sequence 2 has
/// not wrapped yet. Then a step longer than its ring (rows of one page,
/// 16 positions, and 17 tokens) is INVALID_PARAMS with nothing written.
bool checkPagedRing(std::mt19937 &rng) {
  PagedBatch batch;
  batch.past = {300, 126, 5};
  std::vector<bf16> key = randomRows(batch.rows, rng);
  std::vector<bf16> value = randomRows(batch.rows, rng);
  PagedCaches caches(batch);
  auto store = [&](PagedBatch &b, PagedCaches &c, int64_t pages) {
    return wsp_gen::store_paged_ring(
        MemRef<bf16, 3>{key.data(), {b.rows, kHeads, kDim}},
        MemRef<bf16, 3>{value.data(), {b.rows, kHeads, kDim}},
        MemRef<int32_t, 2>{b.table.data(), {3, pages}}, vec(b.ids),
        vec(b.lens), vec(b.past),
        MemRef<bf16, 4>{c.k.data(), {b.pool, kHeads, kBlock, kDim}},
        MemRef<bf16, 4>{c.v.data(), {b.pool, kHeads, kBlock, kDim}});
  };
  int32_t status = store(batch, caches, 8);
  auto from = [](const std::vector<bf16> &x) {
    return [&x](int64_t row, int64_t h, int64_t c) {
      return x[size_t((row * kHeads + h) * kDim + c)];
    };
  };
  int64_t wrong =
      compareCache(caches.k, sentinel(), batch, true, 0, from(key), 8) +
      compareCache(caches.v, sentinel(), batch, true, 0, from(value), 8);
  bool ok = status == 0 && wrong == 0;
  std::printf("paged bf16 ring: %s (status %d, %lld cache values differ)\n",
              ok ? "ok" : "MISMATCH", status, (long long)wrong);
  PagedBatch small;
  small.lens = {17, 3, 2};
  small.table = {0, 7, 14};
  PagedCaches untouched(small);
  ok = reportInvalid("ring: a step's 17 tokens into a ring of 16",
                     store(small, untouched, 1),
                     allSentinel(untouched.k) && allSentinel(untouched.v),
                     "caches") &&
       ok;
  return ok;
}

/// Per-channel int8 cache scales, and the rule a cache value follows.
struct Int8Scales {
  std::vector<float> k = std::vector<float>(kHeads * kDim),
                     v = std::vector<float>(kHeads * kDim);
  explicit Int8Scales(std::mt19937 &rng) {
    std::uniform_real_distribution<float> uni(0.005f, 0.04f);
    for (float &x : k)
      x = uni(rng);
    for (float &x : v)
      x = uni(rng);
  }
  static auto quant(const std::vector<bf16> &x, const std::vector<float> &sc) {
    return [&x, &sc](int64_t row, int64_t h, int64_t c) {
      float q =
          std::nearbyint(toFloat(x[size_t((row * kHeads + h) * kDim + c)]) /
                         sc[size_t(h * kDim + c)]);
      return int8_t(std::clamp(q, -128.f, 127.f));
    };
  }
};

bool checkPagedInt8(std::mt19937 &rng) {
  PagedBatch batch;
  std::vector<bf16> key = randomRows(batch.rows, rng);
  std::vector<bf16> value = randomRows(batch.rows, rng);
  Int8Scales scales(rng);
  std::vector<int8_t> kc(size_t(batch.pool * kHeads * kBlock * kDim), 99);
  std::vector<int8_t> vc = kc;
  int32_t status = wsp_gen::store_paged_int8(
      MemRef<bf16, 3>{key.data(), {batch.rows, kHeads, kDim}},
      MemRef<bf16, 3>{value.data(), {batch.rows, kHeads, kDim}},
      batch.tableView(), vec(batch.ids), vec(batch.lens), vec(batch.past),
      MemRef<float, 2>{scales.k.data(), {kHeads, kDim}},
      MemRef<float, 2>{scales.v.data(), {kHeads, kDim}},
      MemRef<int8_t, 4>{kc.data(), {batch.pool, kHeads, kBlock, kDim}},
      MemRef<int8_t, 4>{vc.data(), {batch.pool, kHeads, kBlock, kDim}});
  int64_t wrong = compareCache(kc, int8_t(99), batch, true, 0,
                               Int8Scales::quant(key, scales.k)) +
                  compareCache(vc, int8_t(99), batch, true, 0,
                               Int8Scales::quant(value, scales.v));
  bool ok = status == 0 && wrong == 0;
  std::printf("paged int8: %s (status %d, %lld cache values differ)\n",
              ok ? "ok" : "MISMATCH", status, (long long)wrong);
  return ok;
}

bool checkContiguous(std::mt19937 &rng) {
  PagedBatch batch; // slots 2, 0, 1; one new token each
  batch.lens = {1, 1, 1};
  batch.rows = 3;
  const int64_t seqLen = 64, maxBatch = 4;
  std::vector<bf16> key = randomRows(3, rng), value = randomRows(3, rng);
  std::vector<bf16> kc(size_t(maxBatch * kHeads * seqLen * kDim), sentinel());
  std::vector<bf16> vc = kc;
  int32_t status = wsp_gen::store_contiguous(
      MemRef<bf16, 4>{key.data(), {3, 1, kHeads, kDim}},
      MemRef<bf16, 4>{value.data(), {3, 1, kHeads, kDim}}, vec(batch.ids),
      vec(batch.lens), vec(batch.past),
      MemRef<bf16, 4>{kc.data(), {maxBatch, kHeads, seqLen, kDim}},
      MemRef<bf16, 4>{vc.data(), {maxBatch, kHeads, seqLen, kDim}});
  auto from = [](const std::vector<bf16> &x) {
    return [&x](int64_t row, int64_t h, int64_t c) {
      return x[size_t((row * kHeads + h) * kDim + c)];
    };
  };
  int64_t wrong =
      compareCache(kc, sentinel(), batch, false, seqLen, from(key)) +
      compareCache(vc, sentinel(), batch, false, seqLen, from(value));
  bool ok = status == 0 && wrong == 0;
  std::printf("contiguous decode: %s (status %d, %lld cache values differ)\n",
              ok ? "ok" : "MISMATCH", status, (long long)wrong);
  return ok;
}

/// int8 contiguous caches of `maxBatch` slots of kSeqLen positions holding
/// 99, and a run of store_contiguous_int8 of `batch` (packed) on them.
struct ContiguousInt8 {
  static constexpr int64_t kSeqLen = 64, kMaxBatch = 4;
  std::vector<int8_t> k = std::vector<int8_t>(
                          size_t(kMaxBatch * kHeads * kSeqLen * kDim), 99),
                      v = k;
  int32_t store(PagedBatch &batch, std::vector<bf16> &key,
                std::vector<bf16> &value, Int8Scales &scales) {
    return wsp_gen::store_contiguous_int8(
        MemRef<bf16, 3>{key.data(), {batch.rows, kHeads, kDim}},
        MemRef<bf16, 3>{value.data(), {batch.rows, kHeads, kDim}},
        vec(batch.ids), vec(batch.lens), vec(batch.past),
        MemRef<float, 2>{scales.k.data(), {kHeads, kDim}},
        MemRef<float, 2>{scales.v.data(), {kHeads, kDim}},
        MemRef<int8_t, 4>{k.data(), {kMaxBatch, kHeads, kSeqLen, kDim}},
        MemRef<int8_t, 4>{v.data(), {kMaxBatch, kHeads, kSeqLen, kDim}});
  }
  bool untouched() const {
    return std::all_of(k.begin(), k.end(), [](int8_t x) { return x == 99; }) &&
           std::all_of(v.begin(), v.end(), [](int8_t x) { return x == 99; });
  }
};

bool checkContiguousInt8(std::mt19937 &rng) {
  PagedBatch batch; // slots 2, 0, 1; 7, 3, 12 new tokens after 20, 0, 5
  std::vector<bf16> key = randomRows(batch.rows, rng);
  std::vector<bf16> value = randomRows(batch.rows, rng);
  Int8Scales scales(rng);
  ContiguousInt8 caches;
  int32_t status = caches.store(batch, key, value, scales);
  const int64_t seqLen = ContiguousInt8::kSeqLen;
  int64_t wrong = compareCache(caches.k, int8_t(99), batch, false, seqLen,
                               Int8Scales::quant(key, scales.k)) +
                  compareCache(caches.v, int8_t(99), batch, false, seqLen,
                               Int8Scales::quant(value, scales.v));
  bool ok = status == 0 && wrong == 0;
  std::printf("contiguous packed int8: %s (status %d, %lld cache values "
              "differ)\n",
              ok ? "ok" : "MISMATCH", status, (long long)wrong);
  return ok;
}

/// A way to break a valid batch, and its name.
struct Spoil {
  const char *what;
  void (*apply)(PagedBatch &);
};

/// For each spoiled batch, `store(batch, key, value)` must return
/// INVALID_PARAMS and say that the caches are untouched.
template <typename Store>
bool checkInvalid(std::mt19937 &rng, std::initializer_list<Spoil> spoils,
                  Store store) {
  bool ok = true;
  for (const Spoil &spoil : spoils) {
    PagedBatch batch;
    spoil.apply(batch);
    std::vector<bf16> key = randomRows(batch.rows, rng), value = key;
    bool untouched = false;
    int32_t status = store(batch, key, value, untouched);
    ok = reportInvalid(spoil.what, status, untouched, "caches") && ok;
  }
  return ok;
}

bool checkInvalidPaged(std::mt19937 &rng) {
  return checkInvalid(
      rng,
      {{"page id outside the pool",
        [](PagedBatch &b) { b.table[size_t(2 * 8 + 1)] = 24; }},
       {"tokens past the capacity",
        [](PagedBatch &b) { b.past[0] = 8 * kBlock - 3; }},
       {"slot outside the block table", [](PagedBatch &b) { b.ids[1] = 3; }},
       {"more tokens than rows", [](PagedBatch &b) { b.lens[2] = 13; }}},
      [](PagedBatch &batch, std::vector<bf16> &key, std::vector<bf16> &value,
         bool &untouched) {
        PagedCaches caches(batch);
        int32_t status = caches.store(batch, key, value);
        untouched = allSentinel(caches.k) && allSentinel(caches.v);
        return status;
      });
}

bool checkInvalidContiguous(std::mt19937 &rng) {
  return checkInvalid(rng,
                      {{"contiguous: slot outside the cache",
                        [](PagedBatch &b) { b.ids[1] = 4; }},
                       {"contiguous: tokens past max_seq_len",
                        [](PagedBatch &b) { b.past[2] = 53; }},
                       {"contiguous: more tokens than rows",
                        [](PagedBatch &b) { b.lens[0] = 8; }}},
                      [&rng](PagedBatch &batch, std::vector<bf16> &key,
                             std::vector<bf16> &value, bool &untouched) {
                        Int8Scales scales(rng);
                        ContiguousInt8 caches;
                        int32_t status =
                            caches.store(batch, key, value, scales);
                        untouched = caches.untouched();
                        return status;
                      });
}

} // namespace

int main() {
  std::mt19937 rng(2030);
  bool ok = checkPaged(rng);
  ok = checkPagedRing(rng) && ok;
  ok = checkPagedInt8(rng) && ok;
  ok = checkContiguous(rng) && ok;
  ok = checkContiguousInt8(rng) && ok;
  ok = checkInvalidPaged(rng) && ok;
  ok = checkInvalidContiguous(rng) && ok;
  return ok ? 0 : 1;
}
