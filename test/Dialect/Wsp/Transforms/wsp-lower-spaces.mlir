// RUN: wsp-opt %s --wsp-lower-spaces -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @lower
// CHECK-SAME: (%[[B:[^:]*]]: index, %[[C:[^:]*]]: index, %[[I:[^:]*]]: index)
// CHECK-NOT: wsp.
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[P1:.*]] = arith.muli %{{.*}}, %[[B]]
// CHECK: %[[P2:.*]] = arith.muli %[[P1]], %[[C32]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[P2]], %[[C]]
// CHECK: %[[X0:.*]] = arith.remui %[[I]], %[[B]]
// CHECK: %[[R0:.*]] = arith.divui %[[I]], %[[B]]
// CHECK: %[[X1:.*]] = arith.remui %[[R0]], %[[C32]]
// CHECK: %[[R1:.*]] = arith.divui %[[R0]], %[[C32]]
// CHECK: %[[X2:.*]] = arith.remui %[[R1]], %[[C]]
// CHECK: return %[[C32]], %[[TOTAL]], %[[X0]], %[[X1]], %[[X2]]
func.func @lower(%b: index, %c: index, %i: index)
    -> (index, index, index, index, index) {
  %s = wsp.space(%b, %c) : !wsp.space<batch: ?, head: 32, chunk: ?>
  %h = wsp.get_dim %s[1] : !wsp.space<batch: ?, head: 32, chunk: ?>
  %n = wsp.total_work %s : !wsp.space<batch: ?, head: 32, chunk: ?>
  %x, %y, %z = wsp.index_to_coords %s[%i] : !wsp.space<batch: ?, head: 32, chunk: ?>
  return %h, %n, %x, %y, %z : index, index, index, index, index
}

// -----

// set_dim is seen through.
// CHECK-LABEL: func.func @through_set_dim
// CHECK-SAME: (%{{[^:]*}}: index, %[[NEW:[^:]*]]: index)
// CHECK: return %[[NEW]]
func.func @through_set_dim(%a: index, %new: index) -> index {
  %s = wsp.space(%a) : !wsp.space<?>
  %t = wsp.set_dim %s[0] = %new : !wsp.space<?>
  %n = wsp.get_dim %t[0] : !wsp.space<?>
  return %n : index
}

// -----

func.func @untraceable(%s: !wsp.space<?, 4>) -> index {
  // expected-error @+1 {{'wsp.total_work' op cannot be lowered: the size of dimension 0 of its space is not traceable to a wsp.space}}
  %n = wsp.total_work %s : !wsp.space<?, 4>
  return %n : index
}
