/* Accuracy of glibc's libmvec against scalar libm, for the functions and
 * vector flavours (_ZGV<isa>N<n>v_<fn>) that easyml-convert-math-to-veclib
 * calls. Built with -march=native: it tests the flavours this machine (the
 * compiler's default target) can run. For each function it sweeps inputs
 * over the ranges ionic models use and prints the largest error in units in
 * the last place (ulp) of the libm result, then checks a bound.
 *
 *   cc -O1 -march=native -ffp-contract=off ulp.c -lmvec -lm && ./a.out
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bound checked, in ulp of the libm value (glibc documents libmvec's
 * double functions at <= 4 ulp). */
#define BOUND 4.0
/* Sample points per function and flavour. */
#define SAMPLES 400000

static double ulpOf(double x) {
  x = fabs(x);
  if (x == 0)
    return 4.9406564584124654e-324;
  if (isinf(x))
    return x;
  return nextafter(x, INFINITY) - x;
}

/* A deterministic generator: xorshift, uniform in [0, 1). */
static uint64_t state = 88172645463325252ull;
static double uniform(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (state >> 11) * 0x1.0p-53;
}

typedef struct {
  const char *name;
  double (*scalar)(double);
  double (*scalar2)(double, double);
  double lo, hi;   /* first argument range */
  int logScale;    /* sample |x| log-uniformly in [lo, hi] */
  double lo2, hi2; /* second argument (pow, atan2) */
} Function;

static double arg(const Function *f, int second) {
  double lo = second ? f->lo2 : f->lo, hi = second ? f->hi2 : f->hi;
  if (f->logScale && !second)
    return exp(log(lo) + (log(hi) - log(lo)) * uniform());
  return lo + (hi - lo) * uniform();
}

static const Function functions[] = {
    {"exp", exp, 0, -700, 700, 0, 0, 0},
    {"expm1", expm1, 0, -40, 40, 0, 0, 0},
    {"exp2", exp2, 0, -1000, 1000, 0, 0, 0},
    {"log", log, 0, 1e-300, 1e300, 1, 0, 0},
    {"log10", log10, 0, 1e-300, 1e300, 1, 0, 0},
    {"log1p", log1p, 0, -0.999, 1e6, 0, 0, 0},
    {"log2", log2, 0, 1e-300, 1e300, 1, 0, 0},
    {"pow", 0, pow, 1e-8, 1e4, 1, -8, 8},
    {"sin", sin, 0, -100, 100, 0, 0, 0},
    {"cos", cos, 0, -100, 100, 0, 0, 0},
    {"tan", tan, 0, -100, 100, 0, 0, 0},
    {"asin", asin, 0, -1, 1, 0, 0, 0},
    {"acos", acos, 0, -1, 1, 0, 0, 0},
    {"atan", atan, 0, -1e3, 1e3, 0, 0, 0},
    {"atan2", 0, atan2, -1e3, 1e3, 0, -1e3, 1e3},
    {"sinh", sinh, 0, -700, 700, 0, 0, 0},
    {"cosh", cosh, 0, -700, 700, 0, 0, 0},
    {"tanh", tanh, 0, -20, 20, 0, 0, 0},
    {"cbrt", cbrt, 0, 1e-300, 1e300, 1, 0, 0},
    {"erf", erf, 0, -6, 6, 0, 0, 0},
};
enum { NUM_FUNCTIONS = sizeof functions / sizeof functions[0] };

/* One vector flavour: calls the library function `fn` on `n` lanes. */
typedef void (*Caller)(int fn, const double *x, const double *y, double *r);

