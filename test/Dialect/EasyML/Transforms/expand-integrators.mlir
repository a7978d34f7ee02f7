// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-resolve-gates,easyml-expand-integrators))' | FileCheck %s
// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-resolve-gates,easyml-expand-integrators{cvode-pivoting=true}))' | FileCheck %s --check-prefix=PIVOT

// Forward Euler: X + dt * f.
// CHECK-LABEL: easyml.model @fe
// CHECK-SAME: easyml.integrators_expanded
// CHECK-DAG: %[[X:.*]] = easyml.get @x
// CHECK-DAG: %[[DT:.*]] = easyml.dt
// CHECK: %[[F:.*]] = arith.negf %[[X]]
// CHECK: %[[S:.*]] = arith.mulf %[[DT]], %[[F]]
// CHECK: %[[N:.*]] = arith.addf %[[X]], %[[S]]
// CHECK: easyml.next @x, %[[N]]
easyml.model @fe {
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    %c = arith.constant 1.0 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %x = easyml.get @x : f64
    %f = arith.negf %x : f64
    easyml.diff @x, %f : f64
  }
}

// -----

// Rush-Larsen on a tau/inf gate: A + B*X with B = exp(-dt/tau) and
// A = -inf * expm1(-dt/tau).
// CHECK-LABEL: easyml.model @rl
// CHECK-DAG: %[[X:.*]] = easyml.get @m
// CHECK-DAG: %[[DT:.*]] = easyml.dt
// CHECK: %[[E0:.*]] = arith.divf %[[DT]], %[[TAU:.*]] :
// CHECK: %[[E:.*]] = arith.negf %[[E0]]
// CHECK: %[[B:.*]] = math.exp %[[E]]
// CHECK: %[[EM1:.*]] = math.expm1 %[[E]]
// CHECK: %[[AI:.*]] = arith.mulf %[[INF:.*]], %[[EM1]]
// CHECK: %[[A:.*]] = arith.negf %[[AI]]
// CHECK: %[[BX:.*]] = arith.mulf %[[B]], %[[X]]
// CHECK: %[[N:.*]] = arith.addf %[[A]], %[[BX]]
// CHECK: easyml.next @m, %[[N]]
easyml.model @rl {
  easyml.external @V as "Vm" access <read>
  easyml.state @m kind <inf_tau> method <rush_larsen>
  easyml.init {
    %c = arith.constant 0.0 : f64
    easyml.init_value @m, %c : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %tau = arith.constant 2.0 : f64
    %inf = math.exp %v : f64
    easyml.gate_inf_tau @m inf %inf tau %tau : f64, f64
  }
}

// -----

// RK2 re-evaluates the right-hand side at the midpoint and t + dt/2.
// CHECK-LABEL: easyml.model @rk2
// CHECK-DAG: %[[X:.*]] = easyml.get @x
// CHECK-DAG: %[[DT:.*]] = easyml.dt
// CHECK-DAG: %[[T:.*]] = easyml.time
// CHECK: %[[K1:.*]] = arith.mulf %[[X]], %[[T]]
// CHECK: %[[H:.*]] = arith.mulf %[[DT]], %{{.*}}
// CHECK: %[[TH:.*]] = arith.addf %[[T]], %[[H]]
// CHECK: %[[HK:.*]] = arith.mulf %[[H]], %[[K1]]
// CHECK: %[[XH:.*]] = arith.addf %[[X]], %[[HK]]
// CHECK: %[[K2:.*]] = arith.mulf %[[XH]], %[[TH]]
// CHECK: %[[S:.*]] = arith.mulf %[[DT]], %[[K2]]
// CHECK: %[[N:.*]] = arith.addf %[[X]], %[[S]]
// CHECK: easyml.next @x, %[[N]]
easyml.model @rk2 {
  easyml.state @x kind <diff> method <rk2>
  easyml.init {
    %c = arith.constant 1.0 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %x = easyml.get @x : f64
    %t = easyml.time : f64
    %f = arith.mulf %x, %t : f64
    easyml.diff @x, %f : f64
  }
}

