// The self-check of examples/ir/kv_sharding.mlir: decode attention with
// its KV cache spread over N ranks (seed 003), against the unsharded
// attention.
//
// Each case draws a whole batch (ragged KV lengths, pages of 16 positions
// in a shuffled pool, kv_ids a permutation of the table's rows), runs the
// unsharded @attend_* on it, then gives each rank r its part: the query
// heads [r H / N, (r + 1) H / N) of every request, and
// - KV data parallelism: the requests [r c, min(B, (r + 1) c)),
//   c = ceil(B / N), copied into a pool and a table of its own (pages and
//   rows in another order than the whole batch's). Every rank's out must
//   hold the unsharded out's values of its heads bit for bit: the rank's
//   attention attends its requests with every head of the group, in the
//   units and chunks the unsharded attention uses (the chunk is planned
//   for the whole batch), so each value is computed by the same
//   operations in the same order.
// - context parallelism: positions [r 16 / N, (r + 1) 16 / N) of every
//   page, the same table. Every rank's out must be within the bound below
//   of a naive reference (double precision, from the same stored values):
//   the kernels round the probabilities to bf16 before P V (a relative
//   2^-8 each, so at most 2^-8 max |v| on the weighted mean) and the
//   output to bf16 once (2^-8 |out|); f32 sums add far less (a 2^-6 margin
//   on both terms covers them). The unsharded attention is held to the
//   same bound, and the largest difference between the two is printed.
//
// Errors end the step on every rank with nothing written: a workspace too
// small on one rank, a request longer than its table on rank 0, an
// accum_q_len that is not a decode batch's, a grid of 4 run on 2 ranks.
//
// In one process (pto::runtime::comm::ThreadGroup, one thread per rank) on
// 1, 2 and 4 ranks, and, started by `mpirun -np N` (built with MPI:
// WSP_WITH_MPI), on N processes: the functions of N ranks.
#include "kv_sharding.hpp"
#include "ranks.hpp"

#include <cstdlib>
#include <functional>
#include <memory>

using namespace selfcheck;
using namespace kv_sharding;

