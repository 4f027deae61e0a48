// Input of emitc-capabilities.mlir: scalar ops of the kernels' index math.
func.func @scalar(%a: i32, %b: i32, %x: f32) -> f32 {
  %r = math.rsqrt %x : f32
  %u = arith.maxui %a, %b : i32
  %c = arith.ceildivui %a, %b : i32
  %s = arith.addf %x, %r : f32
  return %s : f32
}
