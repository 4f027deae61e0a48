// RUN: wsp-translate --wsp-to-aicpu %s -split-input-file -verify-diagnostics

// On the device a func.func is an AICPU entry: tile instructions belong in
// a wsp.kernel it dispatches. (The CPU simulation runs such a function.)
func.func @tiles_on_aicpu(%x: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.alloc' op is an AICore instruction in func.func @tiles_on_aicpu, which the device form runs on the AICPU; put the tile code in a wsp.kernel and dispatch it (the CPU simulation runs it as it is)}}
  %t = tile.alloc at 0 : !tile.tile<vec, 16x64xf32>
  tile.load %t, %x[%c0, %c0] : !tile.tile<vec, 16x64xf32>, memref<?x64xf32>
  tile.barrier all
  return
}
