/*
 * test_unit_profile.c -- latency profiles (profile.c, profiles_builtin.c):
 * every built-in parses and holds what its description says; good files
 * under tests/data/profiles/ load with every key; each bad file fails
 * with "FILE:LINE: key 'K': ...; accepted: ..." at the right line; a
 * mapping is accepted exactly when tutti_topo_mapping_parse accepts it;
 * many unknown [model] keys name the first; a UTF-8 BOM is skipped and
 * control bytes in messages are escaped.
 * Data files are found through $TUTTI_SOURCE_DIR (set by ctest), else the
 * current directory.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/model.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static const char *data_path(const char *file) {
  static char buf[4096];
  const char *src = getenv("TUTTI_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/tests/data/profiles/%s", src && *src ? src : ".", file);
  return buf;
}

static void cost_is(const tutti_cost_t *c, double floor_, double a, double b, const char *what) {
  cr_assert(ieee_ulp_eq(dbl, c->floor, floor_, 0), "%s.floor = %g, want %g", what, c->floor,
            floor_);
  cr_assert(ieee_ulp_eq(dbl, c->a, a, 0), "%s.a = %g, want %g", what, c->a, a);
  cr_assert(ieee_ulp_eq(dbl, c->b, b, 0), "%s.b = %g, want %g", what, c->b, b);
}

static tutti_profile_t load_ok(const char *name) {
  tutti_profile_t p;
  char err[1024] = "";
  int rc = tutti_profile_load(name, &p, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", name, err);
  return p;
}

/* ---------------------------------------------------------------- built-ins */

Test(builtin, every_one_parses_and_is_documented) {
  const tutti_profile_info_t *b;
  int n = 0;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++, n++) {
    cr_assert(ne(ptr, (void *)b->name, NULL));
    cr_assert(gt(sz, strlen(b->description), 10), "%s: no description", b->name);
    cr_assert(gt(sz, strlen(b->source), 10), "%s: no source", b->name);
    cr_assert(eq(chr, b->ini[0], ';'), "%s: the INI text should open with its comment", b->name);
    /* the text parses by itself, as a file would */
    tutti_profile_t p;
    char err[1024] = "";
    cr_assert(eq(int, tutti_profile_parse_string(b->ini, b->name, &p, err, sizeof err), 0),
              "%s: %s", b->name, err);
    /* and by name, with the built-in's own name, description and source */
    tutti_profile_t q = load_ok(b->name);
    cr_assert(eq(str, q.name, (char *)b->name));
    cr_assert(eq(str, q.description, (char *)b->description));
    cr_assert(eq(str, q.source, (char *)b->source));
    cr_assert(eq(int, memcmp(&p.model, &q.model, sizeof p.model), 0));
    /* names are unique */
    for (int j = 0; j < i; j++)
      cr_assert(ne(str, (char *)tutti_profile_builtin(j)->name, (char *)b->name));
  }
  cr_assert(eq(int, n, 12));
  cr_assert(eq(ptr, (void *)tutti_profile_builtin(n), NULL));
  cr_assert(eq(ptr, (void *)tutti_profile_builtin(-1), NULL));
}

Test(builtin, teaching_hockney_is_first_and_the_default) {
  cr_assert(eq(str, (char *)tutti_profile_builtin(0)->name, "teaching-hockney"));
  tutti_profile_t p = load_ok("teaching-hockney");
  cr_assert(eq(int, p.model.preset, TUTTI_MODEL_HOCKNEY));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[0], 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[1], 1e-9, 0));
  cost_is(&p.model.latency, 0, 1e-6, 1e-9, "latency");
  cr_assert(eq(sz, p.model.eager_limit, 0));
  cr_assert(eq(str, p.topo_spec, ""));
}