namespace {

/// A sharded function and the unsharded one it must match.
template <typename Whole, typename Part> struct Case {
  const char *name;
  int64_t ranks, seq;
  bool int8;
  Mode mode;
  Whole whole;
  Part part;
  int64_t kvGroups = 1; // a grid of kvGroups x (ranks / kvGroups) (Args)
};
template <typename Whole, typename Part>
Case<Whole *, Part *> makeCase(const char *name, int64_t ranks, int64_t seq,
                               bool int8, Mode mode, Whole &whole, Part &part,
                               int64_t kvGroups = 1) {
  return {name, ranks, seq, int8, mode, &whole, &part, kvGroups};
}

/// The attention of the whole batch in double precision, from the stored
/// values: out[b][s][h][d], and per (b, s, h) the largest |v| it weighs.
struct Reference {
  std::vector<double> out, vmax;
  explicit Reference(const Batch &w) {
    const int64_t group = kHeads / kKvHeads;
    out.assign(size_t(w.batch * w.seq * kHeads * kDim), 0);
    vmax.assign(size_t(w.batch * w.seq * kHeads), 0);
    auto at = [&](int64_t b, int64_t p, int64_t kvh, int64_t d) {
      const int64_t page =
          w.table[size_t(w.kvIds[size_t(b)] * w.pagesPerRow + p / w.pageSize)];
      return size_t(
          ((page * kKvHeads + kvh) * w.pageSize + p % w.pageSize) * kDim + d);
    };
    auto key = [&](int64_t b, int64_t p, int64_t kvh, int64_t d) {
      return w.int8 ? double(w.k8[at(b, p, kvh, d)]) *
                          w.kScale[size_t(kvh * kDim + d)]
                    : double(toFloat(w.k[at(b, p, kvh, d)]));
    };
    auto value = [&](int64_t b, int64_t p, int64_t kvh, int64_t d) {
      return w.int8 ? double(w.v8[at(b, p, kvh, d)]) *
                          w.vScale[size_t(kvh * kDim + d)]
                    : double(toFloat(w.v[at(b, p, kvh, d)]));
    };
    for (int64_t b = 0; b < w.batch; ++b)
      for (int64_t s = 0; s < w.seq; ++s)
        for (int64_t h = 0; h < kHeads; ++h) {
          const int64_t kvh = h / group, seen = w.kvLens[size_t(b)] + s + 1;
          const size_t row = size_t((b * w.seq + s) * kHeads + h);
          std::vector<double> score(static_cast<size_t>(seen));
          double top = -1e300;
          for (int64_t p = 0; p < seen; ++p) {
            double dot = 0;
            for (int64_t d = 0; d < kDim; ++d)
              dot += double(toFloat(w.q[row * kDim + size_t(d)])) *
                     key(b, p, kvh, d);
            score[size_t(p)] = dot / std::sqrt(double(kDim));
            top = std::max(top, score[size_t(p)]);
          }
          double sum = 0;
          for (double &x : score)
            sum += (x = std::exp(x - top));
          for (int64_t p = 0; p < seen; ++p)
            for (int64_t d = 0; d < kDim; ++d) {
              const double v = value(b, p, kvh, d);
              out[row * kDim + size_t(d)] += score[size_t(p)] / sum * v;
              vmax[row] = std::max(vmax[row], std::fabs(v));
            }
        }
  }
  /// |got - ref| / the bound of the file comment, at (row, d).
  double ratio(float got, size_t row, int64_t d) const {
    const double ref = out[row * kDim + size_t(d)];
    const double bound =
        std::ldexp(vmax[row] + std::fabs(ref), -8) * (1 + 0x1p-6) +
        kSubnormalRounding;
    return std::fabs(double(got) - ref) / bound;
  }
};

/// One batch: the unsharded out, then every rank's, compared bit for bit.
template <typename C>
bool checkBatch(Ranks &ranks, const C &c, int64_t batch,
                bool longRows = false) {
  // Long rows: 16 x 33000 positions cut into chunks of 256 are 2064 units
  // per KV head, more than the attention's 4096 for two: the whole batch
  // plans a larger chunk than a rank's quarter of it would on its own.
  const Batch whole = longRows ? Batch(batch, c.seq, c.int8, 4242, 33000, 33100)
                               : Batch(batch, c.seq, c.int8,
                                       unsigned(1000 + batch * 7 + c.seq));
  Args ref(whole);
  bool ok = true;
  {
    // The unsharded attention, on one rank alone.
    comm::SoloCommunicator solo;
    comm::CurrentCommunicator scope(solo);
    ok = ref.call(c.whole) == 0;
  }
  std::vector<Args> parts;
  for (int64_t r = 0; r < c.ranks; ++r)
    parts.emplace_back(whole, r, c.ranks, c.mode, c.kvGroups);
  std::vector<int32_t> status(size_t(c.ranks), -1);
  ranks.run([&](int r) { status[size_t(r)] = parts[size_t(r)].call(c.part); });
  const int64_t local = kHeads / c.ranks;
  const bool exact = c.mode != Mode::Cp && c.mode != Mode::KvdpCp;
  std::unique_ptr<Reference> naive;
  if (!exact)
    naive = std::make_unique<Reference>(whole);
  int64_t mismatches = 0;
  double worst = 0, worstWhole = 0, apart = 0;
  for (int64_t r = 0; r < c.ranks; ++r) {
    if (!ranks.local(r))
      continue;
    ok = status[size_t(r)] == 0 && ok;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < c.seq; ++s)
        for (int64_t h = 0; h < local; ++h)
          for (int64_t d = 0; d < kDim; ++d) {
            const bf16 got =
                parts[size_t(r)]
                    .out[size_t(((b * c.seq + s) * local + h) * kDim + d)];
            const size_t row = size_t((b * c.seq + s) * kHeads +
                                      parts[size_t(r)].firstHead + h);
            const bf16 want = ref.out[row * kDim + size_t(d)];
            if (exact) {
              mismatches +=
                  got.bits != want.bits || got.bits == sentinel().bits;
              continue;
            }
            mismatches += got.bits == sentinel().bits;
            worst = std::fmax(worst, naive->ratio(toFloat(got), row, d));
            worstWhole =
                std::fmax(worstWhole, naive->ratio(toFloat(want), row, d));
            apart = std::fmax(apart,
                              std::fabs(double(toFloat(got) - toFloat(want))));
          }
  }
  if (!exact)
    ok = ok && worst <= 1 && worstWhole <= 1;
  ok = ranks.all(ok && mismatches == 0);
  if (ranks.local(0)) {
    std::printf("%s B=%lld%s on %lld ranks: %s ", c.name, (long long)batch,
                longRows ? " of 33000 positions each" : "", (long long)c.ranks,
                ok ? "ok" : "MISMATCH");
    if (exact)
      std::printf("(bit-equal to the unsharded attention: %s)\n",
                  mismatches ? "NO" : "yes");
    else
      std::printf("(max err / bound %.3f, unsharded %.3f; largest difference "
                  "from the unsharded attention %.2g)\n",
                  worst, worstWhole, apart);
  }
  return ok;
}

