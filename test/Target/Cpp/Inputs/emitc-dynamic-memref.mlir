// Input of emitc-capabilities.mlir: a load from a dynamically shaped memref,
// as every kernel argument is.
func.func @load(%m: memref<?x128xf32>, %i: index) -> f32 {
  %v = memref.load %m[%i, %i] : memref<?x128xf32>
  return %v : f32
}