Test(builtin, postal_2_to_8) {
  for (int L = 2; L <= 8; L++) {
    char name[16];
    snprintf(name, sizeof name, "postal-%d", L);
    tutti_profile_t p = load_ok(name);
    cr_assert(eq(int, p.model.preset, TUTTI_MODEL_POSTAL), "%s", name);
    cost_is(&p.model.latency, 0, L, 0, name);
    cost_is(&p.model.send_port, 0, 1, 0, name);
    cr_assert(eq(sz, p.model.eager_limit, TUTTI_EAGER_ALL));
    HAS(p.source, "Bar-Noy");
  }
}

Test(builtin, machine_profiles_hold_their_figures) {
  tutti_profile_t p = load_ok("sp2-hps");
  cr_assert(ieee_ulp_eq(dbl, p.model.params[0], 40e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[1], 1.0 / 35e6, 0));
  HAS(p.source, "Bernaschi");
  p = load_ok("gige");
  cr_assert(ieee_ulp_eq(dbl, p.model.params[0], 50e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[1], 1.0 / 112e6, 0));
  cr_assert(eq(sz, p.model.eager_limit, 65536));
  p = load_ok("infiniband-hdr");
  cr_assert(ieee_ulp_eq(dbl, p.model.params[0], 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[1], 1.0 / 24e9, 0));
  cr_assert(eq(sz, p.model.eager_limit, 16384));
  p = load_ok("shared-memory");
  cr_assert(ieee_ulp_eq(dbl, p.model.params[1], 1.0 / 10e9, 0));
  HAS(p.source, "measured");
}

/* ------------------------------------------------------------- good files */

Test(file, full_profile_every_key) {
  tutti_profile_t p = load_ok(data_path("good-full.ini"));
  cr_assert(eq(str, p.name, "good-full"));
  cr_assert(eq(str, p.description,
               "A made-up cluster: every [model] override and every [topology] key."));
  HAS(p.source, "good-full.ini");
  const tutti_model_t *m = &p.model;
  cr_assert(eq(int, m->preset, TUTTI_MODEL_HOCKNEY));
  cr_assert(ieee_ulp_eq(dbl, m->params[0], 2e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, m->params[1], 8e-10, 0));
  cr_assert(eq(sz, m->eager_limit, 16384));
  cost_is(&m->send_cpu, 0, 5e-7, 1e-10, "send_cpu");
  cost_is(&m->send_port, 1e-6, 5e-7, 8e-10, "send_port");
  cost_is(&m->latency, 0, 2e-6, 8e-10, "latency");
  cost_is(&m->recv_port, 0, 0, 8e-10, "recv_port");
  cost_is(&m->recv_cpu, 0, 5e-7, 0, "recv_cpu");
  cr_assert(ieee_ulp_eq(dbl, m->gamma, 2.5e-10, 0));
  cr_assert(eq(str, p.topo_spec, "tree:4x8"));
  cr_assert(eq(str, p.topo_links, "1us/10Gbps, 2us/40Gbps"));
  cr_assert(eq(str, p.topo_mapping, "roundrobin:4"));
  cr_assert(eq(str, p.topo_file, ""));
}

Test(file, minimal_postal_loggp) {
  tutti_profile_t p = load_ok(data_path("good-minimal.ini"));
  cr_assert(eq(int, p.model.preset, TUTTI_MODEL_NONE));
  cr_assert(eq(sz, p.model.eager_limit, 65536));
  cr_assert(eq(str, p.description, ""));
  p = load_ok(data_path("good-postal.ini"));
  cr_assert(eq(int, p.model.preset, TUTTI_MODEL_POSTAL));
  cost_is(&p.model.latency, 0, 3, 0, "L");
  cost_is(&p.model.recv_cpu, 0, 1, 0, "recv_cpu");
  p = load_ok(data_path("good-loggp.ini")); /* "preset: loggp" (colon form) */
  cr_assert(eq(int, p.model.preset, TUTTI_MODEL_LOGGP));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[3], 1e-9, 0));
}

