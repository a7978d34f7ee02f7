// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-jacobian-age=5}))' | FileCheck %s
// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-jacobian-age=5 cvode-pivoting=true}))' 2>&1 | FileCheck %s --check-prefix=PIVOT
// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators))' | FileCheck %s --check-prefix=FRESH
// RUN: not easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-jacobian-age=-1}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-rtol=-1 cvode-atol=0 cvode-max-substeps=0 cvode-jacobian-age=-2}))' 2>&1 | FileCheck %s --check-prefix=ALLBAD

// Reuse of a cvode group's factorised iteration matrix (cvode-jacobian-age).
// The 2x2 matrix [[1, gh*k], [gh*k, 1]] has three factors that are not
// constants (L21, U12, 1/U22; its first pivot is 1). Each cell keeps them
// as in-place hidden values (stored where they are made, loaded where the
// solves use them), and carries the gamma*h they were made for and their
// age in time steps like the step size. The sub-steps divide the rest of
// the interval evenly (no sliver at its end), so gamma*h stays put.
// CHECK-LABEL: easyml.model @cvode_pair
// CHECK: easyml.hidden @cvode.h.3 init 0.000000e+00 {units = "ms"}
// CHECK-NEXT: easyml.hidden @cvode.lu.3.0 init 0.000000e+00 {in_place}
// CHECK-NEXT: easyml.hidden @cvode.lu.3.1 init 0.000000e+00 {in_place}
// CHECK-NEXT: easyml.hidden @cvode.lu.3.2 init 0.000000e+00 {in_place}
// CHECK-NEXT: easyml.hidden @cvode.gh.3 init 0.000000e+00 {units = "ms"}
// CHECK-NEXT: easyml.hidden @cvode.age.3 init 0.000000e+00{{$}}
// CHECK-NEXT: easyml.hidden @cvode.forced.3 init 0.000000e+00{{$}}
// CHECK-NOT: easyml.hidden
// CHECK: easyml.compute
// CHECK-NOT: easyml.get @cvode.lu
// CHECK: %[[GH:.*]] = easyml.get @cvode.gh.3
// CHECK: %[[AGE:.*]] = easyml.get @cvode.age.3
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00
// One more time step since the factors were made.
// CHECK: %[[AGE1:.*]] = arith.addf %[[AGE]], %[[ONE]]
// CHECK: %[[MAXAGE:.*]] = arith.constant 5.000000e+00
// CHECK: %[[R:.*]]:8 = scf.while ({{.*}}, %{{.*}} = %[[GH]], %{{.*}} = %[[AGE1]], %{{.*}} = %{{.*}})
// CHECK: } do {
// CHECK-NEXT: ^bb0({{.*}}, %[[KGH:.*]]: f64, %[[KAGE:.*]]: f64, %{{.*}}: f64):
// Reused while |gamma*h / kept - 1| <= 0.3 and at most 5 steps old.
// The rest of the interval in ceil(rest / h) equal sub-steps.
// CHECK: %[[PIECES:.*]] = math.ceil
// CHECK: %[[N:.*]] = arith.maxnumf %[[PIECES]]
// CHECK: %[[EVEN:.*]] = arith.divf %{{.*}}, %[[N]]
// CHECK: %[[HH:.*]] = arith.select %{{.*}}, %{{.*}}, %[[EVEN]]
// CHECK: %[[GAMMAH:.*]] = arith.mulf %[[HH]], %{{.*}} : f64
// CHECK: %[[RATIO:.*]] = arith.divf %[[GAMMAH]], %[[KGH]]
// CHECK: %[[DIFF:.*]] = arith.subf %[[RATIO]]
// CHECK: %[[CHANGE:.*]] = math.absf %[[DIFF]]
// CHECK: %[[CLOSE:.*]] = arith.cmpf ole, %[[CHANGE]], %{{.*}}
// CHECK: %[[YOUNG:.*]] = arith.cmpf ole, %[[KAGE]], %[[MAXAGE]]
// CHECK: %[[REUSE:.*]] = arith.andi %[[CLOSE]], %[[YOUNG]]
// Each branch evaluates the two rates; only the second one differentiates
// them, factorises and stores the new factors in the cell's record.
// CHECK: %[[F:.*]]:4 = scf.if %[[REUSE]] -> (f64, f64, f64, i1) {
// CHECK-NEXT: %[[RA:.*]] = arith.mulf
// CHECK-NEXT: %[[RB:.*]] = arith.mulf
// CHECK-NEXT: scf.yield %[[RA]], %[[RB]], %[[KGH]], %true
// CHECK-NEXT: } else {
// CHECK-NOT: easyml.hidden_load
// CHECK: arith.negf
// CHECK: %[[INV:.*]] = arith.divf
// CHECK: %[[OK:.*]] = arith.cmpf oge
// CHECK-NEXT: easyml.hidden_store @cvode.lu.3.0, %{{.*}} : f64
// CHECK-NEXT: easyml.hidden_store @cvode.lu.3.1, %{{.*}} : f64
// CHECK-NEXT: easyml.hidden_store @cvode.lu.3.2, %[[INV]] : f64
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %[[GAMMAH]], %[[OK]]
// CHECK-NEXT: }
// Both paths read the factors from the record.
// CHECK-NEXT: %[[K0:.*]] = easyml.hidden_load @cvode.lu.3.0 : f64
// CHECK-NEXT: %[[K1:.*]] = easyml.hidden_load @cvode.lu.3.1 : f64
// CHECK-NEXT: %[[K2:.*]] = easyml.hidden_load @cvode.lu.3.2 : f64
// A new matrix restarts the age.
// CHECK: %[[AGENEXT:.*]] = arith.select %[[REUSE]], %[[KAGE]], %{{.*}}
// The solves read them.
// CHECK: arith.mulf %[[K1]],
// CHECK: arith.mulf %{{.*}}, %[[K2]]
// CHECK: arith.mulf %[[K0]],
// CHECK: arith.select %[[F]]#3,
// A sub-step that fails its error test drops the factors (gamma*h 0).
// CHECK: %[[PASS:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: arith.addi
// CHECK: %[[GHNEXT:.*]] = arith.select %[[PASS]], %[[F]]#2, %{{.*}}
// CHECK: scf.yield {{.*}}, %[[GHNEXT]], %[[AGENEXT]]
// CHECK: easyml.next @cvode.h.3, %[[R]]#1
// CHECK-NEXT: easyml.next @cvode.forced.3, %[[R]]#7
// CHECK-NEXT: easyml.next @cvode.gh.3, %[[R]]#5
// CHECK-NEXT: easyml.next @cvode.age.3, %[[R]]#6
// CHECK-NOT: easyml.next

