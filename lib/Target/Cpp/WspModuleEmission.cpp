//===- WspModuleEmission.cpp - the module structure of wsp's outputs ------===//
//
// The module structure of the four outputs: the CPU-simulation program, and
// the device form's ABI header, AICPU source and AICore source: globals,
// descriptor and kernel tables, kernels, functions and their C entries,
// captured steps. The ops inside are printed by their patterns
// (WspEmission.cpp and the Std and Tile pattern files).
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

#include <memory>
#include <string>

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::cpp;

namespace {

/// The structure of one output file around the ops' patterns.
class ModuleEmitter {
public:
  ModuleEmitter(raw_ostream &out, Flavor flavor, StringRef stem)
      : e(out, flavor), stem(stem.str()) {
    populateStdEmission(e);
    populateWspEmission(e);
    populateTileEmission(e);
  }

  LogicalResult emitModule(ModuleOp module);

private:
  LogicalResult emitGlobal(memref::GlobalOp op);
  LogicalResult emitTable(DescriptorTableOp op);
  LogicalResult emitBody(Region &body, StringRef prologue = "");
  LogicalResult emitKernel(KernelOp op);
  LogicalResult emitKernelTable(KernelTableOp op);
  LogicalResult emitFunc(func::FuncOp op);
  LogicalResult emitTableArgs(KernelTableOp op);
  LogicalResult emitTableEntry(KernelTableOp op);
  LogicalResult emitFuncArgs(func::FuncOp op);
  LogicalResult emitFuncCall(func::FuncOp op);
  LogicalResult emitFuncEntry(func::FuncOp op);
  FailureOr<std::string> tableParams(KernelTableOp op);
  LogicalResult emitDevice(ModuleOp module);
  LogicalResult emitStep(StepOp op);

  Emitter e;
  std::string stem;
  ExpandingTables expanding;
};

LogicalResult ModuleEmitter::emitGlobal(memref::GlobalOp op) {
  auto init = dyn_cast_if_present<DenseElementsAttr>(op.getInitialValueAttr());
  if (!init || !op.getConstant())
    return op.emitOpError("is emitted only as a constant with a dense value");
  FailureOr<std::string> t = e.scalarType(op.getType().getElementType(), op);
  if (failed(t))
    return failure();
  e.os << "// memref.global @" << op.getSymName() << "\n";
  e.os << "static const " << *t << " g_" << op.getSymName() << "["
       << init.getNumElements() << "] = {";
  llvm::interleaveComma(init.getValues<Attribute>(), e.os, [&](Attribute a) {
    e.os << e.constant(a, op.getType().getElementType());
  });
  e.os << "};\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitTable(DescriptorTableOp op) {
  raw_indented_ostream &os = e.os;
  os << "// wsp.descriptor_table @" << op.getSymName() << ": "
     << op.getNumDescriptors() << " descriptors planned at compile time ";
  if (op.getChunkAttr())
    os << "(chunk " << op.getChunkAttr().getInt() << ")\n";
  else
    os << "(balanced)\n";
  // The count is its own constant: an empty plan (every request idle) still
  // needs a one-element array, C++ having no zero-length ones.
  os << "static constexpr int64_t g_" << op.getSymName()
     << "_count = " << op.getNumDescriptors() << ";\n";
  os << "static const ::pto::runtime::WorkDescriptor g_" << op.getSymName()
     << "[" << std::max<int64_t>(op.getNumDescriptors(), 1) << "] = {\n";
  auto values = llvm::to_vector(op.getTable().getValues<int32_t>());
  for (int64_t row = 0; row < op.getNumDescriptors(); ++row) {
    const int32_t *r = &values[row * DescriptorTableOp::kColumns];
    os << llvm::formatv(
        "    {{{0}u, {1}, {2}, 0, {{{3}u, {4}u, {5}u, {6}u}},\n", r[0], r[1],
        r[2], r[3], r[4], r[5], r[6]);
  }
  os << "};\n";
  // A balanced plan's work lists and merge plan.
  for (auto [suffix, list] :
       {std::pair<StringRef, DenseI32ArrayAttr>{"cores", op.getCoreIndptrAttr()},
        {"merges", op.getMergeIndptrAttr()}}) {
    if (!list)
      continue;
    os << "static const int32_t g_" << op.getSymName() << "_" << suffix
       << "[] = {";
    llvm::interleaveComma(list.asArrayRef(), os);
    os << "};\n";
  }
  os << "\n";
  return success();
}

/// The AICore form takes tile kernels: data moves between global memory and
/// the core's buffers in tiles. Element-wise loads of 32- and 64-bit
/// integers (and of index) and of work descriptors are the scalars a kernel
/// reads (lengths, ids, block-table entries, another unit's descriptor); a
/// store, or a load of a float or a narrower integer (an int8 cache), moves
/// data element by element.
static bool movesDataByElement(Operation *op) {
  if (isa<memref::StoreOp>(op))
    return true;
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load)
    return false;
  Type t = load.getType();
  return !(t.isIndex() || t.isInteger(32) || t.isInteger(64) ||
           isa<DescriptorType>(t));
}