Test(file, relative_topology_file_follows_the_profile) {
  tutti_profile_t p = load_ok(data_path("good-topofile.ini"));
  char want[4096];
  snprintf(want, sizeof want, "%s", data_path("cluster.ini"));
  cr_assert(eq(str, p.topo_file, want));
  cr_assert(eq(str, p.topo_mapping, "list:3,0,2,1"));
}

/* -------------------------------------------------------------- bad files */

struct bad {
  const char *file;
  const char *where; /* "FILE:LINE: ..." after the directory */
  const char *also;  /* another part of the message, or NULL */
};

static struct bad bad_files[] = {
    {"bad-unknown-key.ini", "bad-unknown-key.ini:3: key 'bogus': unknown for preset hockney",
     "accepted: preset, alpha, beta"},
    {"bad-missing-preset.ini", "bad-missing-preset.ini:2: key 'preset': missing",
     "accepted: none, hockney, postal"},
    {"bad-no-model.ini", "bad-no-model.ini:1: section [model]: missing", "preset = none"},
    {"bad-value.ini", "bad-value.ini:4: key 'beta': '1 furlong' is not a per-byte cost",
     "accepted: a time per byte"},
    {"bad-duplicate-key.ini", "bad-duplicate-key.ini:5: key 'alpha': given twice (first on line 3)",
     "accepted: each key once"},
    {"bad-unknown-section.ini", "bad-unknown-section.ini:5: section [network]: unknown",
     "accepted: [model], [topology]"},
    {"bad-empty-unknown-section.ini", "bad-empty-unknown-section.ini:1: section [Model]: unknown",
     NULL},
    {"bad-duplicate-section.ini",
     "bad-duplicate-section.ini:5: section [model]: given twice (first on line 1)", NULL},
    {"bad-missing-param.ini", "bad-missing-param.ini:3: key 'G': missing for preset loggp",
     "loggp needs L, o, g and G"},
    {"bad-syntax.ini",
     "bad-syntax.ini:3: 'this line has no equals sign' is not a [section] or key = value line",
     "accepted: [model], [topology]"},
    {"bad-unclosed-section.ini", "bad-unclosed-section.ini:1: '[model' is not a [section]", NULL},
    {"bad-outside-section.ini", "bad-outside-section.ini:1: key 'preset': outside any section",
     NULL},
    {"bad-continuation.ini", "bad-continuation.ini:4: key 'alpha': continued on an indented line",
     "not indented"},
    {"bad-preset.ini", "bad-preset.ini:2: key 'preset': 'hockey' is not a preset",
     "accepted: none, hockney"},
    {"bad-topology-key.ini", "bad-topology-key.ini:4: key 'shape': unknown in [topology]",
     "accepted: spec, file, links, mapping"},
    {"bad-topology-spec.ini", "bad-topology-spec.ini:4: key 'spec': 'tree:4x0' is not a tree spec",
     "tree:AxB"},
    {"bad-topology-mapping.ini",
     "bad-topology-mapping.ini:4: key 'mapping': mapping 'list:...': leaf 1 given twice",
     "every leaf at most once"},
    {"bad-topology-links.ini",
     "bad-topology-links.ini:4: key 'links': link 2 '2us' is not LATENCY/BANDWIDTH", "1us/10Gbps"},
    {"bad-spec-and-file.ini", "bad-spec-and-file.ini:5: key 'file': conflicts with 'spec' (line 4)",
     "spec or file"},
    {"bad-postal-units.ini", "bad-postal-units.ini:4: key 'send_cpu': '1us' is not a plain number",
     "steps"},
    {"bad-long-line.ini", "bad-long-line.ini:4: line too long", NULL},
};

#define NBAD (sizeof bad_files / sizeof bad_files[0])

/* Criterion may run each parameter in a new process, where pointers into
 * the table would not be valid: pass indices. */
ParameterizedTestParameters(file, bad) {
  static int idx[NBAD];
  for (size_t i = 0; i < NBAD; i++) idx[i] = (int)i;
  return cr_make_param_array(int, idx, NBAD);
}

