/*
 * test_unit_model.c -- cost models (model.c): tutti_cost_eval, every preset's
 * fields against runtime/MODEL.md's table, --model spec parsing with every error
 * path, cost expressions, the pair builder's fault index, and the
 * describe/JSON writers whose field names scripts depend on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/model.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static void cost_is(const tutti_cost_t *c, double floor_, double a, double b, const char *what) {
  cr_assert(ieee_ulp_eq(dbl, c->floor, floor_, 0), "%s.floor = %g, want %g", what, c->floor,
            floor_);
  cr_assert(ieee_ulp_eq(dbl, c->a, a, 0), "%s.a = %g, want %g", what, c->a, a);
  cr_assert(ieee_ulp_eq(dbl, c->b, b, 0), "%s.b = %g, want %g", what, c->b, b);
}

/* ------------------------------------------------------------ evaluation */

Test(cost, eval_linear_and_floor) {
  tutti_cost_t c = {.floor = 0, .a = 1e-6, .b = 1e-9};
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&c, 0), 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&c, 1000), 2e-6, 1));
  tutti_cost_t f = {.floor = 5, .a = 1, .b = 0.5}; /* max(5, 1 + m/2) */
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&f, 0), 5.0, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&f, 8), 5.0, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&f, 10), 6.0, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&f, 100), 51.0, 0));
  tutti_cost_t z = {.floor = 0, .a = 0, .b = 0};
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&z, 1e6), 0.0, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(NULL, 3), 0.0, 0));
}

/* --------------------------------------------------------------- presets */

Test(preset, none) {
  tutti_model_t m;
  memset(&m, 0xff, sizeof m);
  cr_assert(eq(int, tutti_model_none(&m), 0));
  cr_assert(eq(int, m.preset, TUTTI_MODEL_NONE));
  const tutti_cost_t *all[] = {&m.send_cpu, &m.send_port, &m.latency, &m.recv_port, &m.recv_cpu};
  for (int i = 0; i < 5; i++) cost_is(all[i], 0, 0, 0, "none cost");
  cr_assert(ieee_ulp_eq(dbl, m.gamma, 0.0, 0));
  cr_assert(eq(sz, m.eager_limit, 65536));
  cr_assert(eq(ptr, (void *)m.topo, NULL));
}

Test(preset, hockney_table_row) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  cr_assert(eq(int, m.preset, TUTTI_MODEL_HOCKNEY));
  cr_assert(ieee_ulp_eq(dbl, m.params[0], 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, m.params[1], 1e-9, 0));
  cost_is(&m.send_cpu, 0, 1e-6, 1e-9, "O_s");
  cost_is(&m.send_port, 0, 1e-6, 1e-9, "S");
  cost_is(&m.latency, 0, 1e-6, 1e-9, "L");
  cost_is(&m.recv_port, 0, 1e-6, 1e-9, "R");
  cost_is(&m.recv_cpu, 0, 0, 0, "O_r");
  cr_assert(eq(sz, m.eager_limit, 0)); /* all rendezvous */
  cr_assert(ieee_ulp_eq(dbl, m.gamma, 0.0, 0));
  /* runtime/MODEL.md: m = 1000 B costs alpha + beta*m = 2 us */
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.latency, 1000), 2e-6, 1));
}

Test(preset, postal_table_row) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_postal(&m, 2), 0));
  cr_assert(eq(int, m.preset, TUTTI_MODEL_POSTAL));
  cr_assert(ieee_ulp_eq(dbl, m.params[0], 2.0, 0));
  cost_is(&m.send_cpu, 0, 1, 0, "O_s");
  cost_is(&m.send_port, 0, 1, 0, "S");
  cost_is(&m.latency, 0, 2, 0, "L");
  cost_is(&m.recv_port, 0, 1, 0, "R");
  cost_is(&m.recv_cpu, 0, 0, 0, "O_r");
  cr_assert(eq(sz, m.eager_limit, TUTTI_EAGER_ALL));
  cr_assert(eq(int, tutti_model_steps(&m), 1));
  cr_assert(eq(str, (char *)tutti_model_time_unit(&m), "steps"));
}

Test(preset, logp_table_row) {
  const double L = 5e-6, o = 1e-6, g = 2e-6;
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_logp(&m, L, o, g), 0));
  cr_assert(eq(int, m.preset, TUTTI_MODEL_LOGP));
  cost_is(&m.send_cpu, 0, o, 0, "O_s = o");
  cost_is(&m.send_port, g, o, 0, "S = max(g, o)");
  cost_is(&m.latency, 0, o + L, 0, "L = o + L");
  cost_is(&m.recv_port, g, 0, 0, "R = g");
  cost_is(&m.recv_cpu, 0, o, 0, "O_r = o");
  cr_assert(eq(sz, m.eager_limit, TUTTI_EAGER_ALL));
  for (double bytes = 0; bytes <= 1e6; bytes += 250000) {
    cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.send_port, bytes), fmax(g, o), 0));
    cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.recv_port, bytes), g, 0));
  }
  /* o > g: S = o */
  cr_assert(eq(int, tutti_model_logp(&m, L, 3e-6, g), 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.send_port, 100), 3e-6, 0));
}

