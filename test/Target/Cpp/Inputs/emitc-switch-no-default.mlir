// Input of emitc-capabilities.mlir: a tier switch without a default.
emitc.func @k(%tier: i32) {
  emitc.switch %tier : i32
  case 0 {
    emitc.yield
  }
  emitc.return
}