/// A step that must fail on every rank with no out written. `spoil`
/// changes rank r's arguments before the run: those of rank `only`, or of
/// every rank when it is -1. On a grid of KV groups only the spoiled
/// rank's group shares its calls, so only that group fails; the others
/// attend their requests.
template <typename C>
bool checkError(Ranks &ranks, const C &c, const char *what, int64_t only,
                const std::function<void(Args &, int64_t)> &spoil) {
  const Batch whole(6, c.seq, c.int8, 77);
  std::vector<Args> parts;
  for (int64_t r = 0; r < ranks.count; ++r) {
    parts.emplace_back(whole, r, c.ranks, c.mode, c.kvGroups);
    spoil(parts.back(), r);
  }
  std::vector<int32_t> status(size_t(ranks.count), -1);
  ranks.run([&](int r) { status[size_t(r)] = parts[size_t(r)].call(c.part); });
  const int64_t group = c.ranks / c.kvGroups;
  auto fails = [&](int64_t r) {
    return only < 0 || c.kvGroups == 1 || r / group == only / group;
  };
  bool ok = true;
  for (int64_t r = 0; r < ranks.count; ++r)
    if (ranks.local(r))
      ok = ok &&
           (fails(r)
                ? status[size_t(r)] == 3 && allSentinel(parts[size_t(r)].out)
                : status[size_t(r)] == 0 && !allSentinel(parts[size_t(r)].out));
  ok = ranks.all(ok);
  if (ranks.local(0))
    std::printf("%s: %s on %lld ranks: %s (INVALID_PARAMS on every rank%s, "
                "out untouched)\n",
                c.name, what, (long long)ranks.count, ok ? "ok" : "MISMATCH",
                only >= 0 && c.kvGroups > 1 ? " of its group" : "");
  return ok;
}

template <typename C> bool checkCase(Ranks &ranks, const C &c) {
  bool ok = true;
  if (ranks.count == c.ranks) {
    for (int64_t batch : {1, 2, 3, 5, 8, 13, 16})
      ok = checkBatch(ranks, c, batch) && ok;
    if (c.int8 && c.ranks == 4 && c.mode == Mode::Kvdp)
      ok = checkBatch(ranks, c, 16, /*longRows=*/true) && ok;
    if (c.ranks > 1) {
      ok = checkError(ranks, c, "a workspace too small on the last rank",
                      c.ranks - 1,
                      [&](Args &a, int64_t r) {
                        if (r == c.ranks - 1)
                          a.sharding.resize(a.sharding.size() - 1);
                      }) &&
           ok;
      ok = checkError(ranks, c, "a request longer than its table on rank 0", 0,
                      [](Args &a, int64_t r) {
                        if (r == 0)
                          a.kvLens[0] = int32_t(a.pagesPerRow * 16);
                      }) &&
           ok;
      ok = checkError(ranks, c, "an accum_q_len not of a decode batch", -1,
                      [](Args &a, int64_t) { a.accum[3] += 1; }) &&
           ok;
    }
  } else if (c.ranks == 4 && ranks.count == 2) {
    ok = checkError(ranks, c, "a grid of 4", -1, [](Args &, int64_t) {}) && ok;
  }
  return ok;
}

/// A store step's tokens: 1 to `seq` per request of `whole`, their keys and
/// values, and the unsharded cache after @store_whole stored them.
struct StoreStep {
  std::vector<int32_t> qLens;
  int64_t tokenCount = 0;
  std::vector<bf16> key, val;
  Args ref;
  bool stored;

