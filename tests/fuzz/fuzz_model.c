/*
 * fuzz_model.c -- libFuzzer target: --model specs (tutti_model_parse:
 * presets, their parameters, field overrides with cost expressions), then
 * the model described, written as JSON and a time printed in its unit.
 */
#include "fuzz.h"
#include "tutti/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *spec = fuzz_text(data, size);
  tutti_model_t m;
  char err[512], buf[1024];

  if (tutti_model_parse(spec, &m, err, sizeof err) == 0) {
    tutti_model_describe(&m, buf, sizeof buf);
    tutti_model_json(&m, fuzz_devnull());
    tutti_format_model_time(&m, 1.5e-6, buf, sizeof buf);
  }
  free(spec);
  return 0;
}
