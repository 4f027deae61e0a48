// convert-llm-to-wsp on rotary_embedding: per token row, its sequence and
// position, then the NeoX halves of the Q and K heads.
// RUN: wsp-opt %s --convert-llm-to-wsp | FileCheck %s

// Packed without accum_q_len: the sequence is found by prefix sums of
// q_lens (an scf.while), the position is position_ids[b] + (i - start).
// CHECK-LABEL: wsp.kernel @packed_rotary_embedding_0
// CHECK-SAME: %[[QKV:[^:]*]]: memref<?x12x128xbf16>, %[[SIN:[^:]*]]: memref<?x64xbf16>, %[[COS:[^:]*]]: memref<?x64xbf16>, %[[POS:[^:]*]]: memref<?xi32>, %[[LENS:[^:]*]]: memref<?xi32>, %[[OUT:[^:]*]]: memref<?x12x128xbf16>)
// The position's cos (row 0) and sin (row 1) in one tile, converted at
// once; its f32 form as [4 x 32] gives the halves cos1, cos2, sin1, sin2.
// CHECK: %[[TB:.*]] = tile.alloc : !tile.tile<vec, 2x64xbf16>
// CHECK: %[[TF:.*]] = tile.alloc : !tile.tile<vec, 2x64xf32>
// CHECK: %[[COSB:.*]] = tile.subview %[[TB]][%c0{{.*}}, %c0{{.*}}] : !tile.tile<vec, 2x64xbf16> to !tile.tile<vec, 1x64xbf16>
// CHECK: %[[SINB:.*]] = tile.subview %[[TB]][%c1{{.*}}, %c0{{.*}}] : !tile.tile<vec, 2x64xbf16> to !tile.tile<vec, 1x64xbf16>
// CHECK: %[[HALVES:.*]] = tile.reshape %[[TF]] : !tile.tile<vec, 2x64xf32> to !tile.tile<vec, 4x32xf32>
// CHECK: %[[COS1:.*]] = tile.subview %[[HALVES]][%c0{{.*}}, %c0{{.*}}] : !tile.tile<vec, 4x32xf32> to !tile.tile<vec, 1x32xf32>
// CHECK: %[[COS2:.*]] = tile.subview %[[HALVES]][%c1{{.*}}, %c0{{.*}}]
// CHECK: %[[SIN1:.*]] = tile.subview %[[HALVES]][%c2{{.*}}, %c0{{.*}}]
// CHECK: %[[SIN2:.*]] = tile.subview %[[HALVES]][%c3{{.*}}, %c0{{.*}}]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: scf.while
// CHECK: memref.load %[[LENS]]
// CHECK: scf.condition
// CHECK: memref.load %[[POS]]
// CHECK: scf.if
// The row is copied first (out is not qkv).
// The 10 rotated heads of a row go in one tile of 16 rows (whole 8-row
// blocks), the copy's tiles too.
// CHECK: tile.load %{{.*}}, %[[QKV]][%[[I]], %{{.*}}, %{{.*}}] : !tile.tile<vec, 16x128xbf16, valid = ?x128>
// CHECK: tile.store %[[OUT]]
// CHECK: tile.load %[[COSB]], %[[COS]][%{{.*}}, %c0{{.*}}] : !tile.tile<vec, 1x64xbf16>
// CHECK: tile.load %[[SINB]], %[[SIN]][%{{.*}}, %c0{{.*}}] : !tile.tile<vec, 1x64xbf16>
// CHECK: tile.cvt %[[TF]], %[[TB]] : !tile.tile<vec, 2x64xf32>, !tile.tile<vec, 2x64xbf16>
// rope_offset 64, rope_dim 64: halves at columns 64 and 96, 10 rope heads.
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c10{{.*}} step %c16
// CHECK-COUNT-4: tile.alloc valid(%{{.*}}) : !tile.tile<vec, 16x32xf32, valid = ?x32>
// CHECK: %[[OB1:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 16x32xbf16, valid = ?x32>
// CHECK: %[[OB2:.*]] = tile.alloc valid(%{{.*}}) : !tile.tile<vec, 16x32xbf16, valid = ?x32>
// CHECK: tile.load %{{.*}}, %[[QKV]][%[[I]], %{{.*}}, %c64{{.*}}] : !tile.tile<vec, 16x32xbf16, valid = ?x32>
// CHECK: tile.load %{{.*}}, %[[QKV]][%[[I]], %{{.*}}, %c96{{.*}}]
// Both halves are loaded before the arithmetic, which is one run of vector
// instructions; both are stored after it, from tiles of their own (the
// next token's loads wait for the conversions only).
// CHECK: tile.colexpandmul %{{.*}}, %{{.*}}, %[[COS1]]
// CHECK: tile.colexpandmul %{{.*}}, %{{.*}}, %[[SIN1]]
// CHECK: tile.sub
// CHECK: tile.cvt %[[OB1]],
// CHECK: tile.colexpandmul %{{.*}}, %{{.*}}, %[[COS2]]
// CHECK: tile.colexpandmul %{{.*}}, %{{.*}}, %[[SIN2]]
// CHECK: tile.add
// CHECK: tile.cvt %[[OB2]],
// CHECK: tile.store %[[OUT]][%[[I]], %{{.*}}, %c64{{.*}}], %[[OB1]]
// CHECK: tile.store %[[OUT]][%[[I]], %{{.*}}, %c96{{.*}}], %[[OB2]]

