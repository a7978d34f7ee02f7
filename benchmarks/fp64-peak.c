/* Measured FP64 peak of this machine: every thread runs independent chains
 * of fused multiply-adds on the widest vectors the compiler targets, enough
 * chains to cover the FMA latency. Prints GFLOP/s (an FMA counts 2) for the
 * given thread count. Used by benchmarks/cpu.py for the fraction of peak.
 *
 *   cc -O2 -march=native -ffp-contract=fast -fopenmp fp64-peak.c && ./a.out 2
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#define LANES 8
#elif defined(__AVX__)
#define LANES 4
#else
#define LANES 2
#endif
typedef double vec __attribute__((vector_size(LANES * 8)));
enum { CHAINS = 16 };

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
  long iters = 20000000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double sink = 0, t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
      vec acc[CHAINS], a, b;
      for (int l = 0; l < LANES; ++l)
        a[l] = 0.999999, b[l] = 1e-7 * (omp_get_thread_num() + 1);
      for (int c = 0; c < CHAINS; ++c)
        for (int l = 0; l < LANES; ++l)
          acc[c][l] = c + l;
      for (long i = 0; i < iters; ++i)
        for (int c = 0; c < CHAINS; ++c)
          acc[c] = acc[c] * a + b;
      for (int c = 0; c < CHAINS; ++c)
        for (int l = 0; l < LANES; ++l)
          sink += acc[c][l];
    }
    double s = omp_get_wtime() - t0;
    double gflops = 2.0 * CHAINS * LANES * iters * threads / s / 1e9;
    if (gflops > best)
      best = gflops;
    if (sink == 42) /* keep the result alive */
      printf("%g\n", sink);
  }
  printf("%.1f GFLOP/s FP64 (%d threads, %d lanes)\n", best, threads, LANES);
  return 0;
}
