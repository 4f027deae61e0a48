//===- StepCapture.cpp - what a wsp.step's table records ------------------===//

#include "StepCapture.h"

#include "wsp/Dialect/Wsp/IR/WspDialect.h"
#include "wsp/Target/Cpp/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <tuple>

using namespace mlir;
using namespace mlir::wsp;
using namespace mlir::wsp::cpp;

namespace {
/// One reason a step cannot be printed: an error at `at` when diagnosing,
/// nothing otherwise.
class Refusal {
public:
  Refusal(Operation *at, bool diagnose) {
    if (diagnose)
      diag.emplace(at->emitOpError());
  }
  template <typename T> Refusal &operator<<(T &&arg) {
    if (diag)
      *diag << std::forward<T>(arg);
    return *this;
  }

private:
  std::optional<InFlightDiagnostic> diag;
};
} // namespace

FailureOr<StepCapture>
mlir::wsp::cpp::getStepCapture(StepOp step, SymbolTableCollection &symbols,
                               bool diagnose) {
  bool ok = true;
  auto refuse = [&](Operation *at) {
    ok = false;
    return Refusal(at, diagnose);
  };
  FlatSymbolRefAttr name = step.getFunctionAttr();
  StepCapture capture;
  capture.function = symbols.lookupNearestSymbolFrom<func::FuncOp>(step, name);
  func::FuncOp f = capture.function;
  // (A declaration fails the verifier; another kind of function, this.)
  if (!f || f.isExternal()) {
    refuse(step) << "captures " << name
                 << ", which is not a func.func definition: the emitters "
                    "print the table of a func.func's launches";
    return failure();
  }
  if (f.getNumResults() != 1)
    refuse(step) << "captures " << name
                 << ", which returns no status: run convert-llm-to-wsp first "
                    "(each operator becomes a launch the table records)";
  if (hasCollectives(f))
    refuse(step) << "captures " << name
                 << ", which runs a collective (wsp.all_reduce, ...): a table "
                    "records launches, and replaying collectives is not "
                    "supported yet";

  // The patches, by argument: the token buffer's rows, in patch order.
  SmallVector<std::pair<unsigned, StepPatchKind>, 2> tokenPatches;
  for (PatchAttr patch : step.getPatchList()) {
    switch (patch.getKind()) {
    case StepPatchKind::token_offset:
    case StepPatchKind::argmax_output:
      tokenPatches.push_back({patch.getArg(), patch.getKind()});
      break;
    case StepPatchKind::request_positions:
      capture.positions = patch.getArg();
      break;
    case StepPatchKind::request_kv_lens:
      capture.kvLens = patch.getArg();
      break;
    case StepPatchKind::position:
    case StepPatchKind::kv_seq_len:
    case StepPatchKind::pos_and_kv: {
      // One sequence's position and KV length, each patched once.
      auto take = [&](std::optional<unsigned> &into, unsigned arg,
                      StringRef what) {
        if (into)
          refuse(step) << "patches the " << what << " twice (arguments "
                       << *into << " and " << arg
                       << "); the table counts one sequence's";
        into = arg;
      };
      if (patch.getKind() != StepPatchKind::kv_seq_len)
        take(capture.position, patch.getArg(), "position");
      if (patch.getKind() == StepPatchKind::kv_seq_len)
        take(capture.kvSeqLen, patch.getArg(), "KV length");
      else if (patch.getArg2())
        take(capture.kvSeqLen, *patch.getArg2(), "KV length");
      break;
    }
    }
  }
  // A patched scalar reaches a launch as its operand, which the launch
  // reads from its command's parameter bytes; any other use would read
  // token 0's value every token.
  for (std::optional<unsigned> arg : {capture.position, capture.kvSeqLen}) {
    if (!arg)
      continue;
    SmallPtrSet<Operation *, 4> named;
    for (Operation *user : f.getArgument(*arg).getUsers())
      if (!isa<func::CallOp>(user) && named.insert(user).second)
        refuse(user) << "uses the patched scalar argument " << *arg
                     << " of wsp.step @" << step.getSymName()
                     << "; the table patches it only where a launch takes "
                        "the argument itself";
  }
  // A token row is patched where a launch takes the argument itself: any
  // other use would read token 0's row every token.
  for (auto [arg, kind] : tokenPatches) {
    SmallPtrSet<Operation *, 4> named;
    for (Operation *user : f.getArgument(arg).getUsers())
      if (!isa<func::CallOp>(user) && named.insert(user).second)
        refuse(user) << "uses the " << stringifyStepPatchKind(kind)
                     << " argument " << arg << " of wsp.step @"
                     << step.getSymName()
                     << "; the table patches that token row only where a "
                        "launch takes the argument itself";
  }

  // The launches: the function's calls.
  Block &entry = f.getBody().front();
  f.walk([&](func::CallOp call) {
    const unsigned k = capture.launches.size();
    StepLaunch &l = capture.launches.emplace_back();
    l.call = call;
    if (call.getNumResults() != 1)
      refuse(call) << "is launch " << k << " of wsp.step @" << step.getSymName()
                   << " but returns " << call.getNumResults()
                   << " values; the table records each launch's status";
    if (auto variant = call->getAttrOfType<FlatSymbolRefAttr>(
            WspDialect::kReplayWithAttrName)) {
      l.kept = symbols.lookupNearestSymbolFrom<func::FuncOp>(call, variant);
      if (!l.kept)
        refuse(call) << "is replayed with " << variant
                     << ", which is not a func.func: the table of wsp.step @"
                     << step.getSymName()
                     << " calls the variant in the launch's place";
    }
    for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner() != &entry)
        continue;
      // The patched scalars: one operand each.
      for (auto [patched, into, what] :
           {std::make_tuple(capture.position, &l.position, "position"),
            std::make_tuple(capture.kvSeqLen, &l.kvSeqLen, "KV length")}) {
        if (patched != arg.getArgNumber())
          continue;
        if (*into)
          refuse(call) << "takes the patched " << what << " of wsp.step @"
                       << step.getSymName() << " as two operands (" << **into
                       << " and " << i
                       << "); a launch the table records reads it once";
        *into = i;
      }
      const auto *it = llvm::find_if(tokenPatches, [&](const auto &p) {
        return p.first == arg.getArgNumber();
      });
      if (it == tokenPatches.end())
        continue;
      if (l.patched) {
        refuse(call) << "reads or writes the patched token buffer of "
                        "wsp.step @"
                     << step.getSymName() << " through two operands ("
                     << *l.patched << " and " << i
                     << "); a launch the table records patches one";
        break;
      }
      l.patched = i;
      l.kind = it->second;
    }
  });
  for (const StepLaunch &l : capture.launches)
    if (l.patched && (l.position || l.kvSeqLen))
      refuse(l.call) << "takes both a token row and a patched scalar of "
                        "wsp.step @"
                     << step.getSymName()
                     << "; a launch the table records carries one patch "
                        "(seed 004's commands patch one thing each)";
  if (capture.launches.empty())
    refuse(step) << "captures " << name
                 << ", which makes no launch (no func.call of a launch "
                    "function)";
  if (!ok)
    return failure();
  return capture;
}
