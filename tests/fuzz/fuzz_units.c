/*
 * fuzz_units.c -- libFuzzer target: the unit parsers of units.h and
 * model.h (tutti_parse_size, _time, _bandwidth, _per_byte, and
 * tutti_parse_cost with and without postal steps), all on the same input
 * text, each result printed back with its formatter.
 */
#include "fuzz.h"
#include "tutti/model.h"
#include "tutti/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = fuzz_text(data, size);
  char err[256], buf[256];
  size_t bytes;
  double x;
  tutti_cost_t c;

  if (tutti_parse_size(s, &bytes, err, sizeof err) == 0) tutti_format_bytes(bytes, buf, sizeof buf);
  if (tutti_parse_time(s, &x, err, sizeof err) == 0) {
    tutti_format_time(x, buf, sizeof buf);
    tutti_format_shortest(x, buf, sizeof buf);
  }
  if (tutti_parse_bandwidth(s, &x, err, sizeof err) == 0)
    tutti_format_bandwidth(x, buf, sizeof buf);
  if (tutti_parse_per_byte(s, &x, err, sizeof err) == 0) tutti_format_shortest(x, buf, sizeof buf);
  for (int steps = 0; steps <= 1; steps++)
    if (tutti_parse_cost(s, steps, &c, err, sizeof err) == 0)
      tutti_format_cost(&c, steps, buf, sizeof buf);

  free(s);
  return 0;
}
