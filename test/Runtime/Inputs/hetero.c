/* The heterogeneous runtime through the C API: a simulation on the devices
 * given on the command line, driven by the runtime's own time loop.
 *
 *   hetero <model.so> <devices> trace   stimulus train, Vm of every cell
 *                                       recorded every 50 steps, an event
 *                                       that clamps some cells' Vm and
 *                                       changes K_o (in the Luo-Rudy model
 *                                       g_K = 0.282 sqrt(K_o/5.4) is a
 *                                       derived value, which GPU kernels
 *                                       take by value); prints checksums
 *                                       of samples and states
 *   hetero <model.so> <devices> nan <cell>
 *                                       growth = 1 in one cell only (a
 *                                       per-cell parameter): the blow-up is
 *                                       reported with that cell
 */
#include <easyml-c/Runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CELLS = 3000 };

static void check(int rc, const char *what) {
  if (rc) {
    printf("%s: %s\n", what, easyml_last_error());
    exit(1);
  }
}

/* A checksum that sees every bit of every value. */
static uint64_t mix(uint64_t h, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  h ^= bits;
  return h * 1099511628211ULL;
}

struct samples {
  int64_t count, last;
  uint64_t hash;
};

static void onSample(int64_t step, const double *values, void *user) {
  struct samples *s = user;
  if (step <= s->last && s->count)
    printf("samples out of order: %lld after %lld\n", (long long)step,
           (long long)s->last);
  s->last = step;
  ++s->count;
  for (int c = 0; c < CELLS; ++c)
    s->hash = mix(s->hash, values[c]);
}

/* At step 15000: the cells in [1000, 1100) get Vm = -20 (wherever they
 * live: the runtime brings them back to the device), and every cell a
 * higher K_o. */
static int clampSome(easyml_sim *sim, int64_t step, void *user) {
  (void)step;
  (void)user;
  double *vm = easyml_sim_vm(sim);
  for (int c = 1000; c < 1100; ++c)
    vm[c] = -20.0;
  check(easyml_sim_set_param(sim, "K_o", 7.0), "param");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: hetero model.so devices trace|nan [cell]\n");
    return 2;
  }
  easyml_model *model = easyml_model_load(argv[1]);
  if (!model) {
    printf("load: %s\n", easyml_last_error());
    return 1;
  }
  const easyml_model_desc *d = easyml_model_get_desc(model);
  easyml_sim *sim = easyml_sim_create_devices(model, CELLS, argv[2], NULL);
  if (!sim) {
    printf("create: %s\n", easyml_last_error());
    return 1;
  }
  check(easyml_sim_set_option(sim, "lb_min_window", 0), "option");
  check(easyml_sim_set_option(sim, "threads", 2), "option");
  if (!strcmp(argv[3], "nan")) {
    int bad = argc > 4 ? atoi(argv[4]) : 0;
    double *growth = calloc(CELLS, sizeof(double));
    growth[bad] = 1.0;
    check(easyml_sim_set_param_per_cell(sim, "growth", growth), "param");
    check(easyml_sim_initialize(sim, 0.01), "initialize");
    int rc = easyml_sim_run(sim, 500);
    printf("run: %s\n", rc ? easyml_last_error() : "ok");
    easyml_sim_free(sim);
    easyml_model_free(model);
    return 0;
  }
  check(easyml_sim_initialize(sim, 0.01), "initialize");
  check(easyml_sim_add_stimulus(sim, 1.0, 1.0, 60.0, 200.0, 2), "stimulus");
  struct samples s = {0, -1, 1469598103934665603ULL};
  check(easyml_sim_record(sim, "Vm", 0, CELLS, 0, 50, onSample, &s),
        "record");
  check(easyml_sim_add_event(sim, 15000, 0, clampSome, NULL) <= 0, "event");
  check(easyml_sim_run_until(sim, 300.0), "run");
  printf("step %lld, %lld samples, hash %016llx\n",
         (long long)easyml_sim_step(sim), (long long)s.count,
         (unsigned long long)s.hash);
  uint64_t h = 1469598103934665603ULL;
  double *row = malloc(sizeof(double) * CELLS);
  for (int64_t v = 0; v < d->num_states; ++v) {
    check(easyml_sim_get_state_row(sim, v, row), "states");
    for (int c = 0; c < CELLS; ++c)
      h = mix(h, row[c]);
  }
  printf("states hash %016llx\n", (unsigned long long)h);
  const char *json = easyml_sim_report_json(sim);
  printf("report: %s\n", strstr(json, "\"devices\"") ? "has devices" : "?");
  easyml_sim_free(sim);
  easyml_model_free(model);
  return 0;
}