Test(preset, loggp_table_row) {
  const double L = 5e-6, o = 1e-6, g = 2e-6, G = 1e-9;
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_loggp(&m, L, o, g, G), 0));
  cr_assert(eq(int, m.preset, TUTTI_MODEL_LOGGP));
  cr_assert(ieee_ulp_eq(dbl, m.params[3], G, 0));
  cost_is(&m.send_cpu, 0, o, 0, "O_s = o");
  cost_is(&m.send_port, g, o, G, "S = max(g, o + Gm)");
  cost_is(&m.latency, 0, o + L, G, "L = o + Gm + L");
  cost_is(&m.recv_port, g, 0, G, "R = max(g, Gm)");
  cost_is(&m.recv_cpu, 0, o, 0, "O_r = o");
  cr_assert(eq(sz, m.eager_limit, TUTTI_EAGER_ALL));
  /* small m: the gap dominates; large m: the per-byte term */
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.send_port, 10), g, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.send_port, 1e5), o + G * 1e5, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.recv_port, 1000), g, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&m.recv_port, 1e4), G * 1e4, 0));
}

Test(preset, logp_is_loggp_with_G_zero) {
  tutti_model_t a, b;
  cr_assert(eq(int, tutti_model_logp(&a, 5e-6, 1e-6, 2e-6), 0));
  cr_assert(eq(int, tutti_model_loggp(&b, 5e-6, 1e-6, 2e-6, 0), 0));
  b.preset = TUTTI_MODEL_LOGP;
  cr_assert(eq(int, memcmp(&a, &b, sizeof a), 0));
}

Test(preset, invalid_parameters) {
  tutti_model_t m;
  memset(&m, 0, sizeof m);
  m.preset = 42;
  cr_assert(eq(int, tutti_model_none(NULL), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_hockney(NULL, 1, 1), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_hockney(&m, -1e-6, 1e-9), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, NAN), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_hockney(&m, INFINITY, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_postal(&m, 0.5), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_postal(&m, -2), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_logp(&m, 1, -1, 1), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_loggp(&m, 1, 1, 1, -1), TUTTI_EINVAL));
  /* issue 19: beyond units.h's ranges, a cost could overflow in a run */
  cr_assert(eq(int, tutti_model_hockney(&m, 1e308, 1e-9), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 2 * TUTTI_PER_BYTE_MAX), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_postal(&m, 2 * TUTTI_TIME_MAX), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_loggp(&m, 1, 1, 1e7, 0), TUTTI_EINVAL));
  cr_assert(eq(int, m.preset, 42), "a failed constructor changed the model");
  cr_assert(eq(int, tutti_model_loggp(&m, TUTTI_TIME_MAX, 0, 0, TUTTI_PER_BYTE_MAX), 0), "edges");
}

Test(preset, names) {
  cr_assert(eq(str, (char *)tutti_model_preset_name(TUTTI_MODEL_NONE), "none"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(TUTTI_MODEL_HOCKNEY), "hockney"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(TUTTI_MODEL_POSTAL), "postal"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(TUTTI_MODEL_LOGP), "logp"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(TUTTI_MODEL_LOGGP), "loggp"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(TUTTI_MODEL_CUSTOM), "custom"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(99), "unknown"));
  cr_assert(eq(str, (char *)tutti_model_preset_name(-1), "unknown"));
  cr_assert(eq(int, tutti_model_steps(NULL), 0));
  cr_assert(eq(str, (char *)tutti_model_time_unit(NULL), "s"));
}

/* ------------------------------------------------------------ spec: good */

