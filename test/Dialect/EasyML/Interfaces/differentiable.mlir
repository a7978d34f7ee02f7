// RUN: easyml-opt %s --split-input-file --verify-diagnostics --test-easyml-differentiate | FileCheck %s

// The derivative rules of DifferentiableOpInterface, attached to arith and
// math operations: each function returns its result, then the result's
// derivative with respect to each f64 argument.

// CHECK-LABEL: func.func @exp
// CHECK-SAME: -> (f64, f64)
// CHECK: %[[Y:.*]] = math.exp %arg0
// CHECK: return %[[Y]], %[[Y]]
func.func @exp(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}

// -----

// d(x y) = y dx + x dy.
// CHECK-LABEL: func.func @product
// CHECK: %[[P:.*]] = arith.mulf %arg0, %arg1
// CHECK: return %[[P]], %arg1, %arg0
func.func @product(%x: f64, %y: f64) -> f64 {
  %0 = arith.mulf %x, %y : f64
  return %0 : f64
}

// -----

// d(x/y) = (dx - (x/y) dy) / y: 1/y and -(x/y)/y.
// CHECK-LABEL: func.func @quotient
// CHECK: arith.constant 1.0
// CHECK: %[[ONE:.*]] = arith.constant 1.0
// CHECK-NEXT: %[[Q:.*]] = arith.divf %arg0, %arg1
// CHECK: %[[NQ:.*]] = arith.negf %[[Q]]
// CHECK: %[[DX:.*]] = arith.divf %[[ONE]], %arg1
// CHECK: %[[DY:.*]] = arith.divf %[[NQ]], %arg1
// CHECK: return %[[Q]], %[[DX]], %[[DY]]
func.func @quotient(%x: f64, %y: f64) -> f64 {
  %0 = arith.divf %x, %y : f64
  return %0 : f64
}

// -----

// Sums, differences and negation pass the seeds through: -(y - x) has
// derivatives -(-1) and -1, folded to constants as they are built.
// CHECK-LABEL: func.func @sums
// CHECK: %[[S:.*]] = arith.subf %arg1, %arg0
// CHECK: %[[N:.*]] = arith.negf %[[S]]
// CHECK: %[[PLUS:.*]] = arith.constant 1.0
// CHECK: %[[MINUS:.*]] = arith.constant -1.0
// CHECK: return %[[N]], %[[PLUS]], %[[MINUS]]
func.func @sums(%x: f64, %y: f64) -> f64 {
  %0 = arith.subf %y, %x : f64
  %1 = arith.negf %0 : f64
  return %1 : f64
}

// -----

// The chain rule through two operations: d exp(x^2)/dx = 2x exp(x^2).
// CHECK-LABEL: func.func @chain
// CHECK: %[[SQ:.*]] = arith.mulf %arg0, %arg0
// CHECK: %[[TWO_X:.*]] = arith.addf %arg0, %arg0
// CHECK: %[[E:.*]] = math.exp %[[SQ]]
// CHECK: %[[D:.*]] = arith.mulf %[[TWO_X]], %[[E]]
// CHECK: return %[[E]], %[[D]]
func.func @chain(%x: f64) -> f64 {
  %0 = arith.mulf %x, %x : f64
  %1 = math.exp %0 : f64
  return %1 : f64
}

// -----

// One operand: f'(x) dx for the math functions.
// CHECK-LABEL: func.func @unary
// CHECK: %[[LOG:.*]] = math.log %arg0
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %arg0
// CHECK: %[[SQRT:.*]] = math.sqrt %arg0
// CHECK: %[[HALF:.*]] = arith.constant 5.0{{0*}}e-01
// CHECK: %[[DSQRT:.*]] = arith.divf %[[HALF]], %[[SQRT]]
// CHECK: %[[SIN:.*]] = math.sin %arg0
// CHECK: %[[COS:.*]] = math.cos %arg0
// CHECK: %[[COSX:.*]] = math.cos %arg0
// CHECK: %[[MSIN:.*]] = math.sin %arg0
// CHECK: %[[DCOS:.*]] = arith.negf %[[MSIN]]
// CHECK: %[[TANH:.*]] = math.tanh %arg0
// CHECK: %[[T2:.*]] = arith.mulf %[[TANH]], %[[TANH]]
// CHECK: %[[DTANH:.*]] = arith.subf %{{.*}}, %[[T2]]
// CHECK: return %[[LOG]], %[[SQRT]], %[[SIN]], %[[COSX]], %[[TANH]], %[[INV]], %[[DSQRT]], %[[COS]], %[[DCOS]], %[[DTANH]]
func.func @unary(%x: f64) -> (f64, f64, f64, f64, f64) {
  %0 = math.log %x : f64
  %1 = math.sqrt %x : f64
  %2 = math.sin %x : f64
  %3 = math.cos %x : f64
  %4 = math.tanh %x : f64
  return %0, %1, %2, %3, %4 : f64, f64, f64, f64, f64
}