ParameterizedTest(int *i, file, bad) {
  const struct bad *b = &bad_files[*i];
  tutti_profile_t p;
  memset(&p, 0x5a, sizeof p);
  char before = p.name[0];
  char err[1024] = "";
  int rc = tutti_profile_load(data_path(b->file), &p, err, sizeof err);
  cr_assert(eq(int, rc, TUTTI_EPARSE), "%s: rc %d (%s)", b->file, rc, err);
  cr_assert(eq(chr, p.name[0], before), "%s: output changed on failure", b->file);
  HAS(err, b->where);
  HAS(err, "accepted:");
  if (b->also) HAS(err, b->also);
  cr_assert(eq(ptr, strchr(err, '\n'), NULL), "one line: '%s'", err);
  /* the path as given opens the message */
  cr_assert(eq(int, strncmp(err, data_path(b->file), strlen(data_path(b->file))), 0), "%s", err);
}

/* ------------------------------------------------------ load and strings */

Test(load, not_found_lists_the_builtins) {
  tutti_profile_t p;
  char err[1024];
  cr_assert(eq(int, tutti_profile_load("no-such-profile", &p, err, sizeof err), TUTTI_ENOTFOUND));
  HAS(err, "profile 'no-such-profile': not a built-in profile and no such file");
  HAS(err, "teaching-hockney, postal-2");
  HAS(err, "shared-memory");
  cr_assert(
      eq(int, tutti_profile_load(data_path("nope/x.ini"), &p, err, sizeof err), TUTTI_ENOTFOUND));
}

Test(load, unreadable_and_bad_arguments) {
  tutti_profile_t p;
  char err[1024];
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", data_path(""));
  cr_assert(eq(int, tutti_profile_load(dir, &p, err, sizeof err), TUTTI_EIO), "%s", err);
  HAS(err, "cannot read");
  cr_assert(eq(int, tutti_profile_load(NULL, &p, err, sizeof err), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_profile_load("gige", NULL, err, sizeof err), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_profile_parse_string(NULL, "x", &p, err, sizeof err), TUTTI_EINVAL));
}

static int parse(const char *text, tutti_profile_t *p, char *err, size_t n) {
  return tutti_profile_parse_string(text, "t.ini", p, err, n);
}