static tutti_model_t parse_ok(const char *spec) {
  tutti_model_t m;
  char err[1024] = "";
  int rc = tutti_model_parse(spec, &m, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", spec, err);
  return m;
}

static int same_model(const tutti_model_t *a, const tutti_model_t *b) {
  return memcmp(a, b, sizeof *a) == 0;
}

Test(spec, each_preset_equals_its_constructor) {
  tutti_model_t want;
  tutti_model_t got = parse_ok("hockney:alpha=1us,beta=1ns");
  tutti_model_hockney(&want, 1e-6, 1e-9);
  cr_assert(same_model(&got, &want));
  got = parse_ok("postal:L=2");
  tutti_model_postal(&want, 2);
  cr_assert(same_model(&got, &want));
  got = parse_ok("logp:L=5us,o=1us,g=2us");
  tutti_model_logp(&want, 5e-6, 1e-6, 2e-6);
  cr_assert(same_model(&got, &want));
  got = parse_ok("loggp:L=5us,o=1us,g=2us,G=0.1ns");
  tutti_model_loggp(&want, 5e-6, 1e-6, 2e-6, 1e-10);
  cr_assert(same_model(&got, &want));
  got = parse_ok("none");
  tutti_model_none(&want);
  cr_assert(same_model(&got, &want));
}

Test(spec, order_spaces_and_bandwidth) {
  tutti_model_t want;
  tutti_model_hockney(&want, 1e-6, 1e-9);
  tutti_model_t got = parse_ok("  hockney : beta = 1ns , alpha = 1 us ");
  cr_assert(same_model(&got, &want));
  got = parse_ok("hockney:alpha=1us,bandwidth=1GB/s");
  cr_assert(same_model(&got, &want));
  got = parse_ok("hockney:alpha=1us,bandwidth=8Gbps");
  cr_assert(same_model(&got, &want));
  got = parse_ok("hockney:alpha=1us,beta=1GB/s"); /* a bandwidth is a per-byte cost too */
  cr_assert(same_model(&got, &want));
  got = parse_ok("none:");
  tutti_model_none(&want);
  cr_assert(same_model(&got, &want));
}

Test(spec, overrides_every_field) {
  tutti_model_t m = parse_ok(
      "hockney:alpha=1us,beta=1ns,send_cpu=0.5us+0.1ns*m,send_port=2us,latency=3ns*m,"
      "recv_port=max(1us, 0.5us + 1ns*m),recv_cpu=max(4us, 1ns*m),gamma=0.1ns,eager_limit=64KiB");
  cr_assert(eq(int, m.preset, TUTTI_MODEL_HOCKNEY)); /* overrides keep the preset */
  cr_assert(ieee_ulp_eq(dbl, m.params[0], 1e-6, 0));
  cost_is(&m.send_cpu, 0, 5e-7, 1e-10, "send_cpu");
  cost_is(&m.send_port, 0, 2e-6, 0, "send_port");
  cost_is(&m.latency, 0, 0, 3e-9, "latency");
  cost_is(&m.recv_port, 1e-6, 5e-7, 1e-9, "recv_port");
  cost_is(&m.recv_cpu, 4e-6, 0, 1e-9, "recv_cpu");
  cr_assert(ieee_ulp_eq(dbl, m.gamma, 1e-10, 0));
  cr_assert(eq(sz, m.eager_limit, 65536));
}

Test(spec, eager_limit_all_and_zero) {
  tutti_model_t m = parse_ok("hockney:alpha=1us,beta=1ns,eager_limit=all");
  cr_assert(eq(sz, m.eager_limit, TUTTI_EAGER_ALL));
  m = parse_ok("postal:L=3,eager_limit=0");
  cr_assert(eq(sz, m.eager_limit, 0));
  m = parse_ok("none:eager_limit=8KiB");
  cr_assert(eq(sz, m.eager_limit, 8192));
}

Test(spec, postal_overrides_are_steps) {
  tutti_model_t m = parse_ok("postal:L=2,send_cpu=2,recv_cpu=max(1, 0.5 + 0.25*m),gamma=0.5");
  cost_is(&m.send_cpu, 0, 2, 0, "send_cpu");
  cost_is(&m.recv_cpu, 1, 0.5, 0.25, "recv_cpu");
  cr_assert(ieee_ulp_eq(dbl, m.gamma, 0.5, 0));
  cost_is(&m.latency, 0, 2, 0, "latency untouched");
}

Test(spec, custom_preset) {
  tutti_model_t m = parse_ok("custom:latency=1us+1ns*m,send_port=1us");
  cr_assert(eq(int, m.preset, TUTTI_MODEL_CUSTOM));
  cost_is(&m.latency, 0, 1e-6, 1e-9, "latency");
  cost_is(&m.send_port, 0, 1e-6, 0, "send_port");
  cost_is(&m.send_cpu, 0, 0, 0, "send_cpu");
  cr_assert(eq(sz, m.eager_limit, TUTTI_EAGER_ALL));
}

/* ----------------------------------------------------------- spec: errors */

static void spec_fails(const char *spec, const char *sub1, const char *sub2) {
  tutti_model_t m;
  memset(&m, 0x5a, sizeof m);
  tutti_model_t before = m;
  char err[1024] = "";
  int rc = tutti_model_parse(spec, &m, err, sizeof err);
  cr_assert(eq(int, rc, TUTTI_EPARSE), "'%s' should fail (rc %d)", spec, rc);
  cr_assert(same_model(&m, &before), "'%s' changed the output", spec);
  cr_assert(eq(ptr, strchr(err, '\n'), NULL), "one line: '%s'", err);
  HAS(err, sub1);
  if (sub2) HAS(err, sub2);
  HAS(err, "accepted:");
}

Test(spec, missing_parameters_name_the_key) {
  spec_fails("hockney", "key 'alpha': missing", "hockney needs alpha and beta (or bandwidth)");
  spec_fails("hockney:alpha=1us", "key 'beta': missing", NULL);
  spec_fails("hockney:beta=1ns", "key 'alpha': missing", NULL);
  spec_fails("postal", "key 'L': missing", "postal needs L");
  spec_fails("logp:L=5us,o=1us", "key 'g': missing", "logp needs L, o and g");
  spec_fails("loggp:L=5us,o=1us,g=2us", "key 'G': missing", "loggp needs L, o, g and G");
}

Test(spec, unknown_keys_and_presets) {
  spec_fails("hockney:alpha=1us,beta=1ns,bogus=3", "key 'bogus': unknown for preset hockney",
             "alpha, beta, bandwidth");
  spec_fails("hockney:alpha=1us,beta=1ns,L=2", "key 'L': unknown for preset hockney", NULL);
  spec_fails("logp:L=5us,o=1us,g=2us,G=1ns", "key 'G': unknown for preset logp", NULL);
  spec_fails("postal:L=2,g=1", "key 'g': unknown for preset postal", NULL);
  spec_fails("foo", "preset 'foo': unknown", "hockney:alpha=T");
  spec_fails("Hockney:alpha=1us,beta=1ns", "preset 'Hockney': unknown", NULL);
  spec_fails("", "empty model spec", NULL);
  spec_fails("   ", "empty model spec", NULL);
}

Test(spec, bad_values_name_the_key) {
  spec_fails("hockney:alpha=1xs,beta=1ns", "key 'alpha': '1xs' is not a time", "ms, us, ns");
  spec_fails("hockney:alpha=-1us,beta=1ns", "key 'alpha': '-1us' is negative", NULL);
  spec_fails("hockney:alpha=1us,beta=fast", "key 'beta':", "per byte");
  spec_fails("hockney:alpha=1us,bandwidth=0GB/s", "key 'bandwidth':", "> 0");
  spec_fails("hockney:alpha=1us,bandwidth=1ns", "key 'bandwidth':", "Gbps");
  spec_fails("postal:L=2us", "key 'L': '2us' is not a number of steps", NULL);
  spec_fails("postal:L=0.5", "key 'L': '0.5' is less than 1 step", NULL);
  spec_fails("postal:L=2,send_cpu=1us", "key 'send_cpu': '1us' is not a plain number", "steps");
  spec_fails("postal:L=2,gamma=1ns", "key 'gamma':", "steps");
  spec_fails("hockney:alpha=1us,beta=1ns,eager_limit=lots", "key 'eager_limit':", "'all'");
  spec_fails("hockney:alpha=1us,beta=1ns,eager_limit=-1", "key 'eager_limit':", "negative");
  spec_fails("hockney:alpha=1us,beta=1ns,gamma=-1ns", "key 'gamma':", "negative");
  spec_fails("hockney:alpha=1us,beta=1ns,alpha_=1", "key 'alpha_': unknown", NULL);
  spec_fails("hockney:alpha=,beta=1ns", "key 'alpha': empty value", NULL);
}

Test(spec, bad_cost_expressions_name_the_key) {
  spec_fails("hockney:alpha=1us,beta=1ns,send_cpu=1us+", "key 'send_cpu':", "empty term");
  spec_fails("hockney:alpha=1us,beta=1ns,send_cpu=1us+2us", "key 'send_cpu':", "two constant");
  spec_fails("hockney:alpha=1us,beta=1ns,send_cpu=1ns*m+2ns*m", "key 'send_cpu':", "two per-byte");
  spec_fails("hockney:alpha=1us,beta=1ns,latency=max(1us)", "key 'latency':", "max(F, A + B*m)");
  spec_fails("hockney:alpha=1us,beta=1ns,latency=max(1us,2us,3us)", "key 'latency':", "two arg");
  spec_fails("hockney:alpha=1us,beta=1ns,latency=min(1us,2us)", "key 'latency':", "not a cost");
  spec_fails("hockney:alpha=1us,beta=1ns,recv_cpu=*m", "key 'recv_cpu':", "without a factor");
  spec_fails("hockney:alpha=1us,beta=1ns,recv_port=1us*x", "key 'recv_port':", "unknown unit");
  spec_fails("hockney:alpha=1us,beta=1ns,send_port=max(, 1us)", "key 'send_port':", "empty floor");
}

Test(spec, structure_errors) {
  spec_fails("hockney:alpha=1us,beta=1ns,alpha=2us", "key 'alpha': given twice", NULL);
  spec_fails("hockney:alpha=1us,beta=1ns,bandwidth=1GB/s", "key 'bandwidth': conflicts with 'beta'",
             NULL);
  spec_fails("hockney:alpha=1us,bandwidth=1GB/s,beta=1ns", "key 'beta': conflicts with 'bandwidth'",
             NULL);
  spec_fails("hockney:alpha=1us,beta", "key 'beta': no value", "key=value");
  spec_fails("hockney:alpha=1us,,beta=1ns", "empty item", NULL);
  spec_fails("hockney:alpha=1us,beta=1ns,", "empty item", NULL);
  spec_fails("hockney:=1us", "no key", NULL);
  spec_fails("hockney:preset=postal", "key 'preset'", "the preset before ':'");
}

Test(spec, null_arguments) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_parse(NULL, &m, NULL, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_parse("hockney:alpha=1us,beta=1ns", NULL, NULL, 0), 0));
  cr_assert(eq(int, tutti_model_parse("bogus", &m, NULL, 0), TUTTI_EPARSE));
  char tiny[8];
  cr_assert(eq(int, tutti_model_parse("bogus", &m, tiny, sizeof tiny), TUTTI_EPARSE));
  cr_assert(eq(sz, strlen(tiny), 7)); /* truncated, terminated */
}