static LogicalResult checkTileKernel(KernelOp op) {
  WalkResult result = op.walk([&](Operation *inner) {
    bool scalarData = movesDataByElement(inner);
    if (!scalarData)
      return WalkResult::advance();
    inner->emitOpError()
        << "moves global-memory data element by element in wsp.kernel @"
        << op.getSymName()
        << "; the AICore form takes tile kernels (tile.load / tile.store), "
           "the CPU simulation runs this one";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// The rest of a function after its parameter list: the body, with the
/// arguments it does not use marked as such.
LogicalResult ModuleEmitter::emitBody(Region &body, StringRef prologue) {
  raw_indented_ostream &os = e.os;
  Block &entry = body.front();
  os << ") {\n";
  os.indent();
  os << prologue;
  for (BlockArgument arg : entry.getArguments())
    if (arg.use_empty())
      os << "(void)" << e.name(arg) << ";\n";
  if (failed(e.beginFunction(body)) || failed(e.emitBlock(entry)))
    return failure();
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitKernel(KernelOp op) {
  if (!op.isSpecialized())
    return op.emitOpError("is tier-generic; run wsp-specialize-tiers first");
  if (e.flavor == Flavor::Aicore && failed(checkTileKernel(op)))
    return failure();
  Block &entry = op.getBody().front();
  raw_indented_ostream &os = e.os;
  os << "// wsp.kernel @" << op.getSymName() << ", tier "
     << op.getTierAttr().getInt() << " of @" << op.getTiers() << "\n";
  // (A kernel no table names is printed all the same.)
  os << (e.flavor == Flavor::Aicore ? "[[maybe_unused]] static AICORE void "
                                    : "[[maybe_unused]] static void ")
     << op.getSymName() << "(";
  e.startNames();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    std::string n = e.argName(arg, i);
    if (i == 0) {
      os << "const ::pto::runtime::WorkDescriptor &" << n;
      continue;
    }
    FailureOr<std::string> t = e.type(arg.getType(), op);
    if (failed(t))
      return failure();
    os << ", " << *t << " " << n;
  }
  return emitBody(op.getBody());
}

LogicalResult ModuleEmitter::emitKernelTable(KernelTableOp op) {
  // The spec's dispatch_table[tier] (§7.2): one entry per tier id up to the
  // largest reachable one; unreachable tiers hold a trap.
  int64_t size = 0;
  for (int64_t id : op.getTierIds())
    size = std::max(size, id + 1);
  auto first = e.symbols.lookupNearestSymbolFrom<KernelOp>(op, op.getKernel(0));
  std::string params = "const ::pto::runtime::WorkDescriptor &";
  for (Type t : first.getArgumentTypes().drop_front()) {
    FailureOr<std::string> ct = e.type(t, op);
    if (failed(ct))
      return failure();
    params += ", " + *ct;
  }
  raw_indented_ostream &os = e.os;
  os << "// wsp.kernel_table @" << op.getSymName() << "\n";
  if (size != static_cast<int64_t>(op.getTierIds().size()))
    os << "static void " << op.getSymName() << "_unreachable(" << params
       << ") { std::abort(); }\n";
  os << "using " << op.getSymName() << "_fn = void (*)(" << params << ");\n";
  os << "static constexpr " << op.getSymName() << "_fn " << op.getSymName()
     << "_dispatch[" << size << "] = {";
  for (int64_t id = 0; id < size; ++id) {
    auto it = llvm::find(op.getTierIds(), id);
    os << (id ? ", " : "") << "&"
       << (it == op.getTierIds().end()
               ? (op.getSymName() + "_unreachable").str()
               : op.getKernel(it - op.getTierIds().begin()).getValue().str());
  }
  os << "};\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitFunc(func::FuncOp op) {
  if (op.isExternal())
    return op.emitOpError("is a declaration; the emitter prints definitions");
  // On the device a function is an AICPU entry: tile instructions run on
  // the AICore, in a wsp.kernel that the function dispatches.
  if (e.flavor == Flavor::Aicpu) {
    WalkResult tiles = op.walk([&](Operation *inner) {
      if (!isa_and_present<tile::TileDialect>(inner->getDialect()))
        return WalkResult::advance();
      inner->emitOpError()
          << "is an AICore instruction in func.func @" << op.getSymName()
          << ", which the device form runs on the AICPU; put the tile code in "
             "a wsp.kernel and dispatch it (the CPU simulation runs it as it "
             "is)";
      return WalkResult::interrupt();
    });
    if (tiles.wasInterrupted())
      return failure();
  }
  if (op.getNumResults() > 1)
    return op.emitOpError("returns more than one value, which the C++ "
                          "emitter does not print");
  std::string result = "void";
  if (op.getNumResults() == 1) {
    FailureOr<std::string> t = e.type(op.getResultTypes()[0], op);
    if (failed(t))
      return failure();
    result = *t;
  }
  Block &entry = op.getBody().front();
  raw_indented_ostream &os = e.os;
  os << "// func.func @" << op.getSymName() << "\n";
  os << (e.flavor == Flavor::Aicpu ? "static " : "") << result << " "
     << op.getSymName() << (e.flavor == Flavor::Aicpu ? "_impl" : "") << "(";
  e.startNames();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    std::string n = e.argName(arg, i);
    FailureOr<std::string> t = e.type(arg.getType(), op);
    if (failed(t))
      return failure();
    os << (i ? ", " : "") << *t << " " << n;
  }
  // In the simulation, a function that plans or dispatches names the
  // charts of its plans (pto/runtime/plan_svg.hpp: wspc --run --plan-svg).
  std::string prologue;
  if (e.flavor == Flavor::CpuSim &&
      op.walk([](Operation *inner) {
          return isa<DispatchOp, PlanBalancedOp>(inner)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        }).wasInterrupted())
    prologue = ("const ::pto::runtime::sim::PlanCall wsp_plan_call(\"" +
                op.getSymName() + "\");\n")
                   .str();
  return emitBody(op.getBody(), prologue);
}

FailureOr<std::string> ModuleEmitter::tableParams(KernelTableOp op) {
  auto first = e.symbols.lookupNearestSymbolFrom<KernelOp>(op, op.getKernel(0));
  std::string params;
  for (auto [i, t] : llvm::enumerate(first.getArgumentTypes().drop_front())) {
    FailureOr<std::string> ct = e.type(t, op);
    if (failed(ct))
      return failure();
    params += "  " + *ct + " a" + std::to_string(i + 1) + ";\n";
  }
  return params;
}

LogicalResult ModuleEmitter::emitTableArgs(KernelTableOp op) {
  FailureOr<std::string> params = tableParams(op);
  if (failed(params))
    return failure();
  raw_indented_ostream &os = e.os;
  os << "/// The argument block of wsp.kernel_table @" << op.getSymName()
     << ", in global memory.\n";
  os << "struct " << op.getSymName() << "_args {\n";
  os << "  __gm__ const ::pto::runtime::WorkDescriptor *descs;\n";
  os << "  int64_t count;\n";
  os << "  int32_t schedule; // 0 grid, 1 row_affine, 2 persistent\n";
  os << "  int32_t num_blocks; // the cores (blocks) launched\n";
  os << "  uint64_t ffts_addr; // device: the FFTS base address cube and "
        "vector cores sync through (set by the launch hook)\n";
  os << "  __gm__ const int32_t *core_indptr; // persistent: core c runs "
        "[core_indptr[c], core_indptr[c+1])\n";
  if (expanding.contains(op)) {
    os << "  // expand: the plan as cuts (null: the buffer holds the plan); "
          "core c\n  // writes its descriptors from sweep_cuts[c], "
          "sweep_cuts[c+1] first.\n";
    os << "  __gm__ const ::pto::runtime::SweepCut *sweep_cuts;\n";
    os << "  __gm__ const int32_t *sweep_lens;\n";
    os << "  int32_t sweep_batch;\n";
    os << "  int32_t sweep_heads;\n";
    os << "  ::pto::runtime::BalancedConfig sweep_config;\n";
  }
  if (expanding.expandsRows(op)) {
    os << "  // expand_rows: a plan as rows (null: the buffer holds the plan); "
          "each\n  // core writes the descriptors it runs from them first.\n";
    os << "  __gm__ const int32_t *spec_rows;\n";
    os << "  int64_t spec_rows_size;\n";
  }
  os << *params << "};\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitTableEntry(KernelTableOp op) {
  // Which cores the entry runs on: those its kernels' tile instructions
  // use; for kernels without tile instructions, the dispatches' kind (mix
  // over cube over vector).
  bool units[2] = {false, false};
  for (Attribute k : op.getKernels())
    if (auto kernel = e.symbols.lookupNearestSymbolFrom<KernelOp>(
            op, cast<FlatSymbolRefAttr>(k)))
      kernel.walk([&](tile::PipeOpInterface p) {
        units[p.getUnit() == tile::Unit::cube ? 0 : 1] = true;
      });
  bool cube = units[0], vector = units[1];
  if (!cube && !vector)
    if (auto module = op->getParentOfType<ModuleOp>())
      module.walk([&](DispatchOp d) {
        if (d.getKernel() != op.getSymName())
          return;
        cube |= d.getCoreKind() != CoreKind::vector;
        vector |= d.getCoreKind() != CoreKind::cube;
      });
  std::string kind = cube && vector ? "KERNEL_TYPE_MIX_AIC_1_2"
                     : cube         ? "KERNEL_TYPE_AIC_ONLY"
                                    : "KERNEL_TYPE_AIV_ONLY";
  auto first = e.symbols.lookupNearestSymbolFrom<KernelOp>(op, op.getKernel(0));
  std::string args;
  for (unsigned i = 1, n = first.getArgumentTypes().size(); i < n; ++i)
    args += ", args.a" + std::to_string(i);
  std::string t = op.getSymName().str();
  raw_indented_ostream &os = e.os;
  os << "// wsp.kernel_table @" << t
     << ": the AICore entry. Each core runs its share of the descriptors\n"
     << "// and selects the tier's specialization with a switch.\n";
  os << "extern \"C\" __global__ AICORE void " << t
     << "_entry(__gm__ uint8_t *args_gm) {\n";
  os.indent();
  os << "#if !defined(__CPU_SIM) && defined(KERNEL_TASK_TYPE_DEFAULT)\n";
  os << "KERNEL_TASK_TYPE_DEFAULT(" << kind << ");\n";
  os << "#endif\n";
  os << "const wsp_gen::" << t << "_args &args =\n"
     << "    *reinterpret_cast<__gm__ const wsp_gen::" << t
     << "_args *>(args_gm);\n";
  if (kind == "KERNEL_TYPE_MIX_AIC_1_2") {
    os << "#if !defined(__CPU_SIM) && !defined(__COSTMODEL)\n";
    os << "set_ffts_base_addr(args.ffts_addr); // cube <-> vector flags\n";
    os << "#endif\n";
  }
  os << "const int count = static_cast<int>(args.count);\n";
  os << "const int core = static_cast<int>(get_block_idx());\n";
  os << "const int cores = args.num_blocks;\n";
  os << "int begin = core, end = count, step = cores; // grid\n";
  // A plan the cores expand (as rows, or as cuts): the tiers its
  // descriptors take, and the buffer each core writes its own into.
  TierConfigOp tiers;
  if (expanding.expandsRows(op) || expanding.contains(op)) {
    tiers = e.symbols.lookupNearestSymbolFrom<TierConfigOp>(
        first, first.getTiersAttr());
    if (!tiers)
      return first.emitOpError("names no wsp.tier_config");
  }
  auto ownDescriptors = [&](StringRef indent) {
    os << indent << "__gm__ ::pto::runtime::WorkDescriptor *own =\n"
       << indent
       << "    const_cast<__gm__ ::pto::runtime::WorkDescriptor "
          "*>(args.descs);\n";
  };
  if (expanding.expandsRows(op)) {
    os << "if (args.spec_rows) { // the plan as rows: this core's descriptors "
          "first\n";
    os << "  const ::pto::runtime::SpecRows<" << getTierConfigCppType(tiers)
       << "> rows(\n      args.spec_rows, args.spec_rows_size, {});\n";
    os << "  if (rows.count() != count)\n    return;\n";
    os << "  if (args.schedule == 1) { // row_affine: whole rows per core\n";
    os << "    begin = rows.range_begin(core, cores);\n";
    os << "    end = rows.range_begin(core + 1, cores);\n";
    os << "    step = 1;\n";
    os << "  }\n";
    ownDescriptors("  ");
    os << "  rows.for_each(begin, end, step,\n"
          "                [&](const ::pto::runtime::WorkDescriptor &w) { "
          "own[w.work_id] = w; });\n";
    os << "} else ";
  }
  os << "if (args.schedule == 1) { // row_affine: whole rows per core\n";
  os << "  begin = ::pto::runtime::row_range_begin(args.descs, count, core, "
        "cores);\n";
  os << "  end = ::pto::runtime::row_range_begin(args.descs, count, core + 1, "
        "cores);\n";
  os << "  step = 1;\n";
  os << "} else if (args.schedule == 2) { // persistent: the core's work "
        "list\n";
  if (expanding.contains(op)) {
    os << "  if (args.sweep_cuts) { // the plan as cuts: this core's "
          "descriptors first\n";
    ownDescriptors("    ");
    os << "    ::pto::runtime::for_each_sweep_piece(\n";
    os << "        args.sweep_lens, args.sweep_batch, args.sweep_heads, "
          "args.sweep_config,\n";
    os << "        " << getTierConfigCppType(tiers)
       << "{},\n        args.sweep_cuts[core], args.sweep_cuts[core + 1],\n";
    os << "        [&](const ::pto::runtime::WorkDescriptor &w) { "
          "own[w.work_id] = w; });\n";
    os << "  }\n";
  }
  os << "  begin = std::max(static_cast<int>(args.core_indptr[core]), 0);\n";
  os << "  end = std::min(static_cast<int>(args.core_indptr[core + 1]), "
        "count);\n";
  os << "  step = 1;\n";
  os << "}\n";
  os << "for (int i = begin; i < end; i += step) {\n";
  os.indent();
  os << "const ::pto::runtime::WorkDescriptor d = args.descs[i];\n";
  os << "switch (d.tier) {\n";
  // Tiers that share a specialization share its case.
  SmallVector<StringRef> done;
  for (auto [i, id] : llvm::enumerate(op.getTierIds())) {
    StringRef kernel = op.getKernel(i).getValue();
    if (llvm::is_contained(done, kernel))
      continue;
    done.push_back(kernel);
    for (auto [j, other] : llvm::enumerate(op.getTierIds()))
      if (op.getKernel(j).getValue() == kernel)
        os << "case " << other << ":\n";
    os << "  wsp_gen::" << kernel << "(d" << args << ");\n  break;\n";
  }
  os << "default: // a tier planning proved unreachable\n  break;\n";
  os << "}\n";
  os.unindent();
  os << "}\n";
  os.unindent();
  os << "}\n\n";
  // pto-isa's CPU simulation stands in for the AICPU -> AICore launch: one
  // thread per core with its block index set. A mixed kernel's block is
  // three threads (the cube and two vector cores, synchronized by their
  // cross-core flags); any other kernel's block is one.
  os << "#if defined(__CPU_SIM) && !defined(__COSTMODEL)\n";
  os << "extern \"C\" void wsp_launch_" << t << "(wsp_gen::" << t
     << "_args *args, int num_cores) {\n";
  std::string entry =
      "[&] { " + t + "_entry(reinterpret_cast<uint8_t *>(args)); }";
  if (kind == "KERNEL_TYPE_MIX_AIC_1_2") {
    os << "  wsp_aicore::launch_mixed(\"" << t << "\", num_cores, " << entry
       << ");\n";
  } else {
    os << "  pto::cpu_sim::KernelLaunchOptions options;\n";
    os << "  options.kernel_name = \"" << t << "\";\n";
    os << "  options.explicit_block_count = "
          "static_cast<uint32_t>(num_cores);\n";
    os << "  options.write_trace_files = false;\n";
    os << "  pto::cpu_sim::LaunchKernelMultiCore(options, nullptr, " << entry
       << ");\n";
  }
  os << "}\n";
  os << "#endif\n";
  // pto-isa's perf-sim cost model: LAUNCH_KERNEL runs a function (named
  // after the table, which names the report) per block and sub-block and
  // simulates the recorded instructions; each block is simulated alone.
  os << "#if defined(__COSTMODEL)\n";
  os << "static wsp_gen::" << t << "_args *" << t << "_launched;\n";
  os << "static void " << t << "() {\n";
  const bool vectorOnly = kind == "KERNEL_TYPE_AIV_ONLY";
  os << "  wsp_aicore::CostmodelBlock block;\n";
  if (vectorOnly)
    os << "  if (block.idle())\n    return;\n";
  os << "  " << t << "_entry(reinterpret_cast<__gm__ uint8_t *>(" << t
     << "_launched));\n";
  os << "}\n";
  os << "extern \"C\" void wsp_launch_" << t << "(wsp_gen::" << t
     << "_args *args, int num_cores) {\n";
  os << "  " << t << "_launched = args;\n";
  os << "  wsp_aicore::costmodel_launch(\"" << t << "\", num_cores, [] {\n";
  os << "    LAUNCH_KERNEL(" << t << ", , (1, nullptr, nullptr));\n";
  os << (vectorOnly ? "  }, /*vector_only=*/true);\n" : "  });\n");
  os << "}\n";
  os << "#endif\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitFuncArgs(func::FuncOp op) {
  raw_indented_ostream &os = e.os;
  os << "/// The argument block of the AICPU entry " << op.getSymName()
     << ".\n";
  os << "struct " << op.getSymName() << "_args {\n";
  for (auto [i, t] : llvm::enumerate(op.getArgumentTypes())) {
    FailureOr<std::string> ct = e.type(t, op);
    if (failed(ct))
      return failure();
    os << "  " << *ct << " a" << i << ";\n";
  }
  os << "};\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitFuncCall(func::FuncOp op) {
  std::string f = op.getSymName().str();
  raw_indented_ostream &os = e.os;
  std::string params, fields;
  for (auto [i, t] : llvm::enumerate(op.getArgumentTypes())) {
    FailureOr<std::string> ct = e.type(t, op);
    if (failed(ct))
      return failure();
    params += (i ? ", " : "") + *ct + " a" + std::to_string(i);
    fields += (i ? ", a" : "a") + std::to_string(i);
  }
  bool status = op.getNumResults() == 1;
  os << "/// func.func @" << f << " through its AICPU entry.\n";
  os << "inline " << (status ? "int32_t " : "void ") << f << "(" << params
     << ") {\n";
  os.indent();
  os << f << "_args args{" << fields << "};\n";
  os << (status ? "return static_cast<int32_t>(::" : "(void)(::") << f
     << "(&args));\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitFuncEntry(func::FuncOp op) {
  std::string f = op.getSymName().str();
  raw_indented_ostream &os = e.os;
  os << "// The AICPU entry of func.func @" << f
     << ": plans, fills the descriptor\n// buffer and launches the AICore "
        "kernels; returns the planner's status.\n";
  os << "extern \"C\" AICPU int " << f << "(void *args_ptr) {\n";
  os.indent();
  os << "auto *args = static_cast<wsp_gen::" << f << "_args *>(args_ptr);\n";
  std::string call = "wsp_gen::" + f + "_impl(";
  for (unsigned i = 0; i < op.getNumArguments(); ++i)
    call += (i ? ", args->a" : "args->a") + std::to_string(i);
  call += ")";
  if (op.getNumResults() == 1)
    os << "return static_cast<int>(" << call << ");\n";
  else
    os << call << ";\nreturn 0;\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

/// wsp.step: the captured function's launches (its func.call ops, one per
/// operator after convert-llm-to-wsp) recorded once into a
/// pto::runtime::StepTable by `<step>_build`, replayed by `<step>_replay`.
/// Each launch gets a struct of its bound arguments and a trampoline that
/// calls it from them (a token buffer it reads or writes row by row comes
/// from the command's patched buffer instead). The launches are
/// getStepCapture's, whose checks wsp-check-emittable made: this prints.
LogicalResult ModuleEmitter::emitStep(StepOp step) {
  // What the table records; wsp-check-emittable names what it cannot.
  FailureOr<StepCapture> capture =
      getStepCapture(step, e.symbols, /*diagnose=*/false);
  if (failed(capture))
    return emitNotAccepted(step);
  func::FuncOp f = capture->function;
  std::optional<unsigned> positions = capture->positions,
                          kvLens = capture->kvLens;
  Block &entry = f.getBody().front();
  const std::string t = step.getSymName().str();
  raw_indented_ostream &os = e.os;
  // The device form splits the table: its types and the build and replay
  // entry points in the ABI header (the host program declares the table),
  // the code in the AICPU file (the launches are AICPU functions there).
  const bool types = e.flavor != Flavor::Aicpu;
  const bool code = e.flavor != Flavor::Abi;
  const std::string linkage = e.flavor == Flavor::CpuSim ? "inline " : "";

  // Argument types, once.
  SmallVector<std::string> argTypes;
  for (Type type : f.getArgumentTypes()) {
    FailureOr<std::string> ct = e.type(type, f);
    if (failed(ct))
      return failure();
    argTypes.push_back(*ct);
  }

  // Per launch: the bound arguments and the trampoline.
  auto launchName = [&](size_t k) { return t + "_launch" + std::to_string(k); };
  for (auto [k, l] : llvm::enumerate(capture->launches)) {
    func::CallOp call = l.call;
    const std::string name = launchName(k);
    SmallVector<std::string> fields;
    struct KeptField {
      std::string elem, name;
      int64_t size;
    };
    SmallVector<KeptField> keptFields;
    if (types) {
      os << "/// Launch " << k << " of wsp.step @" << t << ": func.call @"
         << call.getCallee() << ", its arguments bound at build.\n";
      os << "struct " << name << " {\n";
    }
    for (auto [i, type] : llvm::enumerate(call.getOperandTypes())) {
      FailureOr<std::string> ct = e.type(type, call);
      if (failed(ct))
        return failure();
      if (types)
        os << "  " << *ct << " a" << i << ";\n";
      fields.push_back((l.patched == i ? "a" : "b.a") + std::to_string(i));
    }
    // The kept plan's buffers, on the heap (a plan of thousands of
    // descriptors would make the table too large for a stack), zeroed at
    // build: nothing planned yet.
    for (BlockArgument arg : l.kept ? l.kept.getArguments().drop_front(
                                          call.getNumOperands())
                                    : ArrayRef<BlockArgument>()) {
      auto type = cast<MemRefType>(arg.getType());
      FailureOr<std::string> view = e.type(type, call);
      FailureOr<std::string> elem = e.scalarType(type.getElementType(), call);
      if (failed(view) || failed(elem))
        return failure();
      // Named as the variant's argument (its source name, made an
      // identifier), else by its number.
      std::string field;
      for (char c : getSourceName(arg.getLoc()))
        field += llvm::isAlnum(c) || c == '_' ? c : '_';
      if (field.empty() || llvm::isDigit(field.front()) ||
          llvm::any_of(keptFields,
                       [&](const KeptField &f) { return f.name == field; }))
        field = "k" + std::to_string(arg.getArgNumber());
      keptFields.push_back({*elem, field, type.getNumElements()});
      fields.push_back(*view + "{kept." + field + ", {" +
                       std::to_string(type.getNumElements()) + "}}");
    }
    if (types && l.kept) {
      os << "  /// The plan @" << l.kept.getSymName()
         << " keeps from call to call.\n";
      os << "  struct Kept {\n";
      for (const KeptField &f : keptFields)
        os << "    " << f.elem << " " << f.name << "[" << f.size << "];\n";
      os << "  };\n";
      os << "  std::unique_ptr<Kept> kept;\n";
    }
    if (types)
      os << "};\n";
    if (!code)
      continue;
    os << "/// Runs launch " << k << " of wsp.step @" << t
       << " from its bound arguments.\n";
    const bool scalars = l.position || l.kvSeqLen;
    os << "static int32_t " << name << "_run(void *const *buffers, const "
       << (scalars ? "uint8_t *params" : "uint8_t *")
       << ", const ::pto::runtime::WorkDescriptor *, int) {\n";
    os.indent();
    os << "const auto &b = *static_cast<const " << name
       << " *>(buffers[0]);\n";
    if (l.kept)
      os << "auto &kept = *b.kept;\n";
    if (scalars) {
      // The position and KV length (position + 1) of this token, which
      // the table writes into the command's parameter bytes.
      os << "// This token's position and KV length (patched per token).\n";
      if (l.position)
        fields[*l.position] = "::pto::runtime::patched_i32(params, 0)";
      if (l.kvSeqLen)
        fields[*l.kvSeqLen] =
            std::string("::pto::runtime::patched_i32(params, ") +
            (l.position ? "4" : "0") + ")";
    }
    if (l.patched) {
      std::string a = "a" + std::to_string(*l.patched);
      os << "// This token's row of the token buffer (patched per token).\n";
      os << "auto " << a << " = b." << a << ";\n";
      os << a << ".data = static_cast<decltype(" << a
         << ".data)>(buffers[1]);\n";
    }
    os << "return "
       << (l.kept ? l.kept.getSymName() : call.getCallee())
       << (e.flavor == Flavor::Aicpu ? "_impl" : "") << "("
       << llvm::join(fields, ", ") << ");\n";
    os.unindent();
    os << "}\n\n";
  }

  // The table, and the argument block a replay must match.
  if (types) {
  os << "/// wsp.step @" << t << ": @" << f.getSymName() << " built once (" << t
     << "_build) and replayed per token (" << t << "_replay).\n";
  os << "struct " << t << " {\n";
  os << "  ::pto::runtime::StepTable steps{0, 0};\n";
  for (size_t k = 0; k < capture->launches.size(); ++k)
    os << "  " << launchName(k) << " launch" << k << ";\n";
  os << "};\n";
  os << "struct " << t << "_arguments {\n";
  for (auto [i, type] : llvm::enumerate(argTypes))
    os << "  " << type << " a" << i << ";\n";
  os << "};\n\n";
  }

  // Build: the captured body with each launch recorded, not run.
  e.startNames();
  SmallVector<std::string> argNames;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments()))
    argNames.push_back(e.argName(arg, i));
  std::string params;
  for (auto [i, type] : llvm::enumerate(argTypes))
    params += ", " + type + " " + argNames[i];
  auto packArguments = [&] {
    os << t << "_arguments bound;\n";
    os << "std::memset(&bound, 0, sizeof bound);\n";
    for (unsigned i = 0; i < argNames.size(); ++i)
      os << "bound.a" << i << " = " << argNames[i] << ";\n";
  };
  std::string args = llvm::join(argNames, ", ");
  const std::string buildSignature =
      "int32_t " + t + "_build(" + t +
      " &captured, int32_t max_tokens, int32_t kv_capacity" + params + ")";
  const std::string replaySignature =
      "int32_t " + t + "_replay(" + t +
      " &captured, int32_t first_token, int32_t num_tokens" + params + ")";
  const char *buildDoc =
      "/// Records the step's launches with their arguments, once (on an "
      "error,\n/// none). max_tokens: the tokens a replay may run (the token "
      "buffer holds\n/// one row more); kv_capacity: the KV positions of one "
      "request.\n";
  const char *replayDoc =
      "/// Replays tokens [first_token, first_token + num_tokens) of the "
      "table\n/// built from these arguments (INVALID_PARAMS, 3, on others).\n";
  if (!code) {
    os << buildDoc << buildSignature << ";\n" << replayDoc << replaySignature
       << ";\n\n";
    return success();
  }
  os << "/// The body of @" << f.getSymName()
     << ", each launch recorded instead of run.\n";
  os << "static int32_t " << t << "_record(" << t << " &captured" << params
     << ") {\n";
  os.indent();
  {
    unsigned next = 0;
    auto guard = e.override<func::CallOp>(
        [&](func::CallOp call, Emitter &e) -> LogicalResult {
          const unsigned k = next++;
          if (k >= capture->launches.size() ||
              capture->launches[k].call != call)
            return failure(); // printed in another order than found
          const StepLaunch &l = capture->launches[k];
          const std::string name = launchName(k);
          e.os << "captured.launch" << k << " = " << name << "{"
               << e.join(call.getOperands());
          if (l.kept)
            e.os << (call.getNumOperands() ? ", " : "")
                 << "std::make_unique<" << name << "::Kept>()";
          e.os << "};\n";
          std::string record = "captured.steps.add_launch(" + name +
                               "_run, &captured.launch" + std::to_string(k) +
                               ", \"" + call.getCallee().str() + "\"";
          if (l.patched) {
            Value tokens = call.getOperand(*l.patched);
            auto type = cast<MemRefType>(tokens.getType());
            std::string rowBytes = "4";
            for (int64_t d = 0; d < type.getRank(); ++d)
              rowBytes +=
                  " * " + e.name(tokens) + ".sizes[" + std::to_string(d) + "]";
            record += std::string(", ::pto::runtime::StepPatch::") +
                      (l.kind == StepPatchKind::token_offset ? "TokenOffset"
                                                             : "ArgmaxOutput") +
                      ", " + e.name(tokens) + ".data, static_cast<uint32_t>(" +
                      rowBytes + ")";
          }
          if (l.position || l.kvSeqLen)
            record = "captured.steps.add_launch_patching(" + name +
                     "_run, &captured.launch" + std::to_string(k) + ", \"" +
                     call.getCallee().str() +
                     "\", ::pto::runtime::StepPatch::" +
                     (l.position && l.kvSeqLen ? "PosAndKv"
                      : l.position             ? "Position"
                                               : "KvSeqLen");
          record += ") ? 0 : 3";
          return e.declare(call.getResult(0), record);
        });
    for (auto [i, arg] : llvm::enumerate(entry.getArguments()))
      if (arg.use_empty())
        os << "(void)" << argNames[i] << ";\n";
    if (failed(e.beginFunction(f.getBody())) || failed(e.emitBlock(entry)))
      return failure();
  }
  os.unindent();
  os << "}\n\n";
  os << buildDoc << linkage << buildSignature << " {\n";
  os.indent();
  // A single sequence's position and KV length, patched per token: the
  // table counts from the position the step was built with (the KV
  // length's minus one), and the two must agree.
  std::optional<unsigned> position = capture->position,
                          kvSeqLen = capture->kvSeqLen;
  std::string base = "0";
  if (position)
    base = argNames[*position];
  else if (kvSeqLen)
    base = argNames[*kvSeqLen] + " - 1";
  os << "captured.steps = ::pto::runtime::StepTable(max_tokens, "
        "kv_capacity, "
     << base << ");\n";
  if (position && kvSeqLen) {
    os << "if (" << argNames[*kvSeqLen] << " != static_cast<int64_t>("
       << argNames[*position] << ") + 1) { // KV length = position + 1\n";
    os << "  captured.steps.clear();\n";
    os << "  return 3;\n";
    os << "}\n";
  }
  packArguments();
  os << "captured.steps.bind_arguments(&bound, sizeof bound);\n";
  if (positions || kvLens) {
    unsigned batchArg = kvLens ? *kvLens : *positions;
    os << "captured.steps.bind_requests("
       << (positions ? argNames[*positions] + ".data" : "nullptr") << ", "
       << (kvLens ? argNames[*kvLens] + ".data" : "nullptr")
       << ", to_runtime_int(" << argNames[batchArg] << ".sizes[0]));\n";
  }
  os << "const int32_t status = " << t << "_record(captured, " << args
     << ");\n";
  os << "if (status != 0)\n";
  os << "  captured.steps.clear();\n";
  os << "return status;\n";
  os.unindent();
  os << "}\n\n";

  // Replay: on the arguments it was built on, only.
  os << replayDoc << linkage << replaySignature << " {\n";
  os.indent();
  packArguments();
  os << "if (!captured.steps.matches(&bound, sizeof bound))\n";
  os << "  return 3;\n";
  os << "return captured.steps.replay_chain(first_token, num_tokens);\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult ModuleEmitter::emitDevice(ModuleOp module) {
  SmallVector<KernelTableOp> tables;
  // Every function is printed on the AICPU; the public ones are its
  // entries (a private one is a captured step's launch, called there).
  SmallVector<func::FuncOp> funcs, entries;
  SmallVector<StepOp> steps;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto t = dyn_cast<KernelTableOp>(op))
      tables.push_back(t);
    else if (auto f = dyn_cast<func::FuncOp>(op)) {
      funcs.push_back(f);
      if (!f.isPrivate())
        entries.push_back(f);
    } else if (auto step = dyn_cast<StepOp>(op))
      steps.push_back(step);
    else if (!isa<KernelOp, DescriptorTableOp, memref::GlobalOp,
                  TierConfigOp, shard::GridOp>(op))
      return op.emitOpError("cannot be emitted as C++ at module level");
  }
  raw_indented_ostream &os = e.os;
  if (e.flavor == Flavor::Abi) {
    os << "// Generated by wsp-translate --wsp-to-abi. Do not edit.\n";
    os << "// The interface between " << stem << "_aicpu.cpp and " << stem
       << "_aicore.cpp: memref views and argument blocks.\n";
    os << "#pragma once\n\n";
    // The step tables are host and AICPU code: not on an AICore.
    if (!steps.empty())
      os << "#if defined(__CPU_SIM) || !defined(__CCE_AICORE__)\n"
            "#include <pto/runtime/step_table.hpp>\n\n#include <memory>\n"
            "#endif\n";
    os << kPrelude;
    for (KernelTableOp t : tables)
      if (failed(emitTableArgs(t)))
        return failure();
    for (func::FuncOp f : entries)
      if (failed(emitFuncArgs(f)))
        return failure();
    if (!steps.empty())
      os << "#if defined(__CPU_SIM) || !defined(__CCE_AICORE__)\n";
    for (StepOp step : steps)
      if (failed(emitStep(step)))
        return failure();
    if (!steps.empty())
      os << "#endif\n";
    os << "} // namespace wsp_gen\n\n";
    os << "// AICPU -> AICore launches: provided by the device integration "
          "on NPU,\n// by "
       << stem << "_aicore.cpp under __CPU_SIM.\n";
    for (KernelTableOp t : tables)
      os << "extern \"C\" void wsp_launch_" << t.getSymName()
         << "(wsp_gen::" << t.getSymName() << "_args *args, int num_cores);\n";
    if (hasCollectives(module))
      os << "\n// The bytes of the collectives, moved on the AICore (a "
            "pto::runtime::comm::GatherFn,\n// by pto-isa's TGATHER): "
         << stem << "_aicore.cpp.\n"
         << "extern \"C\" void " << gatherEntryName(stem) << kGatherParams
         << ";\n";
    // The AICPU entries, and a typed call of each with the CPU-sim form's
    // signature, so a host program calls either form the same way.
    if (!entries.empty())
      os << "\n// The AICPU entries (" << stem << "_aicpu.cpp).\n";
    for (func::FuncOp f : entries)
      os << "extern \"C\" int " << f.getSymName() << "(void *args_ptr);\n";
    if (!entries.empty())
      os << "\nnamespace wsp_gen {\n\n";
    for (func::FuncOp f : entries)
      if (failed(emitFuncCall(f)))
        return failure();
    if (!entries.empty())
      os << "} // namespace wsp_gen\n";
    return success();
  }
  os << "// Generated by wsp-translate --wsp-to-"
     << (e.flavor == Flavor::Aicpu ? "aicpu" : "aicore") << ". Do not edit.\n";
  if (e.flavor == Flavor::Aicore)
    os << "// The AICore kernels over pto-isa (hw-native-sys/pto-isa), which "
          "comes first:\n// the runtime headers leave get_block_idx() to it.\n"
          "#include <pto/pto-inst.hpp>\n#include <pto/runtime/aicore.hpp>\n";
  os << "#include \"" << stem << "_abi.h\"\n";
  // Collectives run on the AICPU, over the run's group.
  if (e.flavor == Flavor::Aicpu && hasCollectives(module))
    os << "#include <pto/runtime/collectives.hpp>\n";
  os << "\n";
  os << "namespace wsp_gen {\n\n";
  if (e.flavor == Flavor::Aicore)
    os << "using namespace pto;\n\n";
  for (Operation &op : module.getBody()->getOperations()) {
    LogicalResult r = success();
    if (e.flavor == Flavor::Aicpu) {
      if (auto g = dyn_cast<memref::GlobalOp>(op))
        r = emitGlobal(g);
      else if (auto t = dyn_cast<DescriptorTableOp>(op))
        r = emitTable(t);
    } else if (auto k = dyn_cast<KernelOp>(op)) {
      r = emitKernel(k);
    }
    if (failed(r))
      return failure();
  }
  if (e.flavor == Flavor::Aicpu) {
    for (func::FuncOp f : funcs)
      if (failed(emitFunc(f)))
        return failure();
    for (StepOp step : steps)
      if (failed(emitStep(step)))
        return failure();
  }
  os << "} // namespace wsp_gen\n\n";
  if (e.flavor == Flavor::Aicpu) {
    for (func::FuncOp f : entries)
      if (failed(emitFuncEntry(f)))
        return failure();
  } else {
    for (KernelTableOp t : tables)
      if (failed(emitTableEntry(t)))
        return failure();
    if (hasCollectives(module)) {
      os << "// The bytes of the program's collectives: the AICPU's "
            "communicator calls this\n// between the ranks' agreement on a "
            "call and their wait after it; the pieces\n// are pulled by "
            "pto-isa's TGATHER (wsp_aicore::gather_pieces).\n";
      os << "extern \"C\" void " << gatherEntryName(stem) << kGatherParams
         << " {\n"
         << "  wsp_aicore::gather_pieces(sends, recv, bytes, pieces, self);\n"
         << "}\n";
    }
  }
  return success();
}

