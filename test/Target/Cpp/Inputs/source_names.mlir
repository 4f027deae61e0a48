// The input of source-names.test: named values, some of whose names C++
// or the emitted code already uses.
func.func @source_names(%lens: memref<?xi32>, %count: index, %int: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %first = memref.load %lens[%c0] : memref<?xi32>
  %v3 = arith.addi %first, %int : i32
  %step = arith.muli %v3, %v3 : i32
  %source_names = arith.subi %step, %first : i32
  %count_i32 = arith.index_cast %count : index to i32
  %0 = arith.addi %source_names, %count_i32 : i32
  return %0 : i32
}