/* ------------------------------------------------------- cost expressions */

static tutti_cost_t cost_ok(const char *s, int steps) {
  tutti_cost_t c = {.floor = -1, .a = -1, .b = -1};
  char err[512] = "";
  cr_assert(eq(int, tutti_parse_cost(s, steps, &c, err, sizeof err), 0), "'%s': %s", s, err);
  return c;
}

Test(cost_expr, forms) {
  tutti_cost_t c = cost_ok("2us", 0);
  cost_is(&c, 0, 2e-6, 0, "A");
  c = cost_ok("1us + 1ns*m", 0);
  cost_is(&c, 0, 1e-6, 1e-9, "A + B*m");
  c = cost_ok("1us+1ns/B*m", 0);
  cost_is(&c, 0, 1e-6, 1e-9, "A + B/B*m");
  c = cost_ok("3ns * m", 0);
  cost_is(&c, 0, 0, 3e-9, "B*m");
  c = cost_ok("1ns*m + 1us", 0);
  cost_is(&c, 0, 1e-6, 1e-9, "B*m + A");
  c = cost_ok("max(2us, 1us + 1ns*m)", 0);
  cost_is(&c, 2e-6, 1e-6, 1e-9, "max");
  c = cost_ok(" max ( 2us , 1ns*m ) ", 0);
  cost_is(&c, 2e-6, 0, 1e-9, "max, B*m");
  c = cost_ok("max(2us, 1us)", 0);
  cost_is(&c, 2e-6, 1e-6, 0, "max, A");
  c = cost_ok("1e+3ns + 1e-9*m", 0); /* '+' of an exponent does not split */
  cost_is(&c, 0, 1e-6, 1e-9, "exponents");
  c = cost_ok("1us + 1GB/s*m", 0);
  cost_is(&c, 0, 1e-6, 1e-9, "bandwidth factor");
  c = cost_ok("max(1, 0.5 + 0.25*m)", 1);
  cost_is(&c, 1, 0.5, 0.25, "steps");
}