  StoreStep(const Batch &whole, int64_t seq, unsigned seed) : ref(whole) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-1, 1);
    qLens.resize(size_t(whole.batch));
    for (int32_t &q : qLens) {
      q = 1 + int32_t(rng() % uint32_t(seq));
      tokenCount += q;
    }
    for (int64_t i = 0; i < tokenCount * kKvHeads * kDim; ++i) {
      key.push_back(toStorage(value(rng)));
      val.push_back(toStorage(value(rng)));
    }
    comm::SoloCommunicator solo;
    comm::CurrentCommunicator scope(solo);
    std::vector<int32_t> lens = qLens, past = whole.kvLens;
    stored =
        wsp_gen::store_whole(tokens(key), tokens(val), ref.tableView(),
                             vec(ref.kvIds), vec(lens), vec(past),
                             ref.cacheView(ref.k), ref.cacheView(ref.v)) == 0;
  }
  MemRef<bf16, 3> tokens(std::vector<bf16> &v) const {
    return {v.data(), {tokenCount, kKvHeads, kDim}};
  }

  /// The values where rank part `a`'s pool differs from the unsharded
  /// store's cache (or, `untouched`, from its pool `before` the step and
  /// the batch's values): its pool holds positions [part a.page, (part +
  /// 1) a.page) of each page, its page p the whole pool's page global(p).
  template <typename Global>
  int64_t mismatches(const Args &a, const Batch &whole,
                     const std::vector<bf16> &before, int64_t part,
                     bool untouched, Global global) const {
    int64_t count = 0;
    for (int64_t p = 0; p < a.pages; ++p)
      for (int64_t h = 0; h < kKvHeads; ++h)
        for (int64_t i = 0; i < a.page * kDim; ++i) {
          const size_t local = size_t((p * kKvHeads + h) * a.page * kDim + i);
          const size_t at = size_t(
              ((global(p) * kKvHeads + h) * whole.pageSize + part * a.page) *
                  kDim +
              i);
          const bf16 k = untouched ? before[local] : ref.k[at];
          const bf16 v = untouched ? whole.v[at] : ref.v[at];
          count += a.k[local].bits != k.bits || a.v[local].bits != v.bits;
        }
    return count;
  }
};

/// The context-parallel store on 4 ranks of the step's tokens, 1 to `seq`
/// per request (decode, or a chunk of prefill whose tokens span several
/// blocks): each rank's pool after the step must hold the unsharded cache's
/// bits at every position of its part of every page (each token stored by
/// the rank that holds its position, nothing else changed). With `bad`, the
/// lengths ask for one token more than there are: every rank fails with
/// nothing stored.
bool checkStore(Ranks &ranks, int64_t batch, int64_t seq, bool bad) {
  constexpr int64_t n = 4;
  const Batch whole(batch, seq, false, unsigned(3000 + 7 * batch + seq));
  StoreStep step(whole, seq, static_cast<unsigned>(batch * 131 + seq));
  std::vector<int32_t> qLens = step.qLens, kvLens = whole.kvLens;
  const int64_t tokenCount = step.tokenCount;
  if (bad)
    qLens[0] += 1; // one token more than the step has
  bool ok = bad || step.stored;
  std::vector<Args> parts;
  for (int64_t r = 0; r < n; ++r) {
    parts.emplace_back(whole, r, n, Mode::Cp);
    // The rows of the rank's runs: 4 R + 1 values, R <= 2 B + T / (N bs).
    const int64_t runs = 2 * batch + tokenCount / (n * parts.back().page);
    parts.back().ints.assign(size_t(4 * runs + 1), 0);
  }
  std::vector<std::vector<bf16>> before;
  for (const Args &a : parts)
    before.push_back(a.k);
  std::vector<int32_t> status(size_t(n), -1);
  ranks.run([&](int r) {
    Args &a = parts[size_t(r)];
    std::vector<int32_t> lens = qLens, past = kvLens;
    status[size_t(r)] =
        wsp_gen::cp4_store(step.tokens(step.key), step.tokens(step.val),
                           a.tableView(), vec(a.kvIds), vec(lens), vec(past),
                           a.cacheView(a.k), a.cacheView(a.v), vec(a.ints));
  });
  int64_t mismatches = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (!ranks.local(r))
      continue;
    ok = ok && status[size_t(r)] == (bad ? 3 : 0);
    mismatches += step.mismatches(parts[size_t(r)], whole, before[size_t(r)], r,
                                  bad, [](int64_t p) { return p; });
  }
  ok = ranks.all(ok && mismatches == 0);
  if (ranks.local(0))
    std::printf("cp4_store B=%lld, 1-%lld tokens each%s on %lld ranks: %s "
                "(%s)\n",
                (long long)batch, (long long)seq,
                bad ? ", lengths past the tokens" : "", (long long)n,
                ok ? "ok" : "MISMATCH",
                bad ? "INVALID_PARAMS on every rank, nothing stored"
                    : "every rank's part of every page as the unsharded "
                      "store's");
  return ok;
}

