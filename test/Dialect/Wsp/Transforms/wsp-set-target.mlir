// RUN: wsp-opt %s --wsp-set-target | FileCheck %s --check-prefix=DEFAULT
// RUN: wsp-opt %s --wsp-set-target="target=ascend" | FileCheck %s --check-prefix=ASCEND
// RUN: not wsp-opt %s --wsp-set-target="target=gpu" 2>&1 | FileCheck %s --check-prefix=BAD

// DEFAULT: module attributes {wsp.target = "cpusim"}
// ASCEND: module attributes {wsp.target = "ascend"}
// BAD: error: unknown wsp target 'gpu'; expected ascend or cpusim
func.func @f() {
  return
}