Test(cost_expr, errors) {
  tutti_cost_t c = {.floor = 7, .a = 7, .b = 7};
  char err[512];
  cr_assert(eq(int, tutti_parse_cost("", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "empty");
  cr_assert(eq(int, tutti_parse_cost("1us + ", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "empty term");
  cr_assert(eq(int, tutti_parse_cost("max 1us", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "expected max(F, A + B*m)");
  cr_assert(eq(int, tutti_parse_cost("(1us)", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "not a cost");
  cr_assert(eq(int, tutti_parse_cost("1us", 1, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "plain number");
  cr_assert(eq(int, tutti_parse_cost("m", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "'m' is not a time");
  cr_assert(eq(int, tutti_parse_cost(NULL, 0, &c, err, sizeof err), TUTTI_EINVAL));
  cost_is(&c, 7, 7, 7, "unchanged");
}

Test(cost_expr, format) {
  char b[128];
  tutti_cost_t c = {.floor = 2e-6, .a = 1e-6, .b = 1e-9};
  cr_assert(eq(str, tutti_format_cost(&c, 0, b, sizeof b), "max(2 us, 1 us + 1 ns*m)"));
  tutti_cost_t d = {.floor = 0, .a = 1e-6, .b = 0};
  cr_assert(eq(str, tutti_format_cost(&d, 0, b, sizeof b), "1 us"));
  tutti_cost_t e = {.floor = 0, .a = 0, .b = 1e-9};
  cr_assert(eq(str, tutti_format_cost(&e, 0, b, sizeof b), "1 ns*m"));
  tutti_cost_t f = {.floor = 1, .a = 0.5, .b = 0.25};
  cr_assert(eq(str, tutti_format_cost(&f, 1, b, sizeof b), "max(1, 0.5 + 0.25*m)"));
  /* what it prints, it reads back */
  tutti_cost_t back = cost_ok(tutti_format_cost(&c, 0, b, sizeof b), 0);
  cost_is(&back, 2e-6, 1e-6, 1e-9, "round trip");
}

/* -------------------------------------------------------------- pieces */

Test(cost_pieces, parse_eval_format) {
  tutti_cost_t c =
      cost_ok("1us + 1ns*m | from 4KiB: 3us + 0.5ns*m | from 1MiB: max(1ms, 0.25ns*m)", 0);
  cost_is(&c, 0, 1e-6, 1e-9, "first piece");
  cr_assert(eq(sz, c.pieces, 2));
  cr_assert(eq(sz, c.piece[0].from, 4096));
  cr_assert(eq(sz, c.piece[1].from, 1 << 20));
  cr_assert(ieee_ulp_eq(dbl, c.piece[1].floor, 1e-3, 0));
  /* the piece with the largest from <= m */
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&c, 4095), 1e-6 + 4095e-9, 1));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&c, 4096), 3e-6 + 2048e-9, 1));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&c, 1 << 20), 1e-3, 0)); /* its floor */
  tutti_cost_t at = tutti_cost_at(&c, 8192);
  cost_is(&at, 0, 3e-6, 0.5e-9, "cost_at");
  cr_assert(eq(sz, at.pieces, 0));
  char b[512];
  cr_assert(eq(str, tutti_format_cost(&c, 0, b, sizeof b),
               "1 us + 1 ns*m | from 4 KiB: 3 us + 500 ps*m | from 1 MiB: max(1 ms, 250 ps*m)"));
  tutti_cost_t back = cost_ok(b, 0);
  cr_assert(eq(sz, back.pieces, 2));
  cr_assert(eq(int, memcmp(&back, &c, sizeof c), 0), "'%s' reads back to another cost", b);
  /* steps (postal): plain numbers, sizes still bytes */
  tutti_cost_t s = cost_ok("1 | from 100: 2", 1);
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&s, 100), 2.0, 0));
}

