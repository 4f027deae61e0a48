// wsp-cse-canonicalize is CSE, then the canonicalization of the ops CSE
// changed: on IR that was canonical before, what `cse` then `canonicalize`
// (without region simplification) give, which the second RUN line checks
// against the same lines.
// RUN: wsp-opt %s -split-input-file --wsp-cse-canonicalize | FileCheck %s
// RUN: wsp-opt %s -split-input-file --cse --canonicalize="region-simplify=disabled" | FileCheck %s
// Nested on each function, as the default pipeline runs it:
// RUN: wsp-opt %s -split-input-file --pass-pipeline="builtin.module(any(wsp-cse-canonicalize))" | FileCheck %s

// A size checked against itself once CSE merged the two: the compare folds
// to true, and the branch it guarded goes with it.
// CHECK-LABEL: func.func @merged
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A:.*]] = arith.addi %arg0, %[[C1]] : index
// CHECK-NEXT:    return %[[A]], %[[A]] : index, index
func.func @merged(%n: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %a = arith.addi %n, %c1 : index
  %b = arith.addi %n, %c1 : index
  %same = arith.cmpi eq, %a, %b : index
  %r = arith.select %same, %b, %c1 : index
  return %a, %r : index, index
}

// -----

// A difference of two merged values folds to 0, which the function has
// already: the constant is reused, not made twice.
// CHECK-LABEL: func.func @reuse
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A:.*]] = arith.addi %arg0, %[[C1]] : index
// CHECK-NEXT:    return %[[C0]], %[[A]] : index, index
func.func @reuse(%n: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = arith.addi %n, %c1 : index
  %b = arith.addi %n, %c1 : index
  %d = arith.subi %a, %b : index
  return %d, %a : index, index
}

// -----

// Nothing for CSE to merge: the ops are not visited again, but a constant
// behind other ops moves to the constants at the block's front, as the
// whole-region rewrite moves it.
// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[A:.*]] = arith.addi %arg0, %[[C1]] : index
// CHECK-NEXT:    %[[B:.*]] = arith.muli %[[A]], %[[C2]] : index
// CHECK-NEXT:    return %[[B]] : index
func.func @unchanged(%n: index) -> index {
  %c1 = arith.constant 1 : index
  %a = arith.addi %n, %c1 : index
  %c2 = arith.constant 2 : index
  %b = arith.muli %a, %c2 : index
  return %b : index
}
