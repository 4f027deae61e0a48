//===- Pipelines.h - wsp's named pass pipelines -----------------*- C++ -*-===//

#ifndef WSP_PIPELINES_PIPELINES_H
#define WSP_PIPELINES_PIPELINES_H

namespace mlir {
namespace wsp {

/// Registers the named pipeline `wsp-pipeline`: from the form users write
/// to the form the C++ backend prints, each stage ending with its contract
/// (lib/Pipelines/Pipeline.cpp).
void registerWspPipelines();

} // namespace wsp
} // namespace mlir

#endif // WSP_PIPELINES_PIPELINES_H
