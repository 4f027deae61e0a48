// Driver for tier-configs-run.mlir: the emitted header is force-included.
#include <pto/runtime/runtime.hpp>

#include <cstdio>
#include <type_traits>

template <typename Cfg>
void show(const char *name, std::initializer_list<int> sizes) {
  std::printf("%s %zu:", name, Cfg::num_tiers);
  for (int s : sizes)
    std::printf(" %d->%d", s, Cfg::select_tier(s));
  std::printf("\n");
}

int main() {
  show<DecodeAttentionTiers>("DecodeAttentionTiers",
                             {1, 1024, 1025, 4096, 4097, 16384, 16385, 131072,
                              131073, 0});
  show<Overlapping>("Overlapping", {50, 100, 150, 250, 300, 301});
  // The emitted alias is the spec's own DecodeAttentionTiers type.
  std::printf("spec-equivalent: %s\n",
              std::is_same_v<::DecodeAttentionTiers,
                             pto::runtime::DecodeAttentionTiers>
                  ? "yes"
                  : "no");
  return 0;
}
