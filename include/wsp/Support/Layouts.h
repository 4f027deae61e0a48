//===- Layouts.h - memref layouts the backend prints ------------*- C++ -*-===//
//
// The C++ backend views a memref as row-major data and the size of each
// dimension (MemRef<T, R>). That covers the identity layout and every
// strided layout whose strides are the row-major strides of its own shape,
// whatever its offset: a range of leading rows of a row-major buffer
// (`memref.subview %m[%r, 0] [%n, 128] [1, 1]`) is one. The lowerings and
// the emitters ask this one predicate.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_SUPPORT_LAYOUTS_H
#define WSP_SUPPORT_LAYOUTS_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace wsp {

/// True if `type` is row-major contiguous: its strides are the row-major
/// strides of its shape (any offset; a dimension of size 1 may have any
/// stride, none of its elements is a stride away). A dynamic size is
/// allowed in the leading dimension only, the one no stride depends on.
bool isContiguousRowMajor(MemRefType type);

} // namespace wsp
} // namespace mlir

#endif // WSP_SUPPORT_LAYOUTS_H
