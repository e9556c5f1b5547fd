/*
 * test_unit_json.c -- the tests' own JSON reader (json_reader.h), which the
 * CLI's and the trace's tests trust to tell well-formed JSON: it accepts
 * every kind of value and rejects each malformed document.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "json_reader.h"

Test(json_reader, accepts_and_rejects, .timeout = 10) {
  cr_assert(json_parse("{\"a\":[1,2.5e-3,-0,\"x\\\"y\",true,null,{}],\"b\":{}}").ok);
  cr_assert(json_parse(" [ ] ").ok);
  const char *bad[] = {"{",  "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "01",
                       "1.", "\"\\x\"",    "{}x",   "nan"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert(eq(int, json_parse(bad[i]).ok, 0), "accepted '%s'", bad[i]);
}