// -----

// expm1' = expm1 + 1, exp2' = exp2 ln 2, log10' = 1/(x ln 10),
// log2' = 1/(x ln 2), log1p' = 1/(1 + x).
// CHECK-LABEL: func.func @exps_logs
// CHECK: %[[EM1:.*]] = math.expm1 %arg0
// CHECK: %[[DEM1:.*]] = arith.addf %[[EM1]], %{{.*}}
// CHECK: %[[E2:.*]] = math.exp2 %arg0
// CHECK: %[[LN2:.*]] = arith.constant 0.69314718055994529
// CHECK: %[[DE2:.*]] = arith.mulf %[[E2]], %[[LN2]]
// CHECK: %[[L10:.*]] = math.log10 %arg0
// CHECK: %[[C10:.*]] = arith.constant 0.43429448190325176
// CHECK: %[[DL10:.*]] = arith.divf %[[C10]], %arg0
// CHECK: %[[L2:.*]] = math.log2 %arg0
// CHECK: %[[C2:.*]] = arith.constant 1.4426950408889634
// CHECK: %[[DL2:.*]] = arith.divf %[[C2]], %arg0
// CHECK: %[[L1P:.*]] = math.log1p %arg0
// CHECK: %[[ONE:.*]] = arith.constant 1.0
// CHECK: %[[XP1:.*]] = arith.addf %arg0, %{{.*}}
// CHECK: %[[DL1P:.*]] = arith.divf %[[ONE]], %[[XP1]]
// CHECK: return %[[EM1]], %[[E2]], %[[L10]], %[[L2]], %[[L1P]], %[[DEM1]], %[[DE2]], %[[DL10]], %[[DL2]], %[[DL1P]] :
func.func @exps_logs(%x: f64) -> (f64, f64, f64, f64, f64) {
  %0 = math.expm1 %x : f64
  %1 = math.exp2 %x : f64
  %2 = math.log10 %x : f64
  %3 = math.log2 %x : f64
  %4 = math.log1p %x : f64
  return %0, %1, %2, %3, %4 : f64, f64, f64, f64, f64
}

// -----

// cbrt' = 1/(3 y^2), tan' = 1 + y^2, asin' = 1/sqrt(1 - x^2),
// acos' = -1/sqrt(1 - x^2), atan' = 1/(1 + x^2), sinh' = cosh,
// cosh' = sinh.
// CHECK-LABEL: func.func @trig
// CHECK: %[[CBRT:.*]] = math.cbrt %arg0
// CHECK: %[[THIRD:.*]] = arith.constant 0.33333333333333331
// CHECK: %[[C2:.*]] = arith.mulf %[[CBRT]], %[[CBRT]]
// CHECK: %[[DCBRT:.*]] = arith.divf %[[THIRD]], %[[C2]]
// CHECK: %[[TAN:.*]] = math.tan %arg0
// CHECK: %[[T2:.*]] = arith.mulf %[[TAN]], %[[TAN]]
// CHECK: %[[DTAN:.*]] = arith.addf %[[T2]], %{{.*}}
// CHECK: %[[ASIN:.*]] = math.asin %arg0
// CHECK: %[[PLUS:.*]] = arith.constant 1.0
// CHECK: %[[X2:.*]] = arith.mulf %arg0, %arg0
// CHECK: %[[R:.*]] = arith.subf %{{.*}}, %[[X2]]
// CHECK: %[[ROOT:.*]] = math.sqrt %[[R]]
// CHECK: %[[DASIN:.*]] = arith.divf %[[PLUS]], %[[ROOT]]
// CHECK: %[[ACOS:.*]] = math.acos %arg0
// CHECK: %[[MINUS:.*]] = arith.constant -1.0
// CHECK: %[[ROOT2:.*]] = math.sqrt
// CHECK: %[[DACOS:.*]] = arith.divf %[[MINUS]], %[[ROOT2]]
// CHECK: %[[ATAN:.*]] = math.atan %arg0
// CHECK: %[[NUM:.*]] = arith.constant 1.0
// CHECK: %[[XX:.*]] = arith.mulf %arg0, %arg0
// CHECK: %[[DEN:.*]] = arith.addf %[[XX]], %{{.*}}
// CHECK: %[[DATAN:.*]] = arith.divf %[[NUM]], %[[DEN]]
// CHECK: %[[SINH:.*]] = math.sinh %arg0
// CHECK: %[[DSINH:.*]] = math.cosh %arg0
// CHECK: %[[COSH:.*]] = math.cosh %arg0
// CHECK: %[[DCOSH:.*]] = math.sinh %arg0
// CHECK: return %[[CBRT]], %[[TAN]], %[[ASIN]], %[[ACOS]], %[[ATAN]], %[[SINH]], %[[COSH]], %[[DCBRT]], %[[DTAN]], %[[DASIN]], %[[DACOS]], %[[DATAN]], %[[DSINH]], %[[DCOSH]] :
func.func @trig(%x: f64) -> (f64, f64, f64, f64, f64, f64, f64) {
  %0 = math.cbrt %x : f64
  %1 = math.tan %x : f64
  %2 = math.asin %x : f64
  %3 = math.acos %x : f64
  %4 = math.atan %x : f64
  %5 = math.sinh %x : f64
  %6 = math.cosh %x : f64
  return %0, %1, %2, %3, %4, %5, %6 : f64, f64, f64, f64, f64, f64, f64
}