// The planner validates every sequence: q_lens >= 0, positions >= 0 and
// inside the tables, the total inside the buffer.
// CHECK-LABEL: func.func @packed(
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sle
// CHECK: wsp.dispatch @packed_rotary_embedding_0
func.func @packed(%qkv: memref<?x12x128xbf16>, %sin: memref<?x64xbf16>,
                  %cos: memref<?x64xbf16>, %pos: memref<?xi32>,
                  %lens: memref<?xi32>, %out: memref<?x12x128xbf16>) {
  llm.rotary_embedding qkv(%qkv : memref<?x12x128xbf16>)
      sin(%sin : memref<?x64xbf16>) cos(%cos : memref<?x64xbf16>)
      position_ids(%pos : memref<?xi32>) q_lens(%lens : memref<?xi32>)
      -> out(%out : memref<?x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_offset = 64 : i32,
       rope_dim = 64 : i32, max_q_len = 16 : i32}
  return
}

// Unpacked: row i is slot i % 3 of sequence i / 3; rows past q_lens[b]
// are skipped.
// CHECK-LABEL: wsp.kernel @unpacked_rotary_embedding_0
// CHECK: arith.divui %{{.*}}, %c3
// CHECK: arith.remui %{{.*}}, %c3
// CHECK: arith.cmpi ult
// CHECK-LABEL: func.func @unpacked(
// CHECK: arith.muli %{{.*}}, %c3
func.func @unpacked(%qkv: memref<?x3x12x128xbf16>, %sin: memref<?x128xbf16>,
                    %cos: memref<?x128xbf16>, %pos: memref<?xi32>,
                    %lens: memref<?xi32>) {
  llm.rotary_embedding qkv(%qkv : memref<?x3x12x128xbf16>)
      sin(%sin : memref<?x128xbf16>) cos(%cos : memref<?x128xbf16>)
      position_ids(%pos : memref<?xi32>) q_lens(%lens : memref<?xi32>)
      -> out(%qkv : memref<?x3x12x128xbf16>)
      {q_head_num = 8 : i32, kv_head_num = 2 : i32, rope_dim = 128 : i32,
       max_q_len = 3 : i32}
  return
}

// Heads of 1024 columns: all 40 rotated heads' tiles would not fit in half
// of UB (eight [40 x 512] tiles and the copy's [40 x 1024]), so a row's
// heads go 8 at a time.
// CHECK-LABEL: wsp.kernel @wide_rotary_embedding_0
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c40{{.*}} step %c8
// CHECK: tile.cvt %{{.*}}, %{{.*}} : !tile.tile<vec, 8x512xf32, valid = ?x512>, !tile.tile<vec, 8x512xbf16, valid = ?x512>
func.func @wide(%qkv: memref<?x48x1024xbf16>, %sin: memref<?x1024xbf16>,
                %cos: memref<?x1024xbf16>, %pos: memref<?xi32>,
                %lens: memref<?xi32>) {
  llm.rotary_embedding qkv(%qkv : memref<?x48x1024xbf16>)
      sin(%sin : memref<?x1024xbf16>) cos(%cos : memref<?x1024xbf16>)
      position_ids(%pos : memref<?xi32>) q_lens(%lens : memref<?xi32>)
      -> out(%qkv : memref<?x48x1024xbf16>)
      {q_head_num = 32 : i32, kv_head_num = 8 : i32, rope_dim = 1024 : i32,
       max_q_len = 16 : i32}
  return
}
