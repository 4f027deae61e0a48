// The host side of a kernel's run under pto-isa's cost model
// (scripts/pto-isa/costmodel.py generates the driver that uses it): argument
// views in zero pages that cost nothing until touched (the model moves no
// data; the AICPU and the kernels' scalar code read only sizes, ids, lengths
// and tables), and the fills those take.
#pragma once

#include "wsp_module_abi.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace harness {

/// `n` zero elements in pages that cost nothing until touched.
template <typename T> T *zero_pages(size_t n) {
  void *p = mmap(nullptr, std::max<size_t>(n * sizeof(T), 1),
                 PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(2);
  }
  return static_cast<T *>(p);
}

/// A view of zero pages of the given sizes.
template <typename T, int Rank>
wsp_gen::MemRef<T, Rank> view(std::initializer_list<int64_t> sizes) {
  wsp_gen::MemRef<T, Rank> m{};
  size_t n = 1;
  int d = 0;
  for (int64_t s : sizes) {
    m.sizes[d++] = s;
    n *= static_cast<size_t>(s);
  }
  m.data = zero_pages<T>(n);
  return m;
}

template <typename T, int Rank> size_t elements(const wsp_gen::MemRef<T, Rank> &m) {
  size_t n = 1;
  for (int d = 0; d < Rank; ++d)
    n *= static_cast<size_t>(m.sizes[d]);
  return n;
}

/// Every element `value` (lengths, counts).
template <int Rank> void fill_const(wsp_gen::MemRef<int32_t, Rank> m, int32_t value) {
  std::fill_n(m.data, elements(m), value);
}

/// Element i is `first` + i (ids, positions).
template <int Rank> void fill_iota(wsp_gen::MemRef<int32_t, Rank> m, int32_t first) {
  for (size_t i = 0; i < elements(m); ++i)
    m.data[i] = first + static_cast<int32_t>(i);
}

/// A block table: row b holds pages b * per_row .. b * per_row + per_row - 1.
inline void fill_table(wsp_gen::MemRef<int32_t, 2> m, int32_t per_row) {
  for (int64_t b = 0; b < m.sizes[0]; ++b)
    for (int64_t j = 0; j < m.sizes[1]; ++j)
      m.data[b * m.sizes[1] + j] = static_cast<int32_t>(b * per_row + j);
}

/// The AICPU entry's status, printed unless 0 (the run then fails).
inline int report_status(const char *kernel, int status) {
  if (status != 0)
    std::printf("%s: the AICPU entry returned status %d\n", kernel, status);
  return status;
}

} // namespace harness