/// kvdp_cp's store on the 2 x 2 grid, 1 to `seq` tokens per request:
/// rank (d, c)'s pool after the step must hold the unsharded cache's bits
/// at its part c of every page of its requests (half d). With `bad`, the
/// last request asks for one token more than there are: the ranks of its
/// half fail with nothing stored (they alone see it: a store exchanges
/// nothing), the others store their requests' tokens.
bool checkKvdpCpStore(Ranks &ranks, int64_t batch, int64_t seq, bool bad) {
  constexpr int64_t n = 4;
  const Batch whole(batch, seq, false, unsigned(5000 + 7 * batch + seq));
  StoreStep step(whole, seq, static_cast<unsigned>(batch * 17 + seq));
  std::vector<int32_t> qLens = step.qLens, kvLens = whole.kvLens;
  const int64_t tokenCount = step.tokenCount;
  bool ok = step.stored;
  std::vector<Args> parts;
  for (int64_t r = 0; r < n; ++r) {
    parts.emplace_back(whole, r, n, Mode::KvdpCp);
    // The rows of the rank's runs (4 R + 1 values): at most a run per
    // request and block boundary.
    parts.back().ints.assign(size_t(4 * (2 * batch + tokenCount) + 1), 0);
  }
  if (bad)
    qLens[size_t(batch - 1)] += 1; // one token more than the step has
  // The ranks that see the bad request: its half of the batch.
  const int64_t half = (batch + 1) / 2, failing = (batch - 1) / half;
  std::vector<std::vector<bf16>> before;
  for (const Args &a : parts)
    before.push_back(a.k);
  std::vector<int32_t> status(size_t(n), -1);
  ranks.run([&](int r) {
    Args &a = parts[size_t(r)];
    std::vector<int32_t> lens = qLens, past = kvLens;
    status[size_t(r)] = wsp_gen::kvdp2_cp2_store(
        step.tokens(step.key), step.tokens(step.val), a.tableView(),
        vec(a.kvIds), vec(lens), vec(past), a.cacheView(a.k), a.cacheView(a.v),
        vec(a.ints));
  });
  int64_t mismatches = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (!ranks.local(r))
      continue;
    const Args &a = parts[size_t(r)];
    const bool fails = bad && r / 2 == failing;
    ok = ok && status[size_t(r)] == (fails ? 3 : 0);
    // Its part of a block: r % 2; its pages: its requests'.
    mismatches += step.mismatches(
        a, whole, before[size_t(r)], r % 2, fails,
        [&](int64_t p) { return int64_t(a.globalPages[size_t(p)]); });
  }
  ok = ranks.all(ok && mismatches == 0);
  if (ranks.local(0))
    std::printf("kvdp2_cp2_store B=%lld, 1-%lld tokens each%s on %lld ranks: "
                "%s (%s)\n",
                (long long)batch, (long long)seq,
                bad ? ", the last request past the tokens" : "", (long long)n,
                ok ? "ok" : "MISMATCH",
                bad ? "INVALID_PARAMS on the ranks of its half, nothing "
                      "stored; the others' parts as the unsharded store's"
                    : "every rank's part of its requests' pages as the "
                      "unsharded store's");
  return ok;
}

