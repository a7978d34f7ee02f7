// RUN: easyml-opt %s --split-input-file --verify-diagnostics

func.func @args_not_llvm(%args: i64) {
  // expected-error@+1 {{'easyml.record_schedule' op expects the kernel arguments (an !llvm.ptr, or the !llvm.struct a GPU kernel takes), got 'i64'}}
  %first, %every, %samples = easyml.record_schedule %args : i64
  return
}

// -----

func.func @sample_args(%args: f64, %s: i64, %cell: i64) {
  // expected-error@+1 {{'easyml.record_sample' op expects the kernel arguments (an !llvm.ptr, or the !llvm.struct a GPU kernel takes), got 'f64'}}
  easyml.record_sample %args, step %s, cell %cell, schedule %s, %s, %s : f64 {
  }
  return
}

// -----

func.func @two_traces(%args: !llvm.ptr, %s: i64, %cell: i64) {
  // expected-error@+1 {{'easyml.record_sample' op expects at most one 'easyml.record_traces', found 2}}
  easyml.record_sample %args, step %s, cell %cell, schedule %s, %s, %s : !llvm.ptr {
    easyml.record_traces {
    }
    easyml.record_traces {
    }
  }
  return
}

// -----

func.func @negative_entry(%args: !llvm.ptr, %s: i64, %cell: i64, %x: f64) {
  easyml.record_sample %args, step %s, cell %cell, schedule %s, %s, %s : !llvm.ptr {
    // expected-error@+1 {{'easyml.record_value' op expects a recordable entry of at least 0, got -1}}
    easyml.record_value %x at -1 : f64
  }
  return
}

// -----

func.func @value_outside_sample(%x: f64) {
  // expected-error@+1 {{'easyml.record_value' op expects parent op to be one of 'easyml.record_sample, easyml.record_traces'}}
  easyml.record_value %x at 0 : f64
  return
}

// -----

func.func @traces_outside_sample() {
  // expected-error@+1 {{'easyml.record_traces' op expects parent op 'easyml.record_sample'}}
  easyml.record_traces {
  }
  return
}

// -----

func.func @sample_not_f64(%args: !llvm.ptr, %s: i64, %cell: i64, %x: f32) {
  easyml.record_sample %args, step %s, cell %cell, schedule %s, %s, %s : !llvm.ptr {
    // expected-error@+1 {{'easyml.record_value' op operand #0 must be 64-bit float, but got 'f32'}}
    "easyml.record_value"(%x) {entry = 0 : i64} : (f32) -> ()
  }
  return
}

// -----

func.func @biomarkers_args(%args: memref<?xf64>, %s: i64, %cell: i64, %dt: f64) {
  // expected-error@+1 {{'easyml.update_biomarkers' op expects the kernel arguments (an !llvm.ptr, or the !llvm.struct a GPU kernel takes), got 'memref<?xf64>'}}
  easyml.update_biomarkers %args, step %s, cell %cell, dt %dt, vm %dt to %dt, states() : memref<?xf64>
  return
}

// -----

func.func @biomarkers_states(%args: !llvm.ptr, %s: i64, %cell: i64, %dt: f64, %ca: i64) {
  // expected-error@+1 {{'easyml.update_biomarkers' op operand #6 must be variadic of 64-bit float, but got 'i64'}}
  "easyml.update_biomarkers"(%args, %s, %cell, %dt, %dt, %dt, %ca) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1>} : (!llvm.ptr, i64, i64, f64, f64, f64, i64) -> ()
  return
}

// -----

// Vm's extremes within the step come as four (peak, its time, rate, its
// time) or not at all.
func.func @biomarkers_extrema(%args: !llvm.ptr, %s: i64, %cell: i64, %dt: f64) {
  // expected-error@+1 {{'easyml.update_biomarkers' op needs all four of Vm's extremes within the step (peak, its time, rate, its time) or none, got 2}}
  "easyml.update_biomarkers"(%args, %s, %cell, %dt, %dt, %dt, %dt, %dt) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0>} : (!llvm.ptr, i64, i64, f64, f64, f64, f64, f64) -> ()
  return
}
