// A dispatch that expands a plan kept as rows (expand_rows), as each form
// emits it. The CPU simulation runs it (cpusim-plan-update.mlir runs such a
// dispatch against the fresh plan); here the forms are checked as text:
// the CPU-sim's run_rows_expanding over a SpecRows view, the argument
// block (ABI) and the AICPU's launch carrying the rows, and the AICore entry whose cores
// expand their own descriptors (whole rows from the rows' own cuts with
// row_affine) before running them.
// RUN: wsp-opt %s --wsp-pipeline | wsp-translate --wsp-to-cpusim | FileCheck %s --check-prefix=SIM
// RUN: wsp-opt %s --wsp-pipeline="target=ascend" -o %t.mlir
// RUN: wsp-translate --wsp-to-aicpu %t.mlir | FileCheck %s --check-prefix=AICPU
// RUN: wsp-translate --wsp-to-abi %t.mlir | FileCheck %s --check-prefix=ABI
// RUN: wsp-translate --wsp-to-aicore %t.mlir | FileCheck %s --check-prefix=CORE

wsp.tier_config @T [#wsp.tier<0, [1, 1024]>, #wsp.tier<1, [1025, 4096]>]
wsp.kernel @k tiers(@T) (%d: !wsp.descriptor<attention>, %x: memref<?xf32>) {
  wsp.return
}

// SIM-LABEL: int32_t plan(
// SIM: // wsp.dispatch @k_table on vector(8) row_affine expand_rows
// SIM-NEXT: {
// SIM-NEXT: const ::pto::runtime::SpecRows<::pto::runtime::TierConfig<::pto::runtime::Tier<0, 1, 1024>, ::pto::runtime::Tier<1, 1025, 4096>>> plan_rows([[ROWS:a[0-9]+]].data, [[ROWS]].sizes[0], {});
// SIM-NEXT: ::pto::runtime::sim::run_rows_expanding(::pto::runtime::sim::CoreKind::Vector, 8, [[DESCS:a[0-9]+]].data, static_cast<int>({{.*}}), plan_rows,
// SIM-NEXT: [&](const ::pto::runtime::WorkDescriptor &d) { k_table_dispatch[d.tier](d, {{.*}}); }, wsp_launch_report, wsp_rows_options());
// SIM-NEXT: if (!::pto::runtime::sim::fault())
// SIM-NEXT: ::pto::runtime::sim::record_dispatch_plan(

// AICPU: k_table_args launch{[[DESCS:a[0-9]+]].data, {{.*}}, 1, 8, 0, nullptr, [[ROWS:a[0-9]+]].data, [[ROWS]].sizes[0], {{.*}}};

// ABI: struct k_table_args {
// ABI: __gm__ const int32_t *spec_rows;
// ABI-NEXT: int64_t spec_rows_size;
// CORE: int begin = core, end = count, step = cores; // grid
// CORE-NEXT: if (args.spec_rows) { // the plan as rows: this core's descriptors first
// CORE-NEXT: const ::pto::runtime::SpecRows<::pto::runtime::TierConfig<::pto::runtime::Tier<0, 1, 1024>, ::pto::runtime::Tier<1, 1025, 4096>>> rows(
// CORE-NEXT: args.spec_rows, args.spec_rows_size, {});
// CORE-NEXT: if (rows.count() != count)
// CORE-NEXT: return;
// CORE-NEXT: if (args.schedule == 1) { // row_affine: whole rows per core
// CORE-NEXT: begin = rows.range_begin(core, cores);
// CORE-NEXT: end = rows.range_begin(core + 1, cores);
// CORE: rows.for_each(begin, end, step,
// CORE-NEXT: [&](const ::pto::runtime::WorkDescriptor &w) { own[w.work_id] = w; });
// CORE-NEXT: } else if (args.schedule == 1) { // row_affine: whole rows per core
// CORE-NEXT: begin = ::pto::runtime::row_range_begin(args.descs, count, core, cores);
func.func @plan(%lens: memref<8xi32>, %n: index, %h: index, %c: index,
                %descs: memref<64x!wsp.descriptor<attention>>,
                %rows: memref<25xi32>, %x: memref<?xf32>) -> i32 {
  %ok = arith.constant 0 : i32
  %count, %status = wsp.generate %lens[%n] heads(%h) chunk(%c) tiers(@T)
      config(#wsp.plan_config<>) into %descs rows(%rows : memref<25xi32>)
      : memref<8xi32>, memref<64x!wsp.descriptor<attention>>
  %run = arith.cmpi eq, %status, %ok : i32
  scf.if %run {
    wsp.dispatch @k(%x : memref<?xf32>)
        descriptors(%descs[%count] : memref<64x!wsp.descriptor<attention>>)
        on vector(8) row_affine expand_rows(%rows : memref<25xi32>)
  }
  return %status : i32
}
