/*
 * fuzz_rules.c -- libFuzzer target: rules-file text (tutti_rules_parse_string,
 * the parser under --rules FILE that `tutti tune --rules-out` writes), then
 * every collective's lookup over a few rank counts and sizes of a set
 * that parsed. A text that could name a plugin file is skipped (fuzz.h).
 */
#include <stdint.h>

#include "fuzz.h"
#include "tutti/coll.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  tutti_rules_t *rs = NULL;
  char err[512], why[256];
  if (!fuzz_names_a_file(text) && /* plugins: fuzz.h */
      tutti_rules_parse_string(text, "fuzz.ini", &rs, err, sizeof err) == 0) {
    static const int Ps[] = {1, 2, 7, 64, 100000};
    static const size_t ms[] = {0, 1, 1024, 65536, SIZE_MAX};
    for (int c = 0; c < TUTTI_COLL_N; c++)
      for (int i = 0; i < 5; i++)
        for (int k = 0; k < 5; k++) {
          const tutti_algo_t *a;
          (void)tutti_rules_lookup(rs, c, Ps[i], ms[k], &a, why, sizeof why);
        }
    tutti_rules_free(rs);
  }
  free(text);
  return 0;
}