Test(cost_pieces, errors) {
  tutti_cost_t c = {.floor = 7, .a = 7, .b = 7};
  char err[512];
  cr_assert(eq(int, tutti_parse_cost("1us | 3us", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "expected 'from SIZE: COST'");
  cr_assert(eq(int, tutti_parse_cost("1us | from 0: 3us", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "strictly ascending, above 0");
  cr_assert(eq(int,
               tutti_parse_cost("1us | from 8KiB: 3us | from 4KiB: 2us", 0, &c, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "a piece from 4096 B after one from 8192 B");
  cr_assert(eq(int, tutti_parse_cost("1us | from 4KiB:", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "empty piece");
  cr_assert(
      eq(int, tutti_parse_cost("1us | from lots: 2us", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "from lots");
  cr_assert(eq(int, tutti_parse_cost("1us |", 0, &c, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(int,
               tutti_parse_cost("1us | from 1: 1us | from 2: 1us | from 3: 1us | from 4: 1us | "
                                "from 5: 1us",
                                0, &c, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "more than 4 pieces");
  cost_is(&c, 7, 7, 7, "unchanged");
}

Test(cost_pieces, a_negative_constant_after_the_first) {
  tutti_cost_t c = cost_ok("1us + 1ns*m | from 8MiB: -1ms + 0.25ns*m", 0);
  cr_assert(ieee_ulp_eq(dbl, c.piece[0].a, -1e-3, 0));
  cr_assert(ieee_ulp_eq(dbl, tutti_cost_eval(&c, 16 << 20), -1e-3 + 0.25e-9 * (16 << 20), 4));
  char b[256];
  tutti_cost_t back = cost_ok(tutti_format_cost(&c, 0, b, sizeof b), 0);
  cr_assert(eq(int, memcmp(&back, &c, sizeof c), 0), "'%s' reads back to another cost", b);
  char err[512];
  cr_assert(eq(int, tutti_parse_cost("-1us + 1ns*m", 0, &c, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "negative");
  cr_assert(eq(int, tutti_parse_cost("1us | from 1KiB: -1ms + 0.25ns*m", 0, &c, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "the piece from 1024 B is negative there");
  cr_assert(eq(int, tutti_parse_cost("1us | from 1KiB: 1us + -1ns*m", 0, &c, err, sizeof err),
               TUTTI_EPARSE));
  /* a model built by hand: the same rule */
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.latency.pieces = 1;
  m.latency.piece[0] = (tutti_cost_piece_t){.from = 1024, .floor = 0, .a = -1e-3, .b = 0.25e-9};
  tutti_world_t *w = NULL;
  tutti_config_t cfg = tutti_config_default(2);
  cfg.model = &m;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), TUTTI_EINVAL));
  m.latency.piece[0].from = 8 << 20;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
  tutti_world_destroy(w);
}

Test(cost_pieces, json_and_config_check) {
  tutti_model_t m;
  char err[512] = "";
  cr_assert(eq(int,
               tutti_model_parse("hockney:alpha=1us,beta=1ns,latency=1us | from 4KiB: 2us", &m, err,
                                 sizeof err),
               0),
            "%s", err);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(eq(int, tutti_model_json(&m, f), 0));
  fclose(f);
  HAS(buf, "\"latency\":{\"floor\":0,\"a\":1e-06,\"b\":0,\"pieces\":[{\"from\":4096,\"floor\":0,"
           "\"a\":2e-06,\"b\":0}]}");
  cr_assert(
      eq(ptr, strstr(buf, "\"send_cpu\":{\"floor\":0,\"a\":1e-06,\"b\":1e-09,\"pieces\""), NULL));
  free(buf);
  /* a model built by hand: pieces out of order or out of range are refused */
  tutti_world_t *w = NULL;
  tutti_config_t cfg = tutti_config_default(2);
  cfg.model = &m;
  m.latency.piece[0].from = 0;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), TUTTI_EINVAL));
  m.latency.piece[0].from = 4096;
  m.latency.piece[0].b = -1;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), TUTTI_EINVAL));
  m.latency.piece[0].b = 0;
  m.latency.pieces = TUTTI_COST_PIECES + 1;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), TUTTI_EINVAL));
  m.latency.pieces = 1;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
  tutti_world_destroy(w);
}

/* --------------------------------------------------------- pair builder */

Test(pairs, fault_index) {
  tutti_model_t m;
  char err[512];
  int bad = 99;
  const char *k1[] = {"alpha", "beta", "preset"};
  const char *v1[] = {"1us", "1ns", "hockney"};
  cr_assert(eq(int, tutti_model_from_pairs(k1, v1, 3, &m, &bad, err, sizeof err), 0), "%s", err);
  cr_assert(ieee_ulp_eq(dbl, m.params[0], 1e-6, 0)); /* preset may come last */

  const char *k2[] = {"alpha", "beta"};
  cr_assert(eq(int, tutti_model_from_pairs(k2, v1, 2, &m, &bad, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(int, bad, -1));
  HAS(err, "key 'preset': missing");
  HAS(err, "hockney, postal");

  const char *k3[] = {"preset", "alpha"};
  const char *v3[] = {"hockney", "1us"};
  cr_assert(eq(int, tutti_model_from_pairs(k3, v3, 2, &m, &bad, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(int, bad, 0)); /* a missing parameter is blamed on the preset */
  HAS(err, "key 'beta': missing");

  const char *k4[] = {"preset", "alpha", "beta", "zeta"};
  const char *v4[] = {"hockney", "1us", "1ns", "1"};
  cr_assert(eq(int, tutti_model_from_pairs(k4, v4, 4, &m, &bad, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(int, bad, 3));

  const char *k5[] = {"preset", "alpha", "beta", "preset"};
  const char *v5[] = {"hockney", "1us", "1ns", "postal"};
  cr_assert(eq(int, tutti_model_from_pairs(k5, v5, 4, &m, &bad, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(int, bad, 3));
  HAS(err, "key 'preset': given twice");

  const char *k6[] = {"preset"};
  const char *v6[] = {"fancy"};
  cr_assert(eq(int, tutti_model_from_pairs(k6, v6, 1, &m, &bad, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(int, bad, 0));
  HAS(err, "key 'preset': 'fancy' is not a preset");

  cr_assert(
      eq(int, tutti_model_from_pairs(NULL, NULL, 1, &m, &bad, err, sizeof err), TUTTI_EINVAL));
}

/* ------------------------------------------------------ describe and JSON */

static char *json_of(const tutti_model_t *m) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert(ne(ptr, f, NULL));
  cr_assert(eq(int, tutti_model_json(m, f), 0));
  fclose(f);
  return text;
}

Test(describe, one_line_per_preset) {
  char b[512];
  tutti_model_t m = parse_ok("hockney:alpha=1us,beta=1ns");
  cr_assert(eq(int, tutti_model_describe(&m, b, sizeof b), 0));
  cr_assert(eq(str, b, "hockney alpha=1 us beta=1 ns/B (1 GB/s), eager_limit 0 (all rendezvous)"));
  m = parse_ok("postal:L=2");
  tutti_model_describe(&m, b, sizeof b);
  cr_assert(eq(str, b, "postal L=2 steps, all eager"));
  m = parse_ok("postal:L=2,send_cpu=2");
  tutti_model_describe(&m, b, sizeof b);
  cr_assert(eq(str, b, "postal L=2 steps, all eager; send_cpu=2"));
  m = parse_ok("logp:L=5us,o=1us,g=2us");
  tutti_model_describe(&m, b, sizeof b);
  cr_assert(eq(str, b, "logp L=5 us o=1 us g=2 us, all eager"));
  m = parse_ok("none");
  tutti_model_describe(&m, b, sizeof b);
  cr_assert(eq(str, b, "none (native speed, wall time only), eager_limit 64 KiB"));
  m = parse_ok("hockney:alpha=1us,beta=1ns,eager_limit=16KiB,recv_cpu=0.5us,gamma=0.1ns");
  tutti_model_describe(&m, b, sizeof b);
  cr_assert(eq(str, b,
               "hockney alpha=1 us beta=1 ns/B (1 GB/s), eager_limit 16 KiB; "
               "recv_cpu=500 ns, gamma=100 ps/B"));
  cr_assert(eq(int, tutti_model_describe(NULL, b, sizeof b), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_describe(&m, b, 0), TUTTI_EINVAL));
  char tiny[10];
  cr_assert(eq(int, tutti_model_describe(&m, tiny, sizeof tiny), 0));
  cr_assert(eq(str, tiny, "hockney a"));
}

Test(json, hockney_fields_are_stable) {
  tutti_model_t m = parse_ok("hockney:alpha=1us,beta=1ns");
  char *j = json_of(&m);
  cr_assert(eq(str, j,
               "{\"preset\":\"hockney\",\"time_unit\":\"s\",\"alpha\":1e-06,\"beta\":1e-09,"
               "\"send_cpu\":{\"floor\":0,\"a\":1e-06,\"b\":1e-09},"
               "\"send_port\":{\"floor\":0,\"a\":1e-06,\"b\":1e-09},"
               "\"latency\":{\"floor\":0,\"a\":1e-06,\"b\":1e-09},"
               "\"recv_port\":{\"floor\":0,\"a\":1e-06,\"b\":1e-09},"
               "\"recv_cpu\":{\"floor\":0,\"a\":0,\"b\":0},"
               "\"gamma\":0,\"eager_limit\":0,\"header\":0,\"rendezvous\":\"ready\","
               "\"detached_limit\":0}"));
  free(j);
}

Test(json, postal_loggp_none) {
  tutti_model_t m = parse_ok("postal:L=3");
  char *j = json_of(&m);
  HAS(j, "\"preset\":\"postal\",\"time_unit\":\"steps\",\"L\":3,");
  HAS(j, "\"latency\":{\"floor\":0,\"a\":3,\"b\":0}");
  HAS(j, "\"eager_limit\":null,\"header\":0,");
  free(j);
  m = parse_ok("loggp:L=5us,o=1us,g=2us,G=0.1ns");
  j = json_of(&m);
  HAS(j, "\"L\":5e-06,\"o\":1e-06,\"g\":2e-06,\"G\":1e-10,");
  HAS(j, "\"send_port\":{\"floor\":2e-06,\"a\":1e-06,\"b\":1e-10}");
  free(j);
  m = parse_ok("none");
  j = json_of(&m);
  HAS(j, "{\"preset\":\"none\",\"time_unit\":\"s\",\"send_cpu\"");
  HAS(j, "\"eager_limit\":65536,\"header\":0,\"rendezvous\":\"ready\",\"detached_limit\":0}");
  free(j);
}

Test(json, numbers_read_back_exactly) {
  tutti_model_t m;
  tutti_model_hockney(&m, 1.0 / 3.0, 0.1 + 0.2);
  char *j = json_of(&m);
  const char *p = strstr(j, "\"alpha\":");
  cr_assert(ne(ptr, (void *)p, NULL));
  cr_assert(ieee_ulp_eq(dbl, strtod(p + 8, NULL), 1.0 / 3.0, 0));
  p = strstr(j, "\"beta\":");
  cr_assert(ieee_ulp_eq(dbl, strtod(p + 7, NULL), 0.1 + 0.2, 0));
  free(j);
  cr_assert(eq(int, tutti_model_json(NULL, stdout), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_json(&m, NULL), TUTTI_EINVAL));
}

Test(format, model_time) {
  char b[64];
  tutti_model_t m = parse_ok("postal:L=2");
  cr_assert(eq(str, tutti_format_model_time(&m, 5, b, sizeof b), "5"));
  m = parse_ok("hockney:alpha=1us,beta=1ns");
  cr_assert(eq(str, tutti_format_model_time(&m, 6e-6, b, sizeof b), "6 us"));
  cr_assert(eq(str, tutti_format_model_time(NULL, 6e-6, b, sizeof b), "6 us"));
}

/* Issue 19: --model hockney:alpha=1e308s parsed, ran, then failed in the
 * replay ("not finite", exit 3); every value is now refused when read, at
 * its key, so the CLI says so with exit 2. */
Test(spec, values_out_of_range_name_the_key) {
  spec_fails("hockney:alpha=1e308s,beta=1ns", "key 'alpha': '1e308s' is out of range", "1e6 s");
  spec_fails("hockney:alpha=1us,beta=1e7s", "key 'beta':", "out of range");
  spec_fails("hockney:alpha=1us,bandwidth=1e-9B/s", "key 'bandwidth':", "out of range");
  spec_fails("postal:L=1e300", "key 'L':", "out of range");
  spec_fails("logp:L=1us,o=1us,g=2e6s", "key 'g':", "out of range");
  spec_fails("hockney:alpha=1us,beta=1ns,send_cpu=1e308s", "key 'send_cpu':", "out of range");
  spec_fails("hockney:alpha=1us,beta=1ns,latency=max(1e9s, 1us)", "key 'latency':", "out of range");
  spec_fails("hockney:alpha=1us,beta=1ns,recv_port=1us + 1e300*m",
             "key 'recv_port':", "out of range");
  spec_fails("postal:L=2,send_cpu=1 + 1e7*m", "key 'send_cpu':", "out of range");
  spec_fails("hockney:alpha=1us,beta=1ns,gamma=1e300", "key 'gamma':", "out of range");
  /* the edges parse, and their worst cost is finite */
  tutti_model_t m = parse_ok("hockney:alpha=1e6s,beta=1e6s/B,send_cpu=max(1e6s, 1e6s + 1e6*m)");
  cr_assert(isfinite(tutti_cost_eval(&m.send_cpu, (double)SIZE_MAX)));
  cr_assert(isfinite(tutti_cost_eval(&m.latency, (double)SIZE_MAX)));
}