LogicalResult ModuleEmitter::emitModule(ModuleOp module) {
  // Source names never take the names the module's symbols give C++
  // functions, tables and types.
  for (Operation &op : *module.getBody())
    if (auto sym = dyn_cast<SymbolOpInterface>(op))
      for (StringRef suffix :
           {"", "_impl", "_args", "_fn", "_dispatch", "_unreachable", "_table",
            "_count", "_table_args", "_table_fn", "_table_dispatch", "_build",
            "_record", "_replay", "_arguments"})
        e.reserve((sym.getName() + suffix).str());
  // The names a captured step's build and replay functions declare.
  if (!module.getOps<StepOp>().empty())
    for (StringRef name : {"captured", "bound", "max_tokens", "kv_capacity",
                           "first_token", "num_tokens", "status"})
      e.reserve(name);
  // The simulation's name for a function's call (its plan charts).
  e.reserve("wsp_plan_call");
  if (e.flavor != Flavor::CpuSim)
    return emitDevice(module);
  raw_indented_ostream &os = e.os;
  os << "// Generated by wsp-translate --wsp-to-cpusim. Do not edit.\n";
  if (hasCollectives(module))
    os << "#include <pto/runtime/collectives.hpp>\n";
  if (!module.getOps<StepOp>().empty())
    os << "#include <pto/runtime/step_table.hpp>\n\n#include <memory>\n";
  // The simulation draws each plan it makes or dispatches (wspc --plan-svg),
  // and a self-check names its cases there (sim::set_plan_case).
  os << "#include <pto/runtime/plan_svg.hpp>\n";
  os << kPrelude;
  // Each thread its own: calls of the program on several threads (the C
  // entry points' callers) record their dispatches apart.
  os << "/// Where wsp.dispatch records per-core statistics (may be null): the "
        "calling\n/// thread's, each thread that calls the program has its "
        "own.\n";
  os << "inline thread_local ::pto::runtime::sim::LaunchReport "
        "*wsp_launch_report =\n    nullptr;\n";
  os << "/// The simulation options of row_affine dispatches.\n";
  os << "inline ::pto::runtime::sim::Options wsp_rows_options() {\n";
  os << "  ::pto::runtime::sim::Options options;\n";
  os << "  options.schedule = ::pto::runtime::sim::Schedule::Rows;\n";
  os << "  return options;\n";
  os << "}\n\n";
  // Dependency order: data, kernels, their tables, then the functions
  // that dispatch them; module order within each group.
  for (int group = 0; group < 5; ++group) {
    for (Operation &op : module.getBody()->getOperations()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](memref::GlobalOp g) {
                return group == 0 ? emitGlobal(g) : success();
              })
              .Case([&](DescriptorTableOp t) {
                return group == 0 ? emitTable(t) : success();
              })
              .Case([&](KernelOp k) {
                return group == 1 ? emitKernel(k) : success();
              })
              .Case([&](KernelTableOp t) {
                return group == 2 ? emitKernelTable(t) : success();
              })
              .Case([&](func::FuncOp f) {
                return group == 3 ? emitFunc(f) : success();
              })
              .Case([&](StepOp step) {
                return group == 4 ? emitStep(step) : success();
              })
              .Case([&](TierConfigOp) { return success(); }) // folded in
              // A grid names the group its collectives run on; the code
              // asks the run's group (pto::runtime::comm::current()).
              .Case([&](shard::GridOp) { return success(); })
              .Default([&](Operation *other) {
                return other->emitOpError(
                    "cannot be emitted as C++ at module level");
              });
      if (failed(result))
        return failure();
    }
  }
  os << "} // namespace wsp_gen\n";
  return success();
}

} // namespace