// Partial pivoting exchanges rows at run time: nothing is kept, and a
// warning says so.
// PIVOT: warning: easyml-expand-integrators: cvode-jacobian-age is ignored with cvode-pivoting (pivoted factors are not kept)
// PIVOT-LABEL: easyml.model @cvode_pair
// PIVOT: easyml.hidden @cvode.h.3
// PIVOT-NEXT: easyml.hidden @cvode.forced.3
// PIVOT-NOT: easyml.hidden
// PIVOT: scf.while
// PIVOT-NOT: scf.if

// The default (0): a new Jacobian at every sub-step, as without the option.
// FRESH-LABEL: easyml.model @cvode_pair
// FRESH: easyml.hidden @cvode.h.3
// FRESH-NEXT: easyml.hidden @cvode.forced.3
// FRESH-NOT: easyml.hidden
// FRESH: scf.while
// FRESH-NOT: scf.if

// NEGATIVE: error: bad options of easyml-expand-integrators:
// NEGATIVE-NEXT: cvode-jacobian-age must not be negative, got -1

// Every bad option is reported, by name and value, when the pipeline is
// parsed.
// ALLBAD: error: bad options of easyml-expand-integrators:
// ALLBAD-NEXT: cvode-rtol must be a positive number, got -1
// ALLBAD-NEXT: cvode-atol must be a positive number, got 0
// ALLBAD-NEXT: cvode-max-substeps must be at least 1, got 0
// ALLBAD-NEXT: cvode-jacobian-age must not be negative, got -2
// ALLBAD-NOT: see current operation
easyml.model @cvode_pair {
  easyml.state @a kind <diff> method <cvode> {group = 3 : i32}
  easyml.state @b kind <diff> method <cvode> {group = 3 : i32}
  easyml.init {
    %one = arith.constant 1.0 : f64
    easyml.init_value @a, %one : f64
    easyml.init_value @b, %one : f64
  }
  easyml.compute {
    %a = easyml.get @a : f64
    %b = easyml.get @b : f64
    %k = arith.constant -1000.0 : f64
    %fa = arith.mulf %k, %b : f64
    %fb = arith.mulf %k, %a : f64
    easyml.diff @a, %fa : f64
    easyml.diff @b, %fb : f64
  }
}