Test(strings, messages_without_a_filename) {
  tutti_profile_t p;
  char err[1024];
  cr_assert(eq(int, tutti_profile_parse_string("[model]\npreset = x\n", NULL, &p, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "<string>:2: key 'preset'");
  cr_assert(eq(int, tutti_profile_parse_string("", NULL, &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "<string>:1: section [model]: missing");
}

Test(strings, crlf_and_comments) {
  tutti_profile_t p;
  char err[1024] = "";
  const char *t = "# title line\r\n\r\n[model]\r\npreset = hockney ; the model\r\n"
                  "alpha = 1us\r\nbeta = 1ns\r\n";
  cr_assert(eq(int, parse(t, &p, err, sizeof err), 0), "%s", err);
  cr_assert(eq(str, p.description, "title line"));
  cr_assert(ieee_ulp_eq(dbl, p.model.params[1], 1e-9, 0));
}

Test(strings, topology_values_good) {
  const char *good[] = {
      "spec = tree:8",
      "spec = tree:4x8",
      "spec = tree:2x3x4x5",
      "mapping = identity",
      "mapping = dfs",
      "mapping = roundrobin",
      "mapping = roundrobin:2",
      "mapping = random:12345",
      "mapping = list:0",
      "mapping = list:2, 0, 1",
      /* what --mapping takes (one parser): any distinct leaves, any 64-bit seed */
      "mapping = list:15,14,13,12",
      "mapping = list:1",
      "mapping = list:0,2",
      "mapping = random:18446744073709551615",
      "links = 1us/10Gbps",
      "links = 0/1GB/s,2us/40Gbps, 1.5us/100Gbps",
      "file = /abs/cluster.ini",
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    char text[512], err[1024] = "";
    snprintf(text, sizeof text, "[model]\npreset = none\n[topology]\n%s\n", good[i]);
    tutti_profile_t p;
    cr_assert(eq(int, parse(text, &p, err, sizeof err), 0), "'%s': %s", good[i], err);
  }
}

Test(strings, topology_values_bad) {
  const char *bad[] = {
      "spec = tree:",
      "spec = tree:4x",
      "spec = tree:x4",
      "spec = tree:4*8",
      "spec = fat-tree:4x8",
      "spec = tree:0",
      "spec = tree:4 x8",
      "spec = tree:99999x99999",
      "mapping = ",
      "mapping = roundrobin:",
      "mapping = roundrobin:0",
      "mapping = random",
      "mapping = random:-1",
      "mapping = list:",
      "mapping = list:0,0",
      "mapping = random:18446744073709551616",
      "mapping = list:a,b",
      "mapping = DFS",
      "links = ",
      "links = 1us",
      "links = 1us/",
      "links = /10Gbps",
      "links = 1xs/10Gbps",
      "links = 1us/10GHz",
      "links = 1us/10Gbps,",
      "file = ",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512], err[1024] = "";
    snprintf(text, sizeof text, "[model]\npreset = none\n[topology]\n%s\n", bad[i]);
    tutti_profile_t p;
    cr_assert(eq(int, parse(text, &p, err, sizeof err), TUTTI_EPARSE), "'%s' should fail", bad[i]);
    HAS(err, "t.ini:4: key '");
    HAS(err, "accepted:");
  }
}

Test(strings, model_keys_twice_across_lines_and_order) {
  tutti_profile_t p;
  char err[1024] = "";
  /* preset after its parameters; overrides after the preset */
  cr_assert(eq(int,
               parse("[model]\nbeta=1ns\nalpha=1us\npreset=hockney\neager_limit=all\n", &p, err,
                     sizeof err),
               0),
            "%s", err);
  cr_assert(eq(sz, p.model.eager_limit, TUTTI_EAGER_ALL));
  /* [topology] before [model] */
  cr_assert(
      eq(int, parse("[topology]\nspec=tree:2x2\n[model]\npreset=none\n", &p, err, sizeof err), 0),
      "%s", err);
  cr_assert(eq(str, p.topo_spec, "tree:2x2"));
  /* the same key in two sections is not a duplicate, it is unknown in one */
  cr_assert(eq(int, parse("[model]\npreset=none\n[topology]\npreset=none\n", &p, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "t.ini:4: key 'preset': unknown in [topology]");
  /* an indented first key is fine (it continues nothing) */
  cr_assert(eq(int, parse("[model]\n  preset = none\n", &p, err, sizeof err), 0), "%s", err);
}

/* A profile's mapping is read by the parser under --mapping
 * (tutti_topo_mapping_parse): every text is accepted by both or by neither,
 * and a refusal carries the library's message. */
Test(strings, mapping_is_the_command_lines) {
  const char *texts[] = {
      "identity",
      "dfs",
      "roundrobin",
      "roundrobin:3",
      "roundrobin:0",
      "random:0",
      "random:9223372036854775808",
      "random:18446744073709551615",
      "random:18446744073709551616",
      "random:-1",
      "list:15,14,13,12",
      "list:3,0,2,1",
      "list:0,0",
      "list:a",
      "list:7",
      "bogus",
      "DFS",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    char text[512], err[1024] = "", lerr[1024] = "";
    snprintf(text, sizeof text, "[model]\npreset = none\n[topology]\nmapping = %s\n", texts[i]);
    tutti_profile_t p;
    tutti_topo_mapping_t m;
    int lib = tutti_topo_mapping_parse(texts[i], &m, lerr, sizeof lerr);
    if (!lib) tutti_topo_mapping_clear(&m);
    int prof = parse(text, &p, err, sizeof err);
    cr_assert(eq(int, prof, lib), "'%s': profile %d (%s), --mapping %d (%s)", texts[i], prof, err,
              lib, lerr);
    if (lib)
      HAS(err, lerr);
    else
      cr_assert(eq(str, p.topo_mapping, (char *)texts[i]));
  }
}

/* A [model] with many unknown keys names the first, at its line (not "too
 * many keys" at the 33rd), whatever the preset and wherever it comes. */
Test(strings, many_unknown_keys_name_the_first) {
  char text[4096], err[1024] = "";
  tutti_profile_t p;
  size_t len = (size_t)snprintf(text, sizeof text,
                                "[model]\npreset = hockney\nalpha = 1us\n"
                                "beta = 1ns\n");
  for (int k = 0; k < 40; k++)
    len += (size_t)snprintf(text + len, sizeof text - len, "unknown%d = 1\n", k);
  cr_assert(eq(int, parse(text, &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "t.ini:5: key 'unknown0': unknown for preset hockney");
  /* the preset last, after 40 keys: alpha is unknown to logp, on line 2 */
  len = (size_t)snprintf(text, sizeof text, "[model]\nalpha = 1us\n");
  for (int k = 0; k < 40; k++)
    len += (size_t)snprintf(text + len, sizeof text - len, "unknown%d = 1\n", k);
  snprintf(text + len, sizeof text - len, "preset = logp\n");
  cr_assert(eq(int, parse(text, &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "t.ini:2: key 'alpha': unknown for preset logp");
  /* and without any preset, that is what is missing */
  snprintf(text + len, sizeof text - len, "\n");
  cr_assert(eq(int, parse(text, &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "key 'preset': missing");
}

/* A UTF-8 byte order mark (Windows editors write one) opens the file, not
 * its first line: skipped, lines counted as before. Elsewhere it is text. */
Test(strings, utf8_bom_is_skipped) {
  tutti_profile_t p;
  char err[1024] = "";
  cr_assert(eq(int, parse("\xEF\xBB\xBF[model]\npreset = postal\nL = 3\n", &p, err, sizeof err), 0),
            "%s", err);
  cr_assert(eq(int, p.model.preset, TUTTI_MODEL_POSTAL));
  cr_assert(
      eq(int, parse("\xEF\xBB\xBF; a title\n[model]\npreset = none\n", &p, err, sizeof err), 0),
      "%s", err);
  cr_assert(eq(str, p.description, "a title"));
  cr_assert(eq(int, parse("\xEF\xBB\xBF[model]\npreset = x\n", &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "t.ini:2: key 'preset': 'x' is not a preset");
  cr_assert(eq(int, parse("\xEF\xBB\xBF", &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "t.ini:1: section [model]: missing");
  cr_assert(
      eq(int, parse("[model]\n\xEF\xBB\xBFpreset = none\n", &p, err, sizeof err), TUTTI_EPARSE));
  /* from a file too */
  p = load_ok(data_path("good-bom.ini"));
  cr_assert(eq(int, p.model.preset, TUTTI_MODEL_HOCKNEY));
  cr_assert(eq(str, p.topo_spec, "tree:2x4"));
}

/* Messages quote the file's bytes with control bytes as \xNN: nothing raw
 * reaches a terminal. */
Test(strings, control_bytes_are_escaped) {
  tutti_profile_t p;
  char err[1024] = "";
  cr_assert(
      eq(int, parse("[model]\npreset = hock\x01ney\x1b[2J\n", &p, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "t.ini:2: key 'preset': 'hock\\x01ney\\x1b[2J' is not a preset");
  cr_assert(eq(int,
               parse("[model]\nno\x07"
                     "equals\n",
                     &p, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "'no\\x07equals' is not a [section]");
  cr_assert(eq(int,
               parse("[model]\npreset = none\n[topology]\nmapping = x\x7f\n", &p, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "'x\\x7f'");
  int raw = 0;
  for (const unsigned char *c = (const unsigned char *)err; *c; c++) raw |= *c < 0x20 || *c == 0x7f;
  cr_assert(eq(int, raw, 0), "a raw control byte in '%s'", err);
}