#define DECLARE(isa, n, T)                                                     \
  T _ZGV##isa##N##n##v_exp(T);                                                 \
  T _ZGV##isa##N##n##v_expm1(T);                                               \
  T _ZGV##isa##N##n##v_exp2(T);                                                \
  T _ZGV##isa##N##n##v_log(T);                                                 \
  T _ZGV##isa##N##n##v_log10(T);                                               \
  T _ZGV##isa##N##n##v_log1p(T);                                               \
  T _ZGV##isa##N##n##v_log2(T);                                                \
  T _ZGV##isa##N##n##vv_pow(T, T);                                             \
  T _ZGV##isa##N##n##v_sin(T);                                                 \
  T _ZGV##isa##N##n##v_cos(T);                                                 \
  T _ZGV##isa##N##n##v_tan(T);                                                 \
  T _ZGV##isa##N##n##v_asin(T);                                                \
  T _ZGV##isa##N##n##v_acos(T);                                                \
  T _ZGV##isa##N##n##v_atan(T);                                                \
  T _ZGV##isa##N##n##vv_atan2(T, T);                                           \
  T _ZGV##isa##N##n##v_sinh(T);                                                \
  T _ZGV##isa##N##n##v_cosh(T);                                                \
  T _ZGV##isa##N##n##v_tanh(T);                                                \
  T _ZGV##isa##N##n##v_cbrt(T);                                                \
  T _ZGV##isa##N##n##v_erf(T);                                                 \
  static void call_##isa(int fn, const double *x, const double *y,             \
                         double *r) {                                          \
    T a, b, c;                                                                 \
    memcpy(&a, x, sizeof a);                                                   \
    memcpy(&b, y, sizeof b);                                                   \
    switch (fn) {                                                              \
    case 0:                                                                    \
      c = _ZGV##isa##N##n##v_exp(a);                                           \
      break;                                                                   \
    case 1:                                                                    \
      c = _ZGV##isa##N##n##v_expm1(a);                                         \
      break;                                                                   \
    case 2:                                                                    \
      c = _ZGV##isa##N##n##v_exp2(a);                                          \
      break;                                                                   \
    case 3:                                                                    \
      c = _ZGV##isa##N##n##v_log(a);                                           \
      break;                                                                   \
    case 4:                                                                    \
      c = _ZGV##isa##N##n##v_log10(a);                                         \
      break;                                                                   \
    case 5:                                                                    \
      c = _ZGV##isa##N##n##v_log1p(a);                                         \
      break;                                                                   \
    case 6:                                                                    \
      c = _ZGV##isa##N##n##v_log2(a);                                          \
      break;                                                                   \
    case 7:                                                                    \
      c = _ZGV##isa##N##n##vv_pow(a, b);                                       \
      break;                                                                   \
    case 8:                                                                    \
      c = _ZGV##isa##N##n##v_sin(a);                                           \
      break;                                                                   \
    case 9:                                                                    \
      c = _ZGV##isa##N##n##v_cos(a);                                           \
      break;                                                                   \
    case 10:                                                                   \
      c = _ZGV##isa##N##n##v_tan(a);                                           \
      break;                                                                   \
    case 11:                                                                   \
      c = _ZGV##isa##N##n##v_asin(a);                                          \
      break;                                                                   \
    case 12:                                                                   \
      c = _ZGV##isa##N##n##v_acos(a);                                          \
      break;                                                                   \
    case 13:                                                                   \
      c = _ZGV##isa##N##n##v_atan(a);                                          \
      break;                                                                   \
    case 14:                                                                   \
      c = _ZGV##isa##N##n##vv_atan2(a, b);                                     \
      break;                                                                   \
    case 15:                                                                   \
      c = _ZGV##isa##N##n##v_sinh(a);                                          \
      break;                                                                   \
    case 16:                                                                   \
      c = _ZGV##isa##N##n##v_cosh(a);                                          \
      break;                                                                   \
    case 17:                                                                   \
      c = _ZGV##isa##N##n##v_tanh(a);                                          \
      break;                                                                   \
    case 18:                                                                   \
      c = _ZGV##isa##N##n##v_cbrt(a);                                          \
      break;                                                                   \
    default:                                                                   \
      c = _ZGV##isa##N##n##v_erf(a);                                           \
      break;                                                                   \
    }                                                                          \
    memcpy(r, &c, sizeof c);                                                   \
  }

typedef double v2d __attribute__((vector_size(16)));
DECLARE(b, 2, v2d)
#ifdef __AVX2__
typedef double v4d __attribute__((vector_size(32)));
DECLARE(d, 4, v4d)
#endif
#ifdef __AVX512F__
typedef double v8d __attribute__((vector_size(64)));
DECLARE(e, 8, v8d)
#endif

int main(void) {
  struct {
    const char *isa;
    int lanes;
    Caller call;
  } flavours[] = {
      {"sse2", 2, call_b},
#ifdef __AVX2__
      {"avx2", 4, call_d},
#endif
#ifdef __AVX512F__
      {"avx512", 8, call_e},
#endif
  };
  int numFlavours = sizeof flavours / sizeof flavours[0];
  int failures = 0;
  printf("%-8s", "function");
  for (int k = 0; k < numFlavours; ++k)
    printf(" %10s", flavours[k].isa);
  printf("   (max |error| in ulp of libm over %d samples)\n", SAMPLES);
  for (int f = 0; f < NUM_FUNCTIONS; ++f) {
    const Function *fn = &functions[f];
    printf("%-8s", fn->name);
    for (int k = 0; k < numFlavours; ++k) {
      double worst = 0, worstX = 0;
      for (int s = 0; s < SAMPLES; s += 8) {
        double x[8], y[8], r[8];
        for (int i = 0; i < 8; ++i) {
          x[i] = arg(fn, 0);
          y[i] = arg(fn, 1);
        }
        for (int i = 0; i < 8; i += flavours[k].lanes)
          flavours[k].call(f, x + i, y + i, r + i);
        for (int i = 0; i < 8; ++i) {
          double ref = fn->scalar ? fn->scalar(x[i]) : fn->scalar2(x[i], y[i]);
          double err;
          if (isnan(ref) || isinf(ref))
            err = (isnan(ref) && isnan(r[i])) || ref == r[i] ? 0 : INFINITY;
          else
            err = fabs(r[i] - ref) / ulpOf(ref);
          if (!(err <= worst)) {
            worst = err;
            worstX = x[i];
          }
        }
      }
      printf(" %10.2f", worst);
      if (!(worst <= BOUND)) {
        ++failures;
        printf(" (FAIL at x = %.17g)", worstX);
      }
    }
    printf("\n");
  }
  printf("%s: %d function x flavour pairs above %.0f ulp\n",
         failures ? "FAIL" : "PASS", failures, BOUND);
  return failures != 0;
}
