// Driver for mask-kernel.mlir: the emitted mask kernels against a plain
// if/else reference written from gen_mask_tkg (seed 001), compared exactly.
#include <cstdio>
#include <random>
#include <vector>

using wsp_gen::MemRef;

namespace {

struct Kind {
  bool sliding;
  int window;
  bool block;
};

/// The reference: one element of the unsharded mask [b, i, col], with
/// columns 0 .. s_prior-1 the cache slots and s_prior .. the active ones.
int reference(const Kind &k, const std::vector<int> &pos, int s_active,
              int s_prior, const std::vector<signed char> *am, int b, int i,
              int col) {
  if (col >= s_prior) {
    const int j = col - s_prior;
    if (am)
      return (*am)[(b * s_active + i) * s_active + j] != 0;
    return j <= i ? 1 : 0;
  }
  const int p = pos[b * s_active + i];
  if (!k.sliding)
    return col < p ? 1 : 0;
  int start;
  if (k.block) {
    start = p - k.window + 1;
    if (start < 0)
      start = 0;
  } else {
    start = (p - k.window + 1) % s_prior;
    if (start < 0)
      start += s_prior;
  }
  const int end = p;
  if (start <= end)
    return (col >= start && col < end) ? 1 : 0;
  return (col >= start || col < end) ? 1 : 0;
}

using Plain = void (*)(MemRef<int32_t, 2>, MemRef<int8_t, 3>, int64_t);
using Sharded = void (*)(MemRef<int32_t, 2>, MemRef<int8_t, 3>, int64_t,
                         int64_t);
using Active = void (*)(MemRef<int32_t, 2>, MemRef<int8_t, 3>, int64_t,
                        MemRef<int8_t, 3>);

struct Shape {
  int batch, s_active, s_prior;
  std::vector<int> pos;
};

Shape random_shape(std::mt19937 &rng, bool even_batch) {
  Shape s;
  s.batch = 1 + static_cast<int>(rng() % 4);
  if (even_batch && s.batch % 2)
    ++s.batch;
  s.s_active = 1 + static_cast<int>(rng() % 8);
  s.s_prior = 2 * (1 + static_cast<int>(rng() % 20)); // even: 2 .. 40
  s.pos.resize(s.batch * s.s_active);
  for (int b = 0; b < s.batch; ++b) {
    // pos_id from 0 (windows that wrap) to past the cache
    const int pos_id = static_cast<int>(rng() % (2 * s.s_prior));
    for (int i = 0; i < s.s_active; ++i)
      s.pos[b * s.s_active + i] = pos_id + i;
  }
  return s;
}

MemRef<int32_t, 2> pos_ref(Shape &s) {
  return {s.pos.data(), {s.batch, s.s_active}};
}

bool check_plain(std::mt19937 &rng, const Kind &k, Plain fn) {
  Shape s = random_shape(rng, false);
  const int cols = s.s_prior + s.s_active;
  std::vector<int8_t> mask(s.batch * s.s_active * cols, 7);
  fn(pos_ref(s), {mask.data(), {s.batch, s.s_active, cols}}, s.s_prior);
  for (int b = 0; b < s.batch; ++b)
    for (int i = 0; i < s.s_active; ++i)
      for (int c = 0; c < cols; ++c)
        if (mask[(b * s.s_active + i) * cols + c] !=
            reference(k, s.pos, s.s_active, s.s_prior, nullptr, b, i, c)) {
          std::printf("MISMATCH sliding=%d W=%d block=%d s_prior=%d "
                      "s_active=%d b=%d i=%d col=%d\n",
                      k.sliding, k.window, k.block, s.s_prior, s.s_active, b,
                      i, c);
          return false;
        }
  return true;
}

/// Both cores of an LNC2 kernel; their tiles put together must be the
/// unsharded reference (batch: stacked batches; sequence: core 0's slots,
/// core 1's slots, and the active columns each core holds at its end).
bool check_sharded(std::mt19937 &rng, const Kind &k, Sharded fn,
                   bool sequence) {
  Shape s = random_shape(rng, !sequence);
  const int half = s.s_prior / 2;
  const int local_batch = sequence ? s.batch : s.batch / 2;
  const int cols = (sequence ? half : s.s_prior) + s.s_active;
  for (int core = 0; core < 2; ++core) {
    std::vector<int8_t> mask(local_batch * s.s_active * cols, 7);
    fn(pos_ref(s), {mask.data(), {local_batch, s.s_active, cols}}, s.s_prior,
       core);
    for (int b = 0; b < local_batch; ++b)
      for (int i = 0; i < s.s_active; ++i)
        for (int c = 0; c < cols; ++c) {
          const int gb = sequence ? b : core * local_batch + b;
          int gc = c; // the unsharded column
          if (sequence)
            gc = c < half ? core * half + c : s.s_prior + (c - half);
          if (mask[(b * s.s_active + i) * cols + c] !=
              reference(k, s.pos, s.s_active, s.s_prior, nullptr, gb, i, gc)) {
            std::printf("MISMATCH %s core %d: W=%d block=%d s_prior=%d b=%d "
                        "i=%d col=%d\n",
                        sequence ? "sequence" : "batch", core, k.window,
                        k.block, s.s_prior, b, i, c);
            return false;
          }
        }
  }
  return true;
}

bool check_active(std::mt19937 &rng, const Kind &k, Active fn) {
  Shape s = random_shape(rng, false);
  const int cols = s.s_prior + s.s_active;
  std::vector<signed char> am(s.batch * s.s_active * s.s_active);
  for (signed char &x : am)
    x = static_cast<signed char>(rng() % 2);
  std::vector<int8_t> mask(s.batch * s.s_active * cols, 7);
  fn(pos_ref(s), {mask.data(), {s.batch, s.s_active, cols}}, s.s_prior,
     {reinterpret_cast<int8_t *>(am.data()), {s.batch, s.s_active, s.s_active}});
  for (int b = 0; b < s.batch; ++b)
    for (int i = 0; i < s.s_active; ++i)
      for (int c = 0; c < cols; ++c)
        if (mask[(b * s.s_active + i) * cols + c] !=
            reference(k, s.pos, s.s_active, s.s_prior, &am, b, i, c)) {
          std::printf("MISMATCH active mask: col %d\n", c);
          return false;
        }
  return true;
}

} // namespace

