// Calls the C entry points of examples/ir/rms_norm.mlir's CPU simulation
// the way a foreign caller does: only through the extern "C" declarations
// below, against the shared library wspc's tree builds. Rows of ones with
// weight 2 normalize to 2 * rsqrt(1 + eps), which rounds to bf16 2.0.
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

extern "C" {
typedef struct wsp_capi_call wsp_capi_call;
int32_t wsp_capi_version(void);
wsp_capi_call *wsp_capi_call_new(void);
void wsp_capi_call_free(wsp_capi_call *call);
int64_t wsp_capi_report_cores(const wsp_capi_call *call);
int32_t wsp_capi_report_core(const wsp_capi_call *call, int64_t core,
                             int64_t *out);
int32_t wsp_capi_final_norm(void *const *args, const int64_t *sizes,
                            wsp_capi_call *call);
}

namespace {
/// The descriptors of a call's report.
int64_t descriptors(const wsp_capi_call *call) {
  int64_t n = 0, record[6 + 256];
  for (int64_t c = 0; c < wsp_capi_report_cores(call); ++c)
    if (wsp_capi_report_core(call, c, record) == 0)
      n += record[3];
  return n;
}
} // namespace

int main() {
  const int64_t tokens = 10, hidden = 2048;
  std::vector<uint16_t> x(static_cast<size_t>(tokens * hidden), 0x3F80);
  std::vector<float> w(static_cast<size_t>(hidden), 2.0f);
  std::vector<uint16_t> y(x.size(), 0);
  void *args[] = {x.data(), w.data(), y.data()};
  const int64_t sizes[] = {tokens, hidden, hidden, tokens, hidden};
  wsp_capi_call *call = wsp_capi_call_new();
  int32_t status = wsp_capi_final_norm(args, sizes, call);
  bool all_two = true;
  for (uint16_t v : y)
    all_two = all_two && v == 0x4000;
  std::printf("version %d, status %d, y == 2: %s, cores %lld, descriptors %lld\n",
              wsp_capi_version(), status, all_two ? "yes" : "no",
              static_cast<long long>(wsp_capi_report_cores(call)),
              static_cast<long long>(descriptors(call)));
  int64_t record[6 + 256];
  std::printf("core out of range: %d, no handle: %d\n",
              wsp_capi_report_core(call, -1, record),
              wsp_capi_report_core(nullptr, 0, record));

  // y with another token count: INVALID_PARAMS, y untouched, and the
  // handle's report is this call's (no dispatch).
  std::vector<uint16_t> y9(static_cast<size_t>((tokens - 1) * hidden), 0x7FC1);
  void *bad[] = {x.data(), w.data(), y9.data()};
  const int64_t badSizes[] = {tokens, hidden, hidden, tokens - 1, hidden};
  status = wsp_capi_final_norm(bad, badSizes, call);
  bool untouched = true;
  for (uint16_t v : y9)
    untouched = untouched && v == 0x7FC1;
  std::printf("mismatched: status %d, untouched: %s, cores %lld\n", status,
              untouched ? "yes" : "no",
              static_cast<long long>(wsp_capi_report_cores(call)));

  // Two threads at once, each with its own arguments and handle (the
  // second without one records nothing).
  std::vector<uint16_t> y1(x.size(), 0), y2(x.size(), 0);
  int32_t s1 = -1, s2 = -1;
  std::thread t1([&] {
    void *a[] = {x.data(), w.data(), y1.data()};
    for (int i = 0; i < 50 && s1 <= 0; ++i)
      s1 = wsp_capi_final_norm(a, sizes, call);
  });
  std::thread t2([&] {
    void *a[] = {x.data(), w.data(), y2.data()};
    for (int i = 0; i < 50 && s2 <= 0; ++i)
      s2 = wsp_capi_final_norm(a, sizes, nullptr);
  });
  t1.join();
  t2.join();
  std::printf("two threads: status %d %d, same output: %s, descriptors %lld\n",
              s1, s2, y1 == y && y2 == y ? "yes" : "no",
              static_cast<long long>(descriptors(call)));
  wsp_capi_call_free(call);
  return 0;
}