bool checkAll(Ranks &ranks) {
  const Mode kvdp = Mode::Kvdp, toAll = Mode::KvdpAllToAll, cp = Mode::Cp,
             kvdpCp = Mode::KvdpCp;
  bool ok = true;
  ok = checkCase(ranks, makeCase("kvdp1_q1", 1, 1, false, kvdp,
                                 wsp_gen::attend_q1, wsp_gen::kvdp1_q1)) &&
       ok;
  ok = checkCase(ranks, makeCase("kvdp2_q1", 2, 1, false, kvdp,
                                 wsp_gen::attend_q1, wsp_gen::kvdp2_q1)) &&
       ok;
  ok = checkCase(ranks, makeCase("kvdp4_q1", 4, 1, false, kvdp,
                                 wsp_gen::attend_q1, wsp_gen::kvdp4_q1)) &&
       ok;
  ok = checkCase(ranks, makeCase("tp4_kvdp2_q1 (2 x 2 grid)", 4, 1, false, kvdp,
                                 wsp_gen::attend_q1, wsp_gen::tp4_kvdp2_q1,
                                 /*kvGroups=*/2)) &&
       ok;
  ok = checkCase(ranks, makeCase("kvdp2_q3", 2, 3, false, kvdp,
                                 wsp_gen::attend_q3, wsp_gen::kvdp2_q3)) &&
       ok;
  ok = checkCase(ranks, makeCase("kvdp4_q3 (all_to_all)", 4, 3, false, toAll,
                                 wsp_gen::attend_q3, wsp_gen::kvdp4_q3)) &&
       ok;
  ok = checkCase(ranks,
                 makeCase("kvdp2_int8_q2 (all_to_all)", 2, 2, true, toAll,
                          wsp_gen::attend_int8_q2, wsp_gen::kvdp2_int8_q2)) &&
       ok;
  ok = checkCase(ranks,
                 makeCase("kvdp4_int8_q2", 4, 2, true, kvdp,
                          wsp_gen::attend_int8_q2, wsp_gen::kvdp4_int8_q2)) &&
       ok;
  ok = checkCase(ranks,
                 makeCase("kvdp2_cp2_q1 (2 x 2 grid)", 4, 1, false, kvdpCp,
                          wsp_gen::attend_q1, wsp_gen::kvdp2_cp2_q1)) &&
       ok;
  ok = checkCase(ranks, makeCase("tp2_kvdp2_cp2_q1 (2 x 2 x 2 grid)", 8, 1,
                                 false, kvdpCp, wsp_gen::attend_q1,
                                 wsp_gen::tp2_kvdp2_cp2_q1, /*kvGroups=*/2)) &&
       ok;
  ok = checkCase(ranks, makeCase("cp2_q1", 2, 1, false, cp, wsp_gen::attend_q1,
                                 wsp_gen::cp2_q1)) &&
       ok;
  ok = checkCase(ranks, makeCase("cp4_q1", 4, 1, false, cp, wsp_gen::attend_q1,
                                 wsp_gen::cp4_q1)) &&
       ok;
  ok = checkCase(ranks, makeCase("cp4_q3", 4, 3, false, cp, wsp_gen::attend_q3,
                                 wsp_gen::cp4_q3)) &&
       ok;
  ok = checkCase(ranks,
                 makeCase("cp2_int8_q2", 2, 2, true, cp,
                          wsp_gen::attend_int8_q2, wsp_gen::cp2_int8_q2)) &&
       ok;
  ok = checkCase(ranks,
                 makeCase("cp4_int8_q2", 4, 2, true, cp,
                          wsp_gen::attend_int8_q2, wsp_gen::cp4_int8_q2)) &&
       ok;
  if (ranks.count == 4) {
    for (int64_t batch : {1, 3, 16})
      ok = checkStore(ranks, batch, 1, false) && ok; // decode
    for (int64_t batch : {1, 3, 6})
      ok = checkStore(ranks, batch, 40, false) && ok; // prefill chunks
    ok = checkStore(ranks, 5, 7, true) && ok;
    for (int64_t batch : {1, 5})
      ok = checkKvdpCpStore(ranks, batch, 1, false) && ok; // decode
    ok = checkKvdpCpStore(ranks, 6, 40, false) && ok;      // prefill chunks
    ok = checkKvdpCpStore(ranks, 5, 7, true) && ok;
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  return runOnRanks(argc, argv, {1, 2, 4, 8}, [](Ranks &ranks) {
    if (ranks.count != 1 && ranks.count != 2 && ranks.count != 4 &&
        ranks.count != 8) {
      if (ranks.local(0))
        std::printf(
            "kv_sharding has programs for 1, 2, 4 and 8 ranks, not %lld\n",
            (long long)ranks.count);
      return false;
    }
    return checkAll(ranks);
  });
}
