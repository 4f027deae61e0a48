// pto/runtime/chunking.hpp - how a sequence is cut into chunks (spec
// §6.3.5): the one home of chunk boundaries, for the planners and for the
// cores that expand a plan kept as rows (spec_rows.hpp).
#ifndef PTO_RUNTIME_CHUNKING_HPP
#define PTO_RUNTIME_CHUNKING_HPP

#include <algorithm>
#include <cstdint>

namespace pto {
namespace runtime {
namespace detail {

/// Number of chunks of `chunk` tokens covering `len` tokens (0 for len 0).
/// Preconditions: len >= 0, chunk > 0.
constexpr int num_chunks(int len, int chunk) {
  return static_cast<int>(
      (static_cast<uint32_t>(len) + static_cast<uint32_t>(chunk) - 1u) /
      static_cast<uint32_t>(chunk));
}

/// How one sequence of `len` tokens is cut into chunks: the single place
/// chunk boundaries are defined.
struct Chunking {
  int count; // number of chunks
  int base;  // size of a short chunk
  int extra; // the first `extra` chunks are one token longer (balanced)
  int last;  // size of the last chunk (unbalanced)
  bool balanced;

  static constexpr Chunking of(int len, int chunk, bool balanced) {
    const int n = num_chunks(len, chunk);
    if (n == 0)
      return {0, 0, 0, 0, balanced};
    if (balanced)
      return {n, len / n, len % n, 0, true};
    return {n, chunk, 0, len - (n - 1) * chunk, false};
  }
  constexpr int size(int i) const {
    if (balanced)
      return base + (i < extra ? 1 : 0);
    return i == count - 1 ? last : base;
  }
  constexpr int start(int i) const {
    return balanced ? i * base + std::min(i, extra) : i * base;
  }
  /// The first chunk whose start or size differs from `other`'s (count when
  /// none does). Both cut with the same chunk size and mode.
  int first_difference(const Chunking &other) const {
    if (count != other.count)
      return 0;
    if (!balanced)
      return last == other.last ? count : count - 1;
    if (base == other.base) // sizes differ between the two extras
      return extra == other.extra ? count : std::min(extra, other.extra);
    int i = 0; // the base moved: a length crossed a multiple of count
    while (i < count && size(i) == other.size(i))
      ++i;
    return i;
  }
};

} // namespace detail
} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_CHUNKING_HPP