// -----

// A two-state Markov chain by linearised backward Euler: the Jacobian comes
// from differentiating the rates, the 2x2 system is solved in line.
// CHECK-LABEL: easyml.model @markov
// CHECK-NOT: scf.while
// CHECK: arith.divf %{{.*}} : f64
// CHECK-DAG: easyml.next @c, %{{.*}} : f64
// CHECK-DAG: easyml.next @o, %{{.*}} : f64
easyml.model @markov {
  easyml.external @V as "Vm" access <read>
  easyml.state @c kind <diff> method <markov_be> {group = 0 : i32}
  easyml.state @o kind <diff> method <markov_be> {group = 0 : i32}
  easyml.init {
    %one = arith.constant 1.0 : f64
    %zero = arith.constant 0.0 : f64
    easyml.init_value @c, %one : f64
    easyml.init_value @o, %zero : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %c = easyml.get @c : f64
    %o = easyml.get @o : f64
    %kco = math.exp %v : f64
    %koc = arith.constant 3.0 : f64
    %a = arith.mulf %kco, %c : f64
    %b = arith.mulf %koc, %o : f64
    %dc = arith.subf %b, %a : f64
    %do = arith.subf %a, %b : f64
    easyml.diff @c, %dc : f64
    easyml.diff @o, %do : f64
  }
}

// -----

// cvode groups: adaptive ROS2 sub-stepping inside the step, starting from
// the step size the cell last proposed (a hidden value; 0, at the start,
// means dt) and storing the new proposal, at most dt.
// CHECK-LABEL: easyml.model @cvode
// CHECK: easyml.hidden @cvode.h.0 init 0.000000e+00 {units = "ms"}
// CHECK: easyml.compute
// CHECK: %[[DT:.*]] = easyml.dt
// CHECK: %[[HS:.*]] = easyml.get @cvode.h.0
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[HS]]
// CHECK: %[[CAP:.*]] = arith.minnumf %[[HS]], %[[DT]]
// CHECK: %[[H0:.*]] = arith.select %[[POS]], %[[CAP]], %[[DT]]
// CHECK: %[[R:.*]]:5 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[H0]],
// CHECK: scf.condition
// CHECK: } do {
// A near-zero pivot rejects the sub-step (as a NaN error would); it is
// checked right after the factorisation, whose solves then multiply by
// the pivots' reciprocals.
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[PV:.*]] : f64
// CHECK: %[[PIV:.*]] = math.absf %[[PV]]
// CHECK: %[[OK:.*]] = arith.cmpf oge, %[[PIV]], %{{.*}}
// CHECK: arith.mulf %{{.*}}, %[[INV]]
// CHECK: math.sqrt
// CHECK: arith.select %[[OK]],
// A sub-step cut short to end the interval keeps the longer proposal.
// CHECK: arith.maxnumf
// CHECK: arith.minnumf %{{.*}}, %[[DT]]
// CHECK: scf.yield
// What the group keeps live from the first solve to the second: the
// factors' non-zeros and 2 values per state.
// CHECK: } attributes {easyml.stiff_cost = {jacobian_nonzeros = 1 : i64, live_across_stage2 = 3 : i64, lu_nonzeros = 1 : i64, states = 1 : i64}}
// CHECK: easyml.next @y, %[[R]]#2
// CHECK: easyml.next @cvode.h.0, %[[R]]#1
// The sub-steps accepted above the tolerance (at the end of the budget or
// at the smallest step), for the kernels' warning counter.
// CHECK: easyml.next @cvode.forced.0, %[[R]]#4
easyml.model @cvode {
  easyml.state @y kind <diff> method <cvode> {group = 0 : i32}
  easyml.init {
    %one = arith.constant 1.0 : f64
    easyml.init_value @y, %one : f64
  }
  easyml.compute {
    %y = easyml.get @y : f64
    %k = arith.constant -1000.0 : f64
    %f = arith.mulf %k, %y : f64
    easyml.diff @y, %f : f64
  }
}