int main() {
  std::mt19937 rng(20261121);
  bool ok = true;
  const int trials = 200;
  struct PlainCase {
    Kind k;
    Plain fn;
  } plain[] = {
      {{false, 0, false}, &wsp_gen::std_flat},
      {{true, 1, false}, &wsp_gen::swa_flat_w1},
      {{true, 3, false}, &wsp_gen::swa_flat_w3},
      {{true, 8, false}, &wsp_gen::swa_flat_w8},
      {{true, 40, false}, &wsp_gen::swa_flat_w40}, // W larger than the cache
      {{true, 1, true}, &wsp_gen::swa_block_w1},
      {{true, 3, true}, &wsp_gen::swa_block_w3},
      {{true, 8, true}, &wsp_gen::swa_block_w8},
      {{true, 40, true}, &wsp_gen::swa_block_w40},
  };
  for (const PlainCase &c : plain)
    for (int t = 0; t < trials; ++t)
      ok &= check_plain(rng, c.k, c.fn);
  std::printf("unsharded: %s\n", ok ? "all equal" : "MISMATCH");

  bool batch_ok = true, seq_ok = true;
  for (int t = 0; t < trials; ++t) {
    batch_ok &= check_sharded(rng, {false, 0, false}, &wsp_gen::std_batch, false);
    batch_ok &= check_sharded(rng, {true, 8, false}, &wsp_gen::swa_flat_w8_batch, false);
    batch_ok &= check_sharded(rng, {true, 3, true}, &wsp_gen::swa_block_w3_batch, false);
    seq_ok &= check_sharded(rng, {false, 0, false}, &wsp_gen::std_sequence, true);
    seq_ok &= check_sharded(rng, {true, 8, false}, &wsp_gen::swa_flat_w8_sequence, true);
    seq_ok &= check_sharded(rng, {true, 3, true}, &wsp_gen::swa_block_w3_sequence, true);
  }
  std::printf("batch-sharded: %s\n", batch_ok ? "all equal" : "MISMATCH");
  std::printf("sequence-sharded: %s\n", seq_ok ? "all equal" : "MISMATCH");

  bool active_ok = true;
  for (int t = 0; t < trials; ++t) {
    active_ok &= check_active(rng, {true, 8, false}, &wsp_gen::swa_flat_w8_active);
    active_ok &= check_active(rng, {false, 0, false}, &wsp_gen::std_active);
  }
  std::printf("active-mask: %s\n", active_ok ? "all equal" : "MISMATCH");
  return ok && batch_ok && seq_ok && active_ok ? 0 : 1;
}
