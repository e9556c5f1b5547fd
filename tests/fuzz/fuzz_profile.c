/*
 * fuzz_profile.c -- libFuzzer target: latency-profile INI text
 * (tutti_profile_parse_string, the parser under --profile FILE and the
 * built-ins), then the model it gives described and written as JSON. A
 * profile's [topology] keys are only text here; fuzz_machine builds them.
 */
#include "fuzz.h"
#include "tutti/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  static tutti_profile_t p; /* 6 KB: not on the stack ASan checks */
  char err[512], buf[1024];

  if (tutti_profile_parse_string(text, "fuzz.ini", &p, err, sizeof err) == 0) {
    tutti_model_describe(&p.model, buf, sizeof buf);
    tutti_model_json(&p.model, fuzz_devnull());
  }
  free(text);
  return 0;
}
