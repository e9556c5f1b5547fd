/*
 * test_unit_protocol.c -- the model's protocol fields (runtime/MODEL.md
 * "Cost functions"): header, rendezvous and detached_limit as --model
 * specs and profiles give them, as the model's description and JSON show
 * them, and the bad input each refuses with a message naming the key and
 * what is accepted. Their effect on modeled times: test_e2e_protocol.c.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/model.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static tutti_model_t parse_ok(const char *spec) {
  tutti_model_t m;
  char err[512];
  cr_assert(eq(int, tutti_model_parse(spec, &m, err, sizeof err), 0), "%s: %s", spec, err);
  return m;
}

static void spec_fails(const char *spec, const char *sub1, const char *sub2) {
  tutti_model_t m;
  char err[1024] = "";
  cr_assert(eq(int, tutti_model_parse(spec, &m, err, sizeof err), TUTTI_EPARSE), "%s", spec);
  cr_assert(eq(ptr, strchr(err, '\n'), NULL), "one line: '%s'", err);
  HAS(err, sub1);
  if (sub2) HAS(err, sub2);
  HAS(err, "accepted:");
}

Test(protocol_spec, defaults_leave_today_s_rules) {
  const char *specs[] = {"none", "hockney:alpha=1us,beta=1ns", "postal:L=2",
                         "logp:L=5us,o=1us,g=2us", "custom"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    tutti_model_t m = parse_ok(specs[i]);
    cr_assert(eq(sz, m.header, 0), "%s", specs[i]);
    cr_assert(eq(int, m.rendezvous, TUTTI_RENDEZVOUS_READY), "%s", specs[i]);
    cr_assert(eq(sz, m.detached_limit, 0), "%s", specs[i]);
  }
}

Test(protocol_spec, fields_parse) {
  tutti_model_t m = parse_ok("loggp:L=10us,o=1us,g=2us,G=8ns,eager_limit=0,header=16B,"
                             "rendezvous=handshake,detached_limit=64KiB");
  cr_assert(eq(sz, m.header, 16));
  cr_assert(eq(int, m.rendezvous, TUTTI_RENDEZVOUS_HANDSHAKE));
  cr_assert(eq(sz, m.detached_limit, 65536));
  m = parse_ok("hockney:alpha=1us,beta=1ns,header=0,rendezvous=ready,detached_limit=1B");
  cr_assert(eq(sz, m.header, 0));
  cr_assert(eq(int, m.rendezvous, TUTTI_RENDEZVOUS_READY));
  cr_assert(eq(sz, m.detached_limit, 1)); /* above eager_limit 0 */
  m = parse_ok("hockney:alpha=1us,beta=1ns,eager_limit=4KiB,detached_limit=4097B,header=1KiB");
  cr_assert(eq(sz, m.detached_limit, 4097));
  cr_assert(eq(sz, m.header, 1024));
}

Test(protocol_spec, bad_input_names_the_key) {
  spec_fails("hockney:alpha=1us,beta=1ns,header=16", "key 'header': '16' has no unit", "16B");
  spec_fails("hockney:alpha=1us,beta=1ns,header=-16B", "key 'header':", "negative");
  spec_fails("hockney:alpha=1us,beta=1ns,header=lots", "key 'header':", NULL);
  spec_fails("hockney:alpha=1us,beta=1ns,rendezvous=rdma",
             "key 'rendezvous': 'rdma' is not a rendezvous protocol", "ready");
  spec_fails("hockney:alpha=1us,beta=1ns,rendezvous=rdma", "handshake", NULL);
  spec_fails("hockney:alpha=1us,beta=1ns,detached_limit=64", "key 'detached_limit':", "no unit");
  spec_fails("logp:L=5us,o=1us,g=2us,detached_limit=64KiB",
             "key 'detached_limit': 64 KiB with eager_limit all", "every send is eager already");
  spec_fails("hockney:alpha=1us,beta=1ns,eager_limit=64KiB,detached_limit=64KiB",
             "key 'detached_limit': 64 KiB is not above eager_limit 64 KiB",
             "every message under it is eager");
  spec_fails("hockney:alpha=1us,beta=1ns,detached_limit=16KiB,eager_limit=32KiB",
             "key 'detached_limit':", "not above eager_limit 32 KiB");
}

Test(protocol_spec, description_and_json) {
  char b[512];
  tutti_model_t m = parse_ok("hockney:alpha=1us,beta=1ns,header=16B,rendezvous=handshake,"
                             "detached_limit=64KiB");
  cr_assert(eq(int, tutti_model_describe(&m, b, sizeof b), 0));
  cr_assert(eq(str, b,
               "hockney alpha=1 us beta=1 ns/B (1 GB/s), eager_limit 0 (all rendezvous), header "
               "16 B, rendezvous handshake, detached_limit 64 KiB"));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert(ne(ptr, f, NULL));
  cr_assert(eq(int, tutti_model_json(&m, f), 0));
  fclose(f);
  HAS(text,
      "\"eager_limit\":0,\"header\":16,\"rendezvous\":\"handshake\",\"detached_limit\":65536}");
  free(text);
}

Test(protocol_profile, keys_and_errors) {
  tutti_profile_t p;
  char err[512];
  cr_assert(eq(int,
               tutti_profile_parse_string("[model]\npreset = loggp\nL = 10us\no = 0\ng = 0\n"
                                          "G = 8ns\neager_limit = 0\nheader = 16B\n"
                                          "rendezvous = handshake\ndetached_limit = 64KiB\n",
                                          "p.ini", &p, err, sizeof err),
               0),
            "%s", err);
  cr_assert(eq(sz, p.model.header, 16));
  cr_assert(eq(int, p.model.rendezvous, TUTTI_RENDEZVOUS_HANDSHAKE));
  cr_assert(eq(sz, p.model.detached_limit, 65536));
  cr_assert(eq(int,
               tutti_profile_parse_string("[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                                          "header = 16\n",
                                          "p.ini", &p, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "p.ini:5: key 'header': '16' has no unit");
  cr_assert(eq(int,
               tutti_profile_parse_string("[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                                          "eager_limit = all\ndetached_limit = 8KiB\n",
                                          "p.ini", &p, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "p.ini:6: key 'detached_limit':");
  HAS(err, "every send is eager already");
}