// -----

// |x|: the sign, +1 at 0; erf: 2/sqrt(pi) exp(-x^2).
// CHECK-LABEL: func.func @abs_erf
// CHECK: %[[ABS:.*]] = math.absf %arg0
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %arg0
// CHECK: %[[SIGN:.*]] = arith.select %[[NEG]]
// CHECK: %[[ERF:.*]] = math.erf %arg0
// CHECK: %[[X2:.*]] = arith.mulf %arg0, %arg0
// CHECK: %[[MX2:.*]] = arith.negf %[[X2]]
// CHECK: %[[E:.*]] = math.exp %[[MX2]]
// CHECK: %[[C:.*]] = arith.constant 1.1283791670955126
// CHECK: %[[DERF:.*]] = arith.mulf %[[E]], %[[C]]
// CHECK: return %[[ABS]], %[[ERF]], %[[SIGN]], %[[DERF]]
func.func @abs_erf(%x: f64) -> (f64, f64) {
  %0 = math.absf %x : f64
  %1 = math.erf %x : f64
  return %0, %1 : f64, f64
}

// -----

// a^c: c a^(c-1) da + a^c ln(a) dc; with a constant exponent only the
// first term is built, and c - 1 is folded.
// CHECK-LABEL: func.func @power
// CHECK: %[[P:.*]] = math.powf %arg0, %arg1
// CHECK: %[[CM1:.*]] = arith.subf %arg1
// CHECK: %[[PM1:.*]] = math.powf %arg0, %[[CM1]]
// CHECK: %[[DA:.*]] = arith.mulf %arg1, %[[PM1]]
// CHECK: %[[LN:.*]] = math.log %arg0
// CHECK: %[[DC:.*]] = arith.mulf %[[P]], %[[LN]]
// CHECK: %[[Q:.*]] = math.powf %arg0, %[[THREE:.*]] :
// CHECK-NOT: math.log
// CHECK: %[[TWO:.*]] = arith.constant 2.0
// CHECK: %[[QPM1:.*]] = math.powf %arg0, %[[TWO]]
// CHECK: %[[DQ:.*]] = arith.mulf %[[QPM1]], %[[THREE]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: return %[[P]], %[[Q]], %[[DA]], %[[DC]], %[[DQ]], %[[ZERO]] :
func.func @power(%a: f64, %c: f64) -> (f64, f64) {
  %three = arith.constant 3.0 : f64
  %0 = math.powf %a, %c : f64
  %1 = math.powf %a, %three : f64
  return %0, %1 : f64, f64
}

// -----

// Selects and extrema take the tangent of the operand chosen; the first on
// a tie.
// CHECK-LABEL: func.func @choices
// CHECK: %[[DY_SEED:.*]] = arith.constant 1.0
// CHECK: %[[DX_SEED:.*]] = arith.constant 1.0
// CHECK: %[[COND:.*]] = arith.cmpf ogt, %arg0, %arg1
// CHECK: %[[SEL:.*]] = arith.select %[[COND]], %arg0, %arg1
// CHECK: %[[DSX:.*]] = arith.select %[[COND]], %[[DX_SEED]], %{{.*}} : f64
// CHECK: %[[DSY:.*]] = arith.select %[[COND]], %{{.*}}, %[[DY_SEED]] : f64
// CHECK: %[[MIN:.*]] = arith.minnumf %arg0, %arg1
// CHECK: %[[FIRST:.*]] = arith.cmpf ole, %arg0, %arg1
// CHECK: %[[DMINX:.*]] = arith.select %[[FIRST]], %[[DX_SEED]]
// CHECK: %[[DMINY:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[DY_SEED]]
// CHECK: %[[MAX:.*]] = arith.maximumf %arg0, %arg1
// CHECK: %[[FIRST2:.*]] = arith.cmpf oge, %arg0, %arg1
// CHECK: %[[DMAXX:.*]] = arith.select %[[FIRST2]], %[[DX_SEED]]
// CHECK: %[[DMAXY:.*]] = arith.select %[[FIRST2]], %{{.*}}, %[[DY_SEED]]
// CHECK: return %[[SEL]], %[[MIN]], %[[MAX]], %[[DSX]], %[[DSY]], %[[DMINX]], %[[DMINY]], %[[DMAXX]], %[[DMAXY]] :
func.func @choices(%x: f64, %y: f64) -> (f64, f64, f64) {
  %c = arith.cmpf ogt, %x, %y : f64
  %0 = arith.select %c, %x, %y : f64
  %1 = arith.minnumf %x, %y : f64
  %2 = arith.maximumf %x, %y : f64
  return %0, %1, %2 : f64, f64, f64
}

