//===- WspEmission.cpp - wsp programs as C++ ------------------------------===//
//
// The wsp ops' emission patterns (the module structure of the four outputs
// is WspModuleEmission.cpp's). Values keep their source names where the
// parser kept them (wsp/Support/SourceNames.h), else get stable numbered
// ones (arguments a<i>, results v<i> in program order); comments name the
// op each construct comes from.
//
//===----------------------------------------------------------------------===//

#include "CppEmitter.h"
#include "WspEmission.h"
#include "StepCapture.h"

#include "wsp/Dialect/Tile/IR/TileOps.h"
#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Dialect/Wsp/IR/WspOps.h"
#include "wsp/Support/SourceNames.h"
#include "wsp/Target/Cpp/Passes.h"
#include "wsp/Target/Cpp/WspToCpp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

#include <memory>
#include <string>

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::cpp;

namespace {


/// The simulation's name of a core kind.
const char *simCoreKind(CoreKind kind) {
  switch (kind) {
  case CoreKind::cube:
    return "::pto::runtime::sim::CoreKind::Cube";
  case CoreKind::vector:
    return "::pto::runtime::sim::CoreKind::Vector";
  case CoreKind::mix:
    return "::pto::runtime::sim::CoreKind::Mix";
  }
  llvm_unreachable("unknown core kind");
}

std::string describeDispatch(DispatchOp op) {
  return llvm::formatv(
             "// wsp.dispatch @{0} on {1}({2}){3}{4}{5}{6}\n", op.getKernel(),
             stringifyCoreKind(op.getCoreKind()), op.getNumCoresAttr().getInt(),
             op.getRowAffine() ? " row_affine" : "",
             op.getCoreIndptr() ? " persistent" : "",
             op.getCuts() ? " expand" : "", op.getRows() ? " expand_rows" : "")
      .str();
}

/// The tier configuration of the kernel (or kernel table) `op` dispatches,
/// or null.
TierConfigOp dispatchTiers(DispatchOp op, Emitter &e) {
  FlatSymbolRefAttr tiers;
  if (auto table = e.symbols.lookupNearestSymbolFrom<KernelTableOp>(
          op, op.getKernelAttr()))
    tiers = table.getTiersAttr();
  else if (auto kernel = e.symbols.lookupNearestSymbolFrom<KernelOp>(
               op, op.getKernelAttr()))
    tiers = kernel.getTiersAttr();
  return tiers ? e.symbols.lookupNearestSymbolFrom<TierConfigOp>(op, tiers)
               : TierConfigOp();
}

/// The simulation's picture of a grid or row_affine dispatch (wspc --run
/// --plan-svg): its descriptors as its cores share them, before they run.
void emitRecordDispatch(DispatchOp op, Emitter &e) {
  auto buffer = cast<MemRefType>(op.getDescriptors().getType());
  PatternAttr pattern =
      cast<DescriptorType>(buffer.getElementType()).getPattern();
  std::string name = pattern.getName().str();
  if (!pattern.isAttention() && !pattern.isMoE()) {
    name += ":";
    for (auto [i, p] : llvm::enumerate(pattern.getParams()))
      name += (i ? "," : "") + p.str();
  }
  TierConfigOp tiers = dispatchTiers(op, e);
  e.os << "::pto::runtime::sim::record_dispatch_plan(\n";
  e.os << "    " << e.name(op.getDescriptors()) << ".data, static_cast<int>("
       << e.name(op.getCount()) << "),\n";
  e.os << "    ::pto::runtime::DispatchInfo{\"" << op.getKernel() << "\", \""
       << name << "\", \"" << stringifyCoreKind(op.getCoreKind()) << "\", "
       << op.getNumCoresAttr().getInt() << ", "
       << (op.getRowAffine() ? "true" : "false") << "},\n";
  e.os << "    "
       << (tiers ? getTierConfigCppType(tiers)
                 : std::string("::pto::runtime::TierList"))
       << "{});\n";
}

/// `::pto::runtime::BalancedConfig config` set from a plan's config, as
/// local statements: what the planner and the cores expanding its cuts run
/// with.
void printBalancedConfig(PlanConfigAttr c, raw_indented_ostream &os) {
  os << "::pto::runtime::BalancedConfig config;\n";
  os << "config.num_cores = " << c.getCores() << ";\n";
  os << "config.block_size = " << c.getBlockSize() << ";\n";
  os << "config.cost.per_unit = " << c.getUnitCost() << ";\n";
  os << "config.cost.per_token = " << c.getTokenCost() << ";\n";
  os << "config.cost.per_merge = " << c.getMergeCost() << ";\n";
  os << "config.batch_invariant = "
     << (c.getBatchInvariant() ? "true" : "false") << ";\n";
  os << "config.invariant_chunk = " << c.getInvariantChunk() << ";\n";
}

/// The balanced plan whose cuts an `expand` dispatch expands, with the
/// tier configuration it names; or a diagnostic.
FailureOr<std::pair<PlanBalancedOp, TierConfigOp>> sweepPlanOf(DispatchOp op,
                                                               Emitter &e) {
  auto plan = dyn_cast_if_present<PlanBalancedOp>(op.getSweepPlan());
  if (!plan)
    return op.emitOpError("expands cuts that no wsp.plan_balanced wrote "
                          "(run wsp-plan first)");
  auto tiers = e.symbols.lookupNearestSymbolFrom<TierConfigOp>(
      plan, plan.getTiersAttr());
  if (!tiers)
    return plan.emitOpError("names no wsp.tier_config");
  return std::make_pair(plan, tiers);
}


/// The CPU-sim form of a persistent dispatch that expands a plan's cuts:
/// each simulated core writes its own descriptors
/// (pto::runtime::for_each_sweep_piece between its two cuts) into the
/// buffer, then runs them.
LogicalResult emitExpandingDispatch(DispatchOp op, StringRef call, Emitter &e) {
  FailureOr<std::pair<PlanBalancedOp, TierConfigOp>> found = sweepPlanOf(op, e);
  if (failed(found))
    return failure();
  auto [plan, tiers] = *found;
  raw_indented_ostream &os = e.os;
  std::string descs = e.name(op.getDescriptors());
  os << "{\n";
  os.indent();
  printBalancedConfig(plan.getConfig(), os);
  os << "const auto *sweep_cuts = reinterpret_cast<const "
        "::pto::runtime::SweepCut *>("
     << e.name(op.getCuts()) << ".data);\n";
  os << "::pto::runtime::sim::run_persistent_expanding("
     << simCoreKind(op.getCoreKind()) << ", " << op.getNumCoresAttr().getInt()
     << ", " << descs << ".data, static_cast<int>(" << e.name(op.getCount())
     << "), " << e.name(op.getCoreIndptr()) << ".data, nullptr,\n";
  os << "    [&](int core) { // this core's descriptors, from its cuts\n";
  os << "      ::pto::runtime::for_each_sweep_piece(\n";
  os << "          " << e.name(plan.getLengths()) << ".data, to_runtime_int("
     << e.name(plan.getBatch()) << "), to_runtime_int("
     << e.name(plan.getHeads()) << "), config,\n";
  os << "          " << getTierConfigCppType(tiers)
     << "{}, sweep_cuts[core], sweep_cuts[core + 1],\n";
  os << "          [&](const ::pto::runtime::WorkDescriptor &w) { " << descs
     << ".data[w.work_id] = w; });\n";
  os << "    },\n";
  os << "    [&](const ::pto::runtime::WorkDescriptor &d) { " << call
     << "; }, wsp_launch_report);\n";
  // The simulation's picture of the plan the cores expanded (wspc --run
  // --plan-svg), unless a kernel fault stopped them.
  os << "if (!::pto::runtime::sim::fault())\n";
  os << "  ::pto::runtime::sim::record_balanced_plan(\n";
  os << "      " << e.name(plan.getLengths()) << ".data, to_runtime_int("
     << e.name(plan.getBatch()) << "), to_runtime_int("
     << e.name(plan.getHeads()) << "), config,\n";
  os << "      " << descs << ".data, static_cast<int>(" << e.name(op.getCount())
     << "), " << e.name(op.getCoreIndptr()) << ".data, nullptr,\n";
  os << "      "
     << (plan.getQLens() ? e.name(plan.getQLens()) + ".data" : "nullptr")
     << ", " << getTierConfigCppType(tiers) << "{}, /*as_cuts=*/true);\n";
  os.unindent();
  os << "}\n";
  return success();
}

/// The CPU-sim form of a grid or row_affine dispatch of a plan kept as
/// rows: each simulated core writes the descriptors it runs
/// (pto::runtime::SpecRows) into the buffer, then runs them; the picture
/// (wspc --run --plan-svg) is drawn from the buffer after.
LogicalResult emitRowsExpandingDispatch(DispatchOp op, StringRef call,
                                        Emitter &e) {
  TierConfigOp tiers = dispatchTiers(op, e);
  if (!tiers)
    return op.emitOpError("dispatches a kernel that names no wsp.tier_config");
  raw_indented_ostream &os = e.os;
  std::string rows = e.name(op.getRows());
  os << "{\n";
  os.indent();
  os << "const ::pto::runtime::SpecRows<" << getTierConfigCppType(tiers)
     << "> plan_rows(" << rows << ".data, " << rows << ".sizes[0], {});\n";
  os << "::pto::runtime::sim::run_rows_expanding("
     << simCoreKind(op.getCoreKind()) << ", " << op.getNumCoresAttr().getInt()
     << ", " << e.name(op.getDescriptors()) << ".data, static_cast<int>("
     << e.name(op.getCount()) << "), plan_rows,\n";
  os << "    [&](const ::pto::runtime::WorkDescriptor &d) { " << call
     << "; }, wsp_launch_report"
     << (op.getRowAffine() ? ", wsp_rows_options()" : "") << ");\n";
  os << "if (!::pto::runtime::sim::fault())\n";
  os.indent();
  emitRecordDispatch(op, e);
  os.unindent();
  os.unindent();
  os << "}\n";
  return success();
}

LogicalResult emitDispatch(DispatchOp op, Emitter &e,
                           ExpandingTables &expanding) {
  auto table =
      e.symbols.lookupNearestSymbolFrom<KernelTableOp>(op, op.getKernelAttr());
  if (e.flavor == Flavor::Aicpu) {
    // AICPU -> AICore: fill the table's argument block and launch its entry
    // on the dispatch's cores (spec §6.5.1); the hook is the integration's.
    if (!table)
      return op.emitOpError("dispatches a single kernel; device emission "
                            "launches wsp.kernel_table entries");
    std::string t = op.getKernel().str();
    e.os << describeDispatch(op);
    e.os << "{\n";
    e.os.indent();
    // An expanding dispatch passes what the cores expand the cuts from.
    std::string sweep;
    if (op.getCuts()) {
      FailureOr<std::pair<PlanBalancedOp, TierConfigOp>> found =
          sweepPlanOf(op, e);
      if (failed(found))
        return failure();
      PlanBalancedOp plan = found->first;
      printBalancedConfig(plan.getConfig(), e.os);
      sweep = ", reinterpret_cast<const ::pto::runtime::SweepCut *>(" +
              e.name(op.getCuts()) + ".data), " + e.name(plan.getLengths()) +
              ".data, to_runtime_int(" + e.name(plan.getBatch()) +
              "), to_runtime_int(" + e.name(plan.getHeads()) + "), config";
    } else if (expanding.contains(table)) {
      sweep = ", nullptr, nullptr, 0, 0, {}";
    }
    // ... and a plan as rows, what its cores expand.
    if (op.getRows())
      sweep += ", " + e.name(op.getRows()) + ".data, " + e.name(op.getRows()) +
               ".sizes[0]";
    else if (expanding.expandsRows(table))
      sweep += ", nullptr, 0";
    e.os << t << "_args launch{" << e.name(op.getDescriptors()) << ".data, "
         << e.name(op.getCount()) << ", "
         << (op.getCoreIndptr() ? 2 : op.getRowAffine() ? 1 : 0) << ", "
         << op.getNumCoresAttr().getInt() << ", 0, "
         << (op.getCoreIndptr() ? e.name(op.getCoreIndptr()) + ".data"
                                : std::string("nullptr"))
         << sweep;
    for (Value arg : op.getArgs())
      e.os << ", " << e.name(arg);
    e.os << "};\n";
    e.os << "wsp_launch_" << t << "(&launch, " << op.getNumCoresAttr().getInt()
         << ");\n";
    e.os.unindent();
    e.os << "}\n";
    return success();
  }
  // The O(1) tier table (or one specialized kernel) per descriptor, on the
  // simulated cores of the dispatch's kind.
  std::string args = e.join(op.getArgs());
  std::string call =
      table ? (op.getKernel() + "_dispatch[d.tier](d" +
               (args.empty() ? "" : ", ") + args + ")")
                  .str()
            : (op.getKernel() + "(d" + (args.empty() ? "" : ", ") + args + ")")
                  .str();
  e.os << describeDispatch(op);
  if (op.getCuts())
    return emitExpandingDispatch(op, call, e);
  if (op.getRows())
    return emitRowsExpandingDispatch(op, call, e);
  // Persistent: core c walks descriptors [lists[c], lists[c+1]); otherwise
  // a grid, or whole rows per core (row_affine), whose picture the
  // simulation draws (a balanced plan's is drawn where it is planned).
  Value lists = op.getCoreIndptr();
  if (!lists)
    emitRecordDispatch(op, e);
  e.os << "::pto::runtime::sim::" << (lists ? "run_persistent(" : "run_spmd(")
       << simCoreKind(op.getCoreKind()) << ", "
       << op.getNumCoresAttr().getInt() << ", " << e.name(op.getDescriptors())
       << ".data, static_cast<int>(" << e.name(op.getCount()) << ")";
  if (lists)
    e.os << ", " << e.name(lists) << ".data, nullptr";
  e.os << ",\n    [&](const ::pto::runtime::WorkDescriptor &d) { " << call
       << "; }, wsp_launch_report"
       << (op.getRowAffine() ? ", wsp_rows_options()" : "") << ");\n";
  return success();
}

LogicalResult emitLoadDescriptors(LoadDescriptorsOp op, Emitter &e) {
  // The compile-time plan: copied if every part fits, BUFFER_OVERFLOW (and
  // nothing written) if not.
  std::string table = "g_" + op.getTable().str();
  auto size = [](const std::string &array) {
    return "static_cast<int64_t>(sizeof " + array + " / sizeof " + array +
           "[0])";
  };
  std::string fits =
      e.name(op.getBuffer()) + ".sizes[0] >= " + e.name(op.getCount());
  SmallVector<std::pair<std::string, Value>> lists;
  if (op.getCoreIndptr())
    lists.push_back({table + "_cores", op.getCoreIndptr()});
  if (op.getMergeIndptr())
    lists.push_back({table + "_merges", op.getMergeIndptr()});
  for (auto &[array, buffer] : lists)
    fits += " && " + e.name(buffer) + ".sizes[0] >= " + size(array);
  if (failed(e.declare(op.getCount(), table + "_count")) ||
      failed(e.declare(op.getStatus(), fits + " ? 0 : 1")))
    return failure();
  e.os << "if (" << e.name(op.getStatus()) << " == 0) {\n";
  e.os << "  std::copy(" << table << ", " << table << " + "
       << e.name(op.getCount()) << ", " << e.name(op.getBuffer()) << ".data);\n";
  for (auto &[array, buffer] : lists)
    e.os << "  std::copy(" << array << ", " << array << " + " << size(array)
         << ", " << e.name(buffer) << ".data);\n";
  e.os << "}\n";
  return success();
}

LogicalResult emitPlanBalanced(PlanBalancedOp op, Emitter &e) {
  auto tiers =
      e.symbols.lookupNearestSymbolFrom<TierConfigOp>(op, op.getTiersAttr());
  if (!tiers)
    return op.emitOpError("names no wsp.tier_config");
  PlanConfigAttr c = op.getConfig();
  if (failed(e.declareResult(op.getCount(), op)) ||
      failed(e.declareResult(op.getStatus(), op)))
    return failure();
  std::string lengths = e.name(op.getLengths()), batch = e.name(op.getBatch());
  raw_indented_ostream &os = e.os;
  os << "// wsp.plan_balanced over @" << op.getTiers()
     << (op.getCuts() ? ": pto::runtime's balanced planner, the plan as cuts "
                        "(the cores expand the descriptors)\n"
                      : ": pto::runtime's balanced planner\n");
  os << "{\n";
  os.indent();
  printBalancedConfig(c, os);
  os << "int count = 0;\n";
  os << "if (" << batch << " > " << lengths << ".sizes[0]";
  if (op.getQLens())
    os << " || " << batch << " > " << e.name(op.getQLens()) << ".sizes[0]";
  os << ") {\n";
  os << "  " << e.name(op.getStatus())
     << " = 3; // INVALID_PARAMS: batch beyond the lengths\n";
  os << "} else {\n";
  os.indent();
  auto buffer = [&](Value v) {
    return e.name(v) + ".data, to_runtime_int(" + e.name(v) + ".sizes[0])";
  };
  os << e.name(op.getStatus()) << " = static_cast<int32_t>(::pto::runtime::"
     << (op.getCuts() ? "plan_sweep_into" : "plan_balanced_into") << "(\n";
  os << "    " << lengths << ".data, to_runtime_int(" << batch
     << "), to_runtime_int(" << e.name(op.getHeads()) << "), config,\n";
  os << "    " << getTierConfigCppType(tiers) << "{},\n";
  if (Value cuts = op.getCuts()) {
    // The cuts (4 int32 per point: a SweepCut), the work lists and the
    // count; BUFFER_OVERFLOW when the buffer the cores fill is too small.
    os << "    reinterpret_cast<::pto::runtime::SweepCut *>(" << e.name(cuts)
       << ".data), to_runtime_int(" << e.name(cuts) << ".sizes[0] / 4),\n";
    os << "    &count, nullptr, nullptr, "
       << (op.getQLens() ? e.name(op.getQLens()) + ".data" : "nullptr")
       << ", to_runtime_int(" << e.name(op.getBuffer()) << ".sizes[0]),\n";
    os << "    " << buffer(op.getCoreIndptr()) << "));\n";
  } else {
    os << "    " << buffer(op.getBuffer()) << ",\n";
    os << "    " << buffer(op.getCoreIndptr()) << ", "
       << buffer(op.getMergeIndptr()) << ", &count, nullptr, nullptr, "
       << (op.getQLens() ? e.name(op.getQLens()) + ".data" : "nullptr")
       << "));\n";
  }
  if (e.flavor == Flavor::CpuSim && !op.getCuts()) {
    // The simulation's picture of the plan (wspc --run --plan-svg).
    os << "if (" << e.name(op.getStatus()) << " == 0)\n";
    os << "  ::pto::runtime::sim::record_balanced_plan(\n";
    os << "      " << lengths << ".data, to_runtime_int(" << batch
       << "), to_runtime_int(" << e.name(op.getHeads()) << "), config,\n";
    os << "      " << e.name(op.getBuffer()) << ".data, count, "
       << e.name(op.getCoreIndptr()) << ".data, " << e.name(op.getMergeIndptr())
       << ".data,\n";
    os << "      "
       << (op.getQLens() ? e.name(op.getQLens()) + ".data" : "nullptr") << ", "
       << getTierConfigCppType(tiers) << "{});\n";
  }
  os.unindent();
  os << "}\n";
  os << e.name(op.getCount()) << " = count;\n";
  os.unindent();
  os << "}\n";
  return success();
}

/// A collective's frame: a block holding the run's communicator
/// (pto/runtime/collectives.hpp), `ready` from `after`, a check that the
/// group has the grid's number of ranks when the grid's shape is static,
/// then `status` = the call `call(ready)` prints (a method of the
/// communicator, returning a Status): on the grid's communicator, or with
/// `grid_axes` on the rank's group (Communicator::along). In
/// the device form, a collective that moves bytes (`moves`) moves them on
/// the AICore: the AICPU code installs the AICore form's gather entry.
LogicalResult emitCollective(Operation *op, StringRef comment,
                             FlatSymbolRefAttr gridName, Value after,
                             Value statusValue, Emitter &e, bool moves,
                             function_ref<std::string(StringRef)> call) {
  auto grid = e.symbols.lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
  if (!grid)
    return op->emitOpError("names no shard.grid");
  std::optional<int64_t> ranks = 1;
  for (int64_t d : grid.getShape())
    ranks = ShapedType::isDynamic(d) || !ranks ? std::nullopt
                                               : std::optional(*ranks * d);
  if (failed(e.declareResult(statusValue, op)))
    return failure();
  std::string status = e.name(statusValue);
  raw_indented_ostream &os = e.os;
  os << "// " << op->getName().getStringRef() << " on " << gridName << ": "
     << comment << "\n";
  os << "{\n";
  os.indent();
  os << "::pto::runtime::comm::Communicator &comm = "
        "::pto::runtime::comm::current();\n";
  if (moves && e.flavor == Flavor::Aicpu) {
    os << "// Ranks sharing memory move the bytes on the AICore (pto-isa's "
          "TGATHER).\n";
    os << "const ::pto::runtime::comm::GatherScope on_aicore(&"
       << gatherEntryName(op) << ");\n";
  }
  std::string ready = "true";
  if (after) {
    os << "// Joined even after a failure here, so no rank waits for this "
          "one.\n";
    os << "const bool ready = " << e.name(after) << " == 0;\n";
    ready = "ready";
  }
  DenseI16ArrayAttr axes = cast<CollectiveOpInterface>(op).getGridAxesAttr();
  if (ranks) {
    os << "if (comm.size() != " << *ranks << ")\n";
    os << "  " << status << " = 3; // INVALID_PARAMS: " << gridName
       << " has " << *ranks << " ranks\n";
    os << "else" << (axes ? " {" : "") << "\n  ";
  }
  if (axes) {
    // The verifier asks a static grid of grid_axes: `ranks` is known.
    ArrayRef<int64_t> shape = grid.getShape();
    os.indent();
    os << "// This rank's group: the ranks of " << gridName
       << " that differ from it along axes ["
       << llvm::interleaved(axes.asArrayRef()) << "] only.\n";
    os << "static constexpr int64_t kGrid[] = {" << llvm::interleaved(shape)
       << "};\n";
    os << "static constexpr int16_t kAxes[] = {"
       << llvm::interleaved(axes.asArrayRef()) << "};\n";
    os << "::pto::runtime::comm::Communicator *group = nullptr;\n";
    os << status << " = static_cast<int32_t>(comm.along(kGrid, " << shape.size()
       << ", kAxes, " << axes.size() << ", group));\n";
    os << "if (" << status << " == 0)\n  ";
    os << status << " = static_cast<int32_t>(group->" << call(ready) << ");\n";
    os.unindent();
    os << "}\n";
  } else {
    os << status << " = static_cast<int32_t>(comm." << call(ready) << ");\n";
  }
  if (after)
    os << "if (!ready)\n  " << status << " = " << e.name(after) << ";\n";
  os.unindent();
  os << "}\n";
  return success();
}

/// wsp.all_reduce: the communicator's all_reduce over the whole buffer.
LogicalResult emitAllReduce(AllReduceOp op, Emitter &e) {
  auto type = cast<MemRefType>(op.getBuffer().getType());
  Type elem = type.getElementType();
  // bf16 buffers as the build stores them (kBf16Storage: bf16 bits, or
  // half bits in pto-isa's CPU simulation without std::bfloat16_t).
  const char *elemName = elem.isF32()    ? "ElemType::F32"
                         : elem.isBF16() ? "kBf16Storage"
                                         : "ElemType::I32";
  const char *kind = op.getReduction() == shard::ReductionKind::Max   ? "Max"
                     : op.getReduction() == shard::ReductionKind::Min ? "Min"
                                                                      : "Sum";
  std::string buf = e.name(op.getBuffer());
  std::string count = "size_t(1)";
  for (int64_t i = 0; i < type.getRank(); ++i)
    count += " * size_t(" + buf + ".sizes[" + std::to_string(i) + "])";
  return emitCollective(
      op, (Twine(kind) + " over the ranks, in rank order").str(),
      op.getGridAttr(), op.getAfter(), op.getStatus(), e, /*moves=*/true,
      [&](StringRef ready) {
        return ("all_reduce(\n    " + buf + ".data, " + count +
                ", ::pto::runtime::comm::" + elemName +
                ", ::pto::runtime::comm::ReduceOp::" + kind + ", " + ready +
                ")")
            .str();
      });
}

/// The collectives along an axis: the communicator's *_axis forms over
/// both views' data and sizes (the runtime checks the sizes on every rank).
template <typename Op>
LogicalResult emitAxisCollective(Op op, StringRef method,
                                 ArrayRef<int64_t> axes, StringRef comment,
                                 Emitter &e) {
  auto type = cast<MemRefType>(op.getSource().getType());
  FailureOr<std::string> elem = e.scalarType(type.getElementType(), op);
  if (failed(elem))
    return failure();
  std::string src = e.name(op.getSource()), dst = e.name(op.getDest());
  std::string axisArgs;
  for (int64_t a : axes)
    axisArgs += ", " + std::to_string(a);
  // all_slice cuts this rank's piece locally: no bytes between ranks.
  const bool moves = method != "all_slice_axis";
  return emitCollective(
      op, comment, op.getGridAttr(), op.getAfter(), op.getStatus(), e, moves,
      [&](StringRef ready) {
        return (method + "(\n    " + src + ".data, " + src + ".sizes, " + dst +
                ".data, " + dst + ".sizes, " + Twine(type.getRank()) +
                axisArgs + ", sizeof(" + *elem + "), " + ready + ")")
            .str();
      });
}

} // namespace

