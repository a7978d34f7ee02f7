/* What a simulator that has its own time loop needs from a compiled model:
 * the descriptor, read through the ABI's header alone (easyml/ABI/ABI.h);
 * nothing of the EasyML runtime is called. Prints the model's sizes and
 * its variants. */
#include "luo_rudy_1991.h"

#include <easyml/ABI/ABI.h>

#include <stdio.h>

int main(void) {
  const easyml_model_desc *d = &easyml_model_luo_rudy_1991;
  if (d->abi_version != EASYML_ABI_VERSION) {
    fprintf(stderr, "describe: model ABI %lld, this program %d\n",
            (long long)d->abi_version, EASYML_ABI_VERSION);
    return 1;
  }
  printf("%s: ABI %lld, %lld states, %lld parameters, %lld variants\n",
         d->name, (long long)d->abi_version, (long long)d->num_states,
         (long long)d->num_params, (long long)d->num_variants);
  for (int64_t i = 0; i < d->num_variants; ++i)
    printf("  variant %s\n", d->variants[i].name);
  return 0;
}