// -----

// maxnumf and minimumf choose like maxnumf's and minnumf's rules.
// CHECK-LABEL: func.func @more_choices
// CHECK: %[[MAX:.*]] = arith.maxnumf %arg0, %arg1
// CHECK: %[[GE:.*]] = arith.cmpf oge, %arg0, %arg1
// CHECK: %[[DMAXX:.*]] = arith.select %[[GE]]
// CHECK: %[[DMAXY:.*]] = arith.select %[[GE]]
// CHECK: %[[MIN:.*]] = arith.minimumf %arg0, %arg1
// CHECK: %[[LE:.*]] = arith.cmpf ole, %arg0, %arg1
// CHECK: %[[DMINX:.*]] = arith.select %[[LE]]
// CHECK: %[[DMINY:.*]] = arith.select %[[LE]]
// CHECK: return %[[MAX]], %[[MIN]], %[[DMAXX]], %[[DMAXY]], %[[DMINX]], %[[DMINY]] :
func.func @more_choices(%x: f64, %y: f64) -> (f64, f64) {
  %0 = arith.maxnumf %x, %y : f64
  %1 = arith.minimumf %x, %y : f64
  return %0, %1 : f64, f64
}

// -----

// atan2(y, x): (x dy - y dx) / (x^2 + y^2).
// CHECK-LABEL: func.func @atan2
// CHECK: %[[A:.*]] = math.atan2 %arg0, %arg1
// CHECK: %[[Y2:.*]] = arith.mulf %arg0, %arg0
// CHECK: %[[X2:.*]] = arith.mulf %arg1, %arg1
// CHECK: %[[R2:.*]] = arith.addf %[[Y2]], %[[X2]]
// CHECK: %[[NY:.*]] = arith.negf %arg0
// CHECK: %[[DY:.*]] = arith.divf %arg1, %[[R2]]
// CHECK: %[[DX:.*]] = arith.divf %[[NY]], %[[R2]]
// CHECK: return %[[A]], %[[DY]], %[[DX]]
func.func @atan2(%y: f64, %x: f64) -> f64 {
  %0 = math.atan2 %y, %x : f64
  return %0 : f64
}

// -----

// Piecewise-constant operations and arguments a result does not read have
// zero derivatives.
// CHECK-LABEL: func.func @zeros
// CHECK: %[[F:.*]] = math.floor %arg0
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: return %[[F]], %[[ZERO]], %[[ZERO]]
func.func @zeros(%x: f64, %unused: f64) -> f64 {
  %0 = math.floor %x : f64
  return %0 : f64
}

// -----

// The other roundings and conversions from integers are piecewise constant.
// CHECK-LABEL: func.func @steps
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] :
func.func @steps(%x: f64, %i: i32) -> (f64, f64, f64, f64, f64) {
  %0 = math.ceil %x : f64
  %1 = math.round %x : f64
  %2 = math.trunc %x : f64
  %3 = arith.sitofp %i : i32 to f64
  %4 = arith.uitofp %i : i32 to f64
  return %0, %1, %2, %3, %4 : f64, f64, f64, f64, f64
}

// -----

func.func @no_rule(%x: f64) -> f64 {
  // expected-error @below {{'arith.remf' op cannot be differentiated}}
  %0 = arith.remf %x, %x : f64
  return %0 : f64
}

// -----

func.func @regions(%x: f64, %c: i1) -> f64 {
  // expected-error @below {{'scf.if' op cannot be differentiated: it has regions}}
  %0 = scf.if %c -> f64 {
    scf.yield %x : f64
  } else {
    %1 = arith.negf %x : f64
    scf.yield %1 : f64
  }
  return %0 : f64
}
