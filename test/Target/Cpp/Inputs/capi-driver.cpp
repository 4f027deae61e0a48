// Calls the C entry points of examples/ir/rms_norm.mlir's CPU simulation
// the way a foreign caller does: only through the extern "C" declarations
// below, against the shared library wspc's tree builds. Rows of ones with
// weight 2 normalize to 2 * rsqrt(1 + eps), which rounds to bf16 2.0.
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" {
int32_t wsp_capi_version(void);
void wsp_capi_record(int32_t on);
int64_t wsp_capi_report_cores(void);
int32_t wsp_capi_report_core(int64_t core, int64_t *out);
int32_t wsp_capi_final_norm(void *const *args, const int64_t *sizes);
}

int main() {
  const int64_t tokens = 10, hidden = 2048;
  std::vector<uint16_t> x(static_cast<size_t>(tokens * hidden), 0x3F80);
  std::vector<float> w(static_cast<size_t>(hidden), 2.0f);
  std::vector<uint16_t> y(x.size(), 0);
  void *args[] = {x.data(), w.data(), y.data()};
  const int64_t sizes[] = {tokens, hidden, hidden, tokens, hidden};
  wsp_capi_record(1);
  int32_t status = wsp_capi_final_norm(args, sizes);
  bool all_two = true;
  for (uint16_t v : y)
    all_two = all_two && v == 0x4000;
  int64_t descriptors = 0, record[6 + 256];
  for (int64_t c = 0; c < wsp_capi_report_cores(); ++c)
    if (wsp_capi_report_core(c, record) == 0)
      descriptors += record[3];
  wsp_capi_record(0);
  std::printf("version %d, status %d, y == 2: %s, cores %lld, descriptors %lld\n",
              wsp_capi_version(), status, all_two ? "yes" : "no",
              static_cast<long long>(wsp_capi_report_cores()),
              static_cast<long long>(descriptors));
  std::printf("core out of range: %d\n", wsp_capi_report_core(-1, record));

  // y with another token count: INVALID_PARAMS, y untouched.
  std::vector<uint16_t> y9(static_cast<size_t>((tokens - 1) * hidden), 0x7FC1);
  void *bad[] = {x.data(), w.data(), y9.data()};
  const int64_t badSizes[] = {tokens, hidden, hidden, tokens - 1, hidden};
  status = wsp_capi_final_norm(bad, badSizes);
  bool untouched = true;
  for (uint16_t v : y9)
    untouched = untouched && v == 0x7FC1;
  std::printf("mismatched: status %d, untouched: %s\n", status,
              untouched ? "yes" : "no");
  return 0;
}