void mlir::wsp::cpp::populateWspEmission(Emitter &e) {
  e.addTypePrinter(
      [](Type t, Operation *) -> std::optional<FailureOr<std::string>> {
        if (isa<DescriptorType>(t))
          return FailureOr<std::string>(
              std::string("::pto::runtime::WorkDescriptor"));
        return std::nullopt;
      });
  e.add<MakeDescriptorOp>([](MakeDescriptorOp o, Emitter &e) {
    std::string params;
    for (unsigned i = 0; i < 4; ++i)
      params += (i ? ", " : "") + (i < o.getParams().size()
                                       ? "static_cast<uint32_t>(" +
                                             e.name(o.getParams()[i]) + ")"
                                       : std::string("0u"));
    return e.declare(
        o.getResult(),
        llvm::formatv("::pto::runtime::WorkDescriptor{{static_cast<uint32_"
                      "t>({0}), static_cast<uint8_t>({1}), static_cast<"
                      "uint8_t>({2}), 0, {{{3}}}",
                      e.name(o.getWorkId()), e.name(o.getTier()),
                      e.name(o.getFlags()), params)
            .str());
  });
  e.add<LoadDescriptorsOp>(emitLoadDescriptors);
  e.add<PlanBalancedOp>(emitPlanBalanced);
  e.add<AllReduceOp>(emitAllReduce);
  // This rank's index in the run's group (the grid's linear index).
  e.add<shard::ProcessLinearIndexOp>(
      [](shard::ProcessLinearIndexOp o, Emitter &e) {
        return e.declare(o.getResult(),
                         "static_cast<int64_t>(::pto::runtime::comm::current()"
                         ".rank())");
      });
  // This rank's coordinates on the grid along some of its axes (all by
  // default): the grid's row-major index, taken apart.
  e.add<shard::ProcessMultiIndexOp>([](shard::ProcessMultiIndexOp o,
                                       Emitter &e) -> LogicalResult {
    auto grid =
        e.symbols.lookupNearestSymbolFrom<shard::GridOp>(o, o.getGridAttr());
    if (!grid)
      return o.emitOpError("names no shard.grid");
    ArrayRef<int64_t> shape = grid.getShape();
    if (ShapedType::isDynamicShape(shape))
      return o.emitOpError("needs a grid of static shape in emitted code");
    SmallVector<int16_t> axes(o.getAxes());
    if (axes.empty())
      for (size_t d = 0; d < shape.size(); ++d)
        axes.push_back(int16_t(d));
    for (auto [axis, result] : llvm::zip_equal(axes, o.getResult())) {
      int64_t stride = 1;
      for (size_t d = axis + 1; d < shape.size(); ++d)
        stride *= shape[d];
      if (failed(e.declare(
              result,
              llvm::formatv("static_cast<int64_t>(::pto::runtime::comm::"
                            "current().rank()) / {0} % {1}",
                            stride, shape[axis])
                  .str())))
        return failure();
    }
    return success();
  });
  e.add<AllGatherOp>([](AllGatherOp o, Emitter &e) {
    return emitAxisCollective(
        o, "all_gather_axis", {int64_t(o.getGatherAxis())},
        "every rank's buffer, concatenated along axis " +
            std::to_string(o.getGatherAxis()),
        e);
  });
  e.add<AllToAllOp>([](AllToAllOp o, Emitter &e) {
    return emitAxisCollective(
        o, "all_to_all_axes",
        {int64_t(o.getSplitAxis()), int64_t(o.getConcatAxis())},
        "pieces along axis " + std::to_string(o.getSplitAxis()) +
            " to every rank, received along axis " +
            std::to_string(o.getConcatAxis()),
        e);
  });
  e.add<AllSliceOp>([](AllSliceOp o, Emitter &e) {
    return emitAxisCollective(o, "all_slice_axis",
                              {int64_t(o.getSliceAxis())},
                              "this rank's piece along axis " +
                                  std::to_string(o.getSliceAxis()),
                              e);
  });
  e.add<ParamOp>([](ParamOp o, Emitter &e) {
    return e.declare(o.getResult(),
                     llvm::formatv("static_cast<int64_t>({0}.params[{1}])",
                                   e.name(o.getDescriptor()), o.getParamIndex())
                         .str());
  });
  e.add<KvEndOp>([](KvEndOp o, Emitter &e) {
    return e.declare(
        o.getResult(),
        "static_cast<int64_t>(::pto::runtime::params::Attention::kv_end(" +
            e.name(o.getDescriptor()) + "))");
  });
  e.add<HasFlagOp>([](HasFlagOp o, Emitter &e) {
    return e.declare(o.getResult(),
                     llvm::formatv("({0}.flags & {1}) != 0",
                                   e.name(o.getDescriptor()),
                                   static_cast<int>(o.getFlag()))
                         .str());
  });
  e.add<WorkIdOp>([](WorkIdOp o, Emitter &e) {
    return e.declare(o.getResult(), "static_cast<int64_t>(" +
                                        e.name(o.getDescriptor()) +
                                        ".work_id)");
  });
  e.add<DispatchOp>(
      [expanding = std::make_shared<ExpandingTables>()](DispatchOp op,
                                                        Emitter &e) {
        return emitDispatch(op, e, *expanding);
      });
  e.add<ReturnOp>([](ReturnOp, Emitter &e) {
    e.os << "return;\n";
    return success();
  });
}
