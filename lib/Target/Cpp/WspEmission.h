//===- WspEmission.h - what the wsp emitters share ---------------*- C++ -*-===//
//
// Shared by the wsp ops' patterns (WspEmission.cpp) and the module
// structure of the four outputs (WspModuleEmission.cpp). Private to
// lib/Target/Cpp.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_TARGET_CPP_WSPEMISSION_H
#define WSP_LIB_TARGET_CPP_WSPEMISSION_H

#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlir::wsp::cpp {

/// The fixed part of every emitted source: memref views and 16-bit floats.
inline constexpr const char *kPrelude = R"cpp(#include <pto/runtime/float16.hpp>
#include <pto/runtime/runtime.hpp>
#include <pto/runtime/tile.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace wsp_gen {

/// A row-major view of a memref: the data and the size of each dimension.
template <typename T, int Rank>
struct MemRef {
  __gm__ T *data;
  int64_t sizes[Rank];
};

/// bf16 and f16 are stored as their 16 bits and computed in fp32 (bf16 as
/// the build stores it: pto/runtime/float16.hpp's kBf16StoredAsF16).
using ::pto::runtime::bf16;
using ::pto::runtime::bf16_storage_to_f32;
using ::pto::runtime::bf16_to_f32;
using ::pto::runtime::f16;
using ::pto::runtime::f16_to_f32;
using ::pto::runtime::f32_to_bf16;
using ::pto::runtime::f32_to_bf16_storage;
using ::pto::runtime::f32_to_f16;
/// arith.maximumf: NaN if either operand is NaN; +0 over -0.
template <typename T> inline T maximumf(T a, T b) {
  if (a != a || b != b)
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
/// A size as the runtime's int, saturated at INT32_MAX and INT32_MIN (a
/// value past either is never wrapped into a valid one: below, the runtime
/// sees a negative size, INVALID_PARAMS).
inline int to_runtime_int(int64_t n) {
  return n > INT32_MAX ? INT32_MAX
         : n < INT32_MIN ? INT32_MIN
                         : static_cast<int>(n);
}

/// Tile kernels of the CPU simulation run on pto::runtime's tile model.
namespace tl = ::pto::runtime::tile;

)cpp";

/// The kernel tables some dispatch expands a plan's cuts on (contains),
/// or a plan as rows (expandsRows): their argument blocks carry what the
/// cores expand them from. Found by one walk of the module, on the first
/// question about it (asked per table and per dispatch, a walk each would
/// make emission quadratic in the workloads).
class ExpandingTables {
public:
  bool contains(KernelTableOp t) {
    return walk(t).first.contains(t.getSymName());
  }
  bool expandsRows(KernelTableOp t) {
    return walk(t).second.contains(t.getSymName());
  }

private:
  std::pair<llvm::StringSet<> &, llvm::StringSet<> &> walk(KernelTableOp t) {
    auto module = t->getParentOfType<ModuleOp>();
    if (module != walked) {
      walked = module;
      names.clear();
      rowNames.clear();
      if (module)
        module.walk([&](DispatchOp d) {
          if (d.getCuts())
            names.insert(d.getKernel());
          if (d.getRows())
            rowNames.insert(d.getKernel());
        });
    }
    return {names, rowNames};
  }

  ModuleOp walked;
  llvm::StringSet<> names, rowNames;
};

/// The AICore form's entry that moves a collective's bytes (a GatherFn of
/// pto/runtime/collectives.hpp, by pto-isa's TGATHER): one per module,
/// named after its stem.
inline std::string gatherEntryName(StringRef stem) {
  return ("wsp_comm_gather_" + stem).str();
}
inline std::string gatherEntryName(Operation *op) {
  return gatherEntryName(getEmissionStem(op->getParentOfType<ModuleOp>()));
}
/// Its parameters, as the ABI header declares and the AICore form defines
/// it.
inline constexpr const char *kGatherParams =
    "(const void *const *sends, void *recv,\n"
    "    uint64_t bytes, int32_t pieces, int32_t self)";

} // namespace mlir::wsp::cpp

#endif // WSP_LIB_TARGET_CPP_WSPEMISSION_H