// -----

// Without pivoting (the default) a two-state cvode group factorises its
// iteration matrix in place: no row exchanges. PIVOT-LABEL checks the
// cvode-pivoting=true form, which selects the pivot row.
// CHECK-LABEL: easyml.model @cvode_pair
// CHECK: scf.while
// CHECK-NOT: arith.cmpi eq
// Two Jacobian entries off the diagonal make a full 2x2 iteration matrix.
// CHECK: easyml.stiff_cost = {jacobian_nonzeros = 2 : i64, live_across_stage2 = 8 : i64, lu_nonzeros = 4 : i64, states = 2 : i64}
// CHECK: easyml.next @cvode.h.3
// PIVOT-LABEL: easyml.model @cvode_pair
// PIVOT-NOT: easyml.hidden @cvode.h.3_
// PIVOT: scf.while
// PIVOT: } do {
// PIVOT: math.absf
// PIVOT: math.absf
// PIVOT: %[[LARGER:.*]] = arith.cmpf ogt
// PIVOT: arith.select %[[LARGER]]
// PIVOT: arith.cmpi eq
// PIVOT: easyml.next @cvode.h.3
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

// -----

// The factorisation eliminates in an order that limits fill-in: in this
// arrow-shaped iteration matrix (a coupled to b and c, b and c only to a),
// eliminating a first would fill b-c and c-b (9 factor entries); b and c
// first fill nothing, so the factors have the matrix's 7 entries.
// CHECK-LABEL: easyml.model @cvode_arrow
// CHECK: easyml.stiff_cost = {jacobian_nonzeros = 4 : i64, live_across_stage2 = 13 : i64, lu_nonzeros = 7 : i64, states = 3 : i64}
easyml.model @cvode_arrow {
  easyml.state @a kind <diff> method <cvode> {group = 4 : i32}
  easyml.state @b kind <diff> method <cvode> {group = 4 : i32}
  easyml.state @c kind <diff> method <cvode> {group = 4 : i32}
  easyml.init {
    %one = arith.constant 1.0 : f64
    easyml.init_value @a, %one : f64
    easyml.init_value @b, %one : f64
    easyml.init_value @c, %one : f64
  }
  easyml.compute {
    %a = easyml.get @a : f64
    %b = easyml.get @b : f64
    %c = easyml.get @c : f64
    %k = arith.constant -1000.0 : f64
    %bc = arith.addf %b, %c : f64
    %fa = arith.mulf %k, %bc : f64
    %fb = arith.mulf %k, %a : f64
    %fc = arith.mulf %k, %a : f64
    easyml.diff @a, %fa : f64
    easyml.diff @b, %fb : f64
    easyml.diff @c, %fc : f64
  }
}

// -----

// A Jacobian entry of constants alone is folded as it is built; one that
// is not finite (here d(b/0)/db) is dropped, as the run-time check drops a
// derivative that overflows, rather than put infinity in the matrix.
// (Kept, it would count as a second non-zero.)
// CHECK-LABEL: easyml.model @cvode_infinite_entry
// CHECK: easyml.stiff_cost = {jacobian_nonzeros = 1 : i64
easyml.model @cvode_infinite_entry {
  easyml.state @a kind <diff> method <cvode> {group = 5 : i32}
  easyml.state @b kind <diff> method <cvode> {group = 5 : i32}
  easyml.init {
    %one = arith.constant 1.0 : f64
    easyml.init_value @a, %one : f64
    easyml.init_value @b, %one : f64
  }
  easyml.compute {
    %a = easyml.get @a : f64
    %b = easyml.get @b : f64
    %zero = arith.constant 0.0 : f64
    %fa = arith.divf %b, %zero : f64
    %fb = arith.negf %a : f64
    easyml.diff @a, %fa : f64
    easyml.diff @b, %fb : f64
  }
}