bool mlir::wsp::hasCollectives(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<CollectiveOpInterface, shard::ProcessLinearIndexOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::wsp::isEmittable(Operation *op) {
  Operation *parent = op->getParentOp();
  if (!parent)
    return isa<ModuleOp>(op);
  // Module level: what ModuleEmitter lays out.
  if (isa<ModuleOp>(parent))
    return isa<TierConfigOp, KernelOp, KernelTableOp, func::FuncOp,
               memref::GlobalOp, DescriptorTableOp, StepOp, shard::GridOp>(
        op);
  // Terminators their parent's pattern prints.
  if (isa<scf::YieldOp, scf::ConditionOp>(op))
    return isa<scf::ForOp, scf::IfOp, scf::WhileOp>(parent);
  // Host scratch: static, row-major, and never on the AICore.
  if (auto alloca = dyn_cast<memref::AllocaOp>(op))
    return alloca.getType().hasStaticShape() &&
           alloca.getType().getLayout().isIdentity() &&
           !op->getParentOfType<KernelOp>();
  // Everything else: an op with a pattern, registered once.
  static Emitter registry(llvm::nulls(), Flavor::CpuSim);
  static const bool populated = [] {
    populateStdEmission(registry);
    populateWspEmission(registry);
    populateTileEmission(registry);
    return true;
  }();
  (void)populated;
  return registry.hasPattern(op);
}

static LogicalResult emitFlavor(ModuleOp module, raw_ostream &os,
                                Flavor flavor) {
  std::string buffer;
  llvm::raw_string_ostream out(buffer);
  ModuleEmitter emitter(out, flavor, getEmissionStem(module));
  if (failed(emitter.emitModule(module)))
    return failure();
  os << buffer;
  return success();
}

std::string mlir::wsp::getEmissionStem(ModuleOp module) {
  if (std::optional<StringRef> name = module.getSymName())
    if (isValidCppIdentifier(*name))
      return name->str();
  return "wsp_module";
}

LogicalResult mlir::wsp::emitCpuSim(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::CpuSim);
}
LogicalResult mlir::wsp::emitAbiHeader(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::Abi);
}
LogicalResult mlir::wsp::emitAicpu(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::Aicpu);
}
LogicalResult mlir::wsp::emitAicore(ModuleOp module, raw_ostream &os) {
  return emitFlavor(module, os, Flavor::Aicore);
}
