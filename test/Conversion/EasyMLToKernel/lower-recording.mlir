// RUN: easyml-opt %s --split-input-file --easyml-lower-recording | FileCheck %s

// The schedule is read once, before the loop (rec_first, rec_every at
// least 1, rec_samples: fields 21, 22, 23 of easyml_kernel_args); each
// step checks whether it is sample k, and only then reads where samples
// go (rec, rec_slot, rec_num, rec_begin, rec_end, rec_stride, rec_traces:
// fields 15 to 20 and 24).
// CHECK-LABEL: func.func @compute(
// CHECK-SAME: %[[ARGS:[^:]*]]: !llvm.ptr, %[[CELL:[^:]*]]: i64, %{{[^:]*}}: i64, %[[X:[^:]*]]: f64, %[[Y:[^:]*]]: f64)
// CHECK: %[[FIRSTP:.*]] = llvm.getelementptr %[[ARGS]][21]
// CHECK-NEXT: %[[FIRST:.*]] = llvm.load %[[FIRSTP]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[EVERYP:.*]] = llvm.getelementptr %[[ARGS]][22]
// CHECK-NEXT: %[[EVERY0:.*]] = llvm.load %[[EVERYP]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[EVERY:.*]] = arith.maxsi %[[EVERY0]], %[[ONE]] : i64
// CHECK-NEXT: %[[SAMPLESP:.*]] = llvm.getelementptr %[[ARGS]][23]
// CHECK-NEXT: %[[SAMPLES:.*]] = llvm.load %[[SAMPLESP]] : !llvm.ptr -> i64
// A wave that records nothing divides nothing.
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[ANY:.*]] = arith.cmpi sgt, %[[SAMPLES]], %[[NONE]] : i64
// CHECK-NEXT: scf.if %[[ANY]] {
// CHECK-NEXT: %[[REL:.*]] = arith.subi %[[S]], %[[FIRST]] : i64
// CHECK-NEXT: %[[K:.*]] = arith.divsi %[[REL]], %[[EVERY]] : i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[AFTER:.*]] = arith.cmpi sge, %[[REL]], %[[ZERO]] : i64
// CHECK-NEXT: %[[KE:.*]] = arith.muli %[[K]], %[[EVERY]] : i64
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi eq, %[[KE]], %[[REL]] : i64
// CHECK-NEXT: %[[A:.*]] = arith.andi %[[AFTER]], %[[ON]] : i1
// CHECK-NEXT: %[[INK:.*]] = arith.cmpi slt, %[[K]], %[[SAMPLES]] : i64
// CHECK-NEXT: %[[SAMPLE:.*]] = arith.andi %[[A]], %[[INK]] : i1
// CHECK-NEXT: scf.if %[[SAMPLE]] {
// CHECK-NEXT: %[[RECP:.*]] = llvm.getelementptr %[[ARGS]][15]
// CHECK-NEXT: %[[REC:.*]] = llvm.load %[[RECP]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[SLOTSP:.*]] = llvm.getelementptr %[[ARGS]][16]
// CHECK-NEXT: %[[SLOTS:.*]] = llvm.load %[[SLOTSP]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[NUMP:.*]] = llvm.getelementptr %[[ARGS]][17]
// CHECK-NEXT: %[[NUM:.*]] = llvm.load %[[NUMP]]
// CHECK-NEXT: %[[BEGINP:.*]] = llvm.getelementptr %[[ARGS]][18]
// CHECK-NEXT: %[[BEGIN:.*]] = llvm.load %[[BEGINP]]
// CHECK-NEXT: %[[ENDP:.*]] = llvm.getelementptr %[[ARGS]][19]
// CHECK-NEXT: %[[END:.*]] = llvm.load %[[ENDP]]
// CHECK-NEXT: %[[STRIDEP:.*]] = llvm.getelementptr %[[ARGS]][20]
// CHECK-NEXT: %[[STRIDE:.*]] = llvm.load %[[STRIDEP]]
// CHECK-NEXT: %[[TRACESP:.*]] = llvm.getelementptr %[[ARGS]][24]
// CHECK-NEXT: %[[TRACES0:.*]] = llvm.load %[[TRACESP]]
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TRACES:.*]] = arith.cmpi ne, %[[TRACES0]], %[[Z]] : i64
// The cells in [rec_begin, rec_end).
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[CELL]], %[[BEGIN]] : i64
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[CELL]], %[[END]] : i64
// CHECK-NEXT: %[[INSIDE:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[K]], %[[NUM]] : i64
// CHECK-NEXT: %[[OFFSET:.*]] = arith.subi %[[CELL]], %[[BEGIN]] : i64
// Value 0 goes to rec[(k*rec_num + rec_slot[0])*rec_stride + cell - rec_begin]
// when it has a slot.
// CHECK-NEXT: %[[SLOTP:.*]] = llvm.getelementptr %[[SLOTS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %[[SLOT:.*]] = llvm.load %[[SLOTP]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[WANTED:.*]] = arith.cmpi sge, %[[SLOT]], %[[Z0]] : i64
// CHECK-NEXT: scf.if %[[WANTED]] {
// CHECK-NEXT: %[[I0:.*]] = arith.addi %[[BASE]], %[[SLOT]] : i64
// CHECK-NEXT: %[[I1:.*]] = arith.muli %[[I0]], %[[STRIDE]] : i64
// CHECK-NEXT: %[[I2:.*]] = arith.addi %[[I1]], %[[OFFSET]] : i64
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[REC]][%[[I2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT: llvm.store %[[X]], %[[AT]] : f64, !llvm.ptr
// CHECK-NEXT: }
// CHECK-NEXT: llvm.getelementptr %[[SLOTS]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.store %[[Y]], %{{.*}} : f64, !llvm.ptr
// The traces are evaluated and stored only when one is recorded.
// CHECK: scf.if %[[TRACES]] {
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[X]], %[[Y]] : f64
// CHECK-NEXT: llvm.getelementptr %[[SLOTS]][3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.store %[[T]], %{{.*}} : f64, !llvm.ptr
// CHECK-NOT: easyml.record
func.func @compute(%args: !llvm.ptr, %cell: i64, %nsteps: i64, %x: f64,
                   %y: f64) {
  %first, %every, %samples = easyml.record_schedule %args : !llvm.ptr
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  scf.for %s = %c0 to %nsteps step %c1 : i64 {
    easyml.record_sample %args, step %s, cell %cell,
        schedule %first, %every, %samples : !llvm.ptr {
      easyml.record_value %x at 0 : f64
      easyml.record_value %y at 2 : f64
      easyml.record_traces {
        %t = arith.mulf %x, %y : f64
        easyml.record_value %t at 3 : f64
      }
    }
  }
  return
}

// -----

// A GPU kernel takes the kernel arguments by value and addresses the
// recording buffers in the global address space.
!args = !llvm.struct<(i64, i64, i64, i64, f64, f64, i64, i64, ptr, ptr, ptr,
                      ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64,
                      i64, i64, i64, ptr, i64)>
// CHECK-LABEL: gpu.func @compute(
// CHECK-SAME: %[[ARGS:[^:]*]]: !llvm.struct
// CHECK: llvm.extractvalue %[[ARGS]][21]
// CHECK: llvm.extractvalue %[[ARGS]][22]
// CHECK: llvm.extractvalue %[[ARGS]][23]
// CHECK: scf.if
// CHECK: scf.if
// CHECK-NEXT: %[[REC0:.*]] = llvm.extractvalue %[[ARGS]][15]
// CHECK-NEXT: %[[REC:.*]] = llvm.addrspacecast %[[REC0]] : !llvm.ptr to !llvm.ptr<1>
// CHECK-NEXT: %[[SLOTS0:.*]] = llvm.extractvalue %[[ARGS]][16]
// CHECK-NEXT: %[[SLOTS:.*]] = llvm.addrspacecast %[[SLOTS0]] : !llvm.ptr to !llvm.ptr<1>
// CHECK: llvm.getelementptr %[[SLOTS]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[REC]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
// CHECK-NEXT: llvm.store %{{.*}}, %[[AT]] : f64, !llvm.ptr<1>
gpu.module @kernels {
  gpu.func @compute(%args: !args, %s: i64, %cell: i64, %x: f64) kernel {
    %first, %every, %samples = easyml.record_schedule %args : !args
    easyml.record_sample %args, step %s, cell %cell,
        schedule %first, %every, %samples : !args {
      easyml.record_value %x at 1 : f64
    }
    gpu.return
  }
}
