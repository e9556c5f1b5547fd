/*
 * cli_list.c -- the commands that describe rather than run:
 *   tutti list [COLL]   every collective and its algorithms, from the
 *                       registry: parameters (default, range, auto),
 *                       restrictions, cost, summary and source
 *   tutti tree ALGO     the tree an algorithm uses (tutti_tree_print)
 *   tutti profiles      the built-in latency profiles
 * Nothing here lists algorithm names: the registry does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

/* A parameter value of type `type` for people: 0.6, 16, 8 KiB. */
static const char *param_value(int type, double x, char *buf, size_t n) {
  if (isinf(x))
    snprintf(buf, n, "%s", x > 0 ? "inf" : "-inf");
  else if (type == TUTTI_PARAM_SIZE && x >= 0)
    tutti_format_bytes((size_t)x, buf, n);
  else
    snprintf(buf, n, "%g", x);
  return buf;
}

static const char *param_type(int type) {
  switch (type) {
  case TUTTI_PARAM_REAL:
    return "a number";
  case TUTTI_PARAM_INT:
    return "an integer";
  case TUTTI_PARAM_SIZE:
    return "a size in bytes";
  case TUTTI_PARAM_CHOICE:
    return "a word,";
  default:
    return "?";
  }
}

static void print_algo(const tutti_algo_desc_t *d, int is_default) {
  char v[48], range[128];
  printf("  %s%s\n", d->name, is_default ? "  (default)" : "");
  printf("      %s\n", d->summary ? d->summary : "");
  if (d->nparams == 0) printf("      params:       none\n");
  for (int i = 0; i < d->nparams; i++) {
    const tutti_param_desc_t *p = &d->params[i];
    int auto_def = isnan(p->def); /* coll.h: the default is "auto" */
#ifdef TUTTI_PARAM_AUTO_DEFAULT
    auto_def |= (p->flags & TUTTI_PARAM_AUTO_DEFAULT) != 0;
#endif
    printf("      %s %s = %s: %s %s%s%s%s\n", i ? "             " : "params:      ", p->name,
           auto_def                        ? "auto"
           : p->type == TUTTI_PARAM_CHOICE ? p->choices[(int)p->def]
                                           : param_value(p->type, p->def, v, sizeof v),
           param_type(p->type), (tutti_param_range(p, range, sizeof range), range),
           p->flags & TUTTI_PARAM_AUTO_OK ? ", or auto" : "", p->help ? "; " : "",
           p->help ? p->help : "");
  }
  printf("      restrictions: ");
  if (!d->restrictions) printf("none");
  if (d->restrictions & TUTTI_ALGO_COMMUTATIVE) printf("commutative ops only");
  if ((d->restrictions & TUTTI_ALGO_COMMUTATIVE) && (d->restrictions & TUTTI_ALGO_POW2))
    printf("; ");
  if (d->restrictions & TUTTI_ALGO_POW2) printf("a power-of-two number of ranks");
  printf("\n");
  if (d->cost) printf("      cost:         %s\n", d->cost);
  if (d->source) printf("      source:       %s\n", d->source);
  char from[4200];
  if (!tutti_algo_builtin(d)) printf("      from:         %s\n", cli_origin(d, from, sizeof from));
}

/* s with '|' escaped, so a cell stays one cell. */
static void md_cell(const char *s) {
  for (; s && *s; s++) printf(*s == '|' ? "\\|" : "%c", *s);
}

/* One row per algorithm under a results page's head (bench/results/
 * algorithms.md: tests/test_e2e_results.c checks it is what this prints). */
static void print_markdown(int only, int argc, char **argv) {
  bench_page_begin("The algorithms", "tutti list", argc, argv, 1);
  printf("Every registered algorithm of %s, as `tutti list` describes each: its\n"
         "parameters, its cost under Hockney's model (m bytes per rank, b per block;\n"
         "T_1(P) the tree's time in send rounds) and its idea. `tutti list COLL` gives\n"
         "their ranges, restrictions and sources.\n\n",
         only >= 0 ? tutti_coll_name(only) : "every collective");
  printf("| collective | algorithm | parameters | Hockney cost | idea |\n|---|---|---|---|---|\n");
  const tutti_algo_desc_t *d;
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    if (only >= 0 && c != only) continue;
    const tutti_algo_desc_t *def = tutti_algo_desc_default(c);
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
      if (d->coll != c) continue;
      printf("| %s | `%s`%s | ", tutti_coll_name(c), d->name, d == def ? " (default)" : "");
      for (int k = 0; k < d->nparams; k++) printf("%s`%s`", k ? ", " : "", d->params[k].name);
      printf("%s | ", d->nparams ? "" : "none");
      md_cell(d->cost);
      printf(" | ");
      md_cell(d->summary);
      printf("%s%s |\n", d->restrictions & TUTTI_ALGO_COMMUTATIVE ? " (commutative ops only)" : "",
             d->restrictions & TUTTI_ALGO_POW2 ? " (P a power of two only)" : "");
    }
  }
}

#define LIST_OPTS (CLI_O(MARKDOWN) | CLI_O(PLUGIN) | CLI_O(HELP))

int tutti_cli_list(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("list", LIST_OPTS, 1, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti list [COLL]\n\n"
           "Every collective (or only COLL: %s) with its algorithms as the registry\n"
           "holds them: summary, parameters (default, range, whether 'auto' is accepted),\n"
           "restrictions, Hockney cost and source. Choose one with tutti run COLL ALGO\n"
           "and set parameters with --param K=V. With --markdown, a results page: one\n"
           "table row per algorithm (bench/results/algorithms.md).\n\noptions:\n",
           cli_coll_names());
    cli_print_options(stdout, LIST_OPTS);
    return 0;
  }
  int only = -1;
  if (o.npos == 1 && tutti_coll_find(o.pos[0], &only))
    return cli_fail(CLI_EUSAGE, "list", "unknown collective '%s'; accepted: %s", o.pos[0],
                    cli_coll_names());
  if (o.given & CLI_O(MARKDOWN)) {
    print_markdown(only, argc, argv);
    return 0;
  }
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    if (only >= 0 && c != only) continue;
    const tutti_algo_desc_t *def = tutti_algo_desc_default(c), *d;
    int n = 0;
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) n += d->coll == c;
    printf("%s%s -- %s; %d algorithm%s%s%s\n", c && only < 0 ? "\n" : "", tutti_coll_name(c),
           tutti_coll_summary(c), n, n == 1 ? "" : "s", def ? ", default " : "",
           def ? def->name : "");
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
      if (d->coll == c) print_algo(d, d == def);
  }
  return 0;
}

/* ------------------------------------------------------------ tree */

/* "flat, chain, ..., and the tree algorithms bcast lambda-tree, ..." */
static const char *tree_names(void) {
  static char buf[2048];
  size_t len = 0;
  for (int k = 0; k < TUTTI_TREE_NKINDS && len < sizeof buf; k++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", k ? ", " : "",
                            tutti_tree_kind_name(k));
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL && len < sizeof buf; i++) {
    if (!d->tree) continue;
    int seen = 0; /* a name shared by several collectives is listed once */
    for (int k = 0; k < i && !seen; k++) seen = !strcmp(tutti_algo_desc_at(k)->name, d->name);
    int kind;
    if (!seen && tutti_tree_kind_find(d->name, &kind))
      len += (size_t)snprintf(buf + len, sizeof buf - len, ", %s", d->name);
  }
  return buf;
}

/* Each kind's parameter as the registry declares it, a line each:
 * "  lambda   lambda in [0.5, 1) or auto, default 0.6". */
static void print_kind_params(void) {
  for (int k = 0; k < TUTTI_TREE_NKINDS; k++) {
    const tutti_param_desc_t *p = tutti_tree_kind_param(k);
    if (!p) continue;
    char range[80], def[32] = "auto";
    tutti_param_range(p, range, sizeof range);
    if (!(p->flags & TUTTI_PARAM_AUTO_DEFAULT)) tutti_format_shortest(p->def, def, sizeof def);
    printf("  %-8s %s %s%s, default %s\n", tutti_tree_kind_name(k), p->name, range,
           p->flags & TUTTI_PARAM_AUTO_OK ? " or auto" : "", def);
  }
}

#define TREE_OPTS                                                                                  \
  (CLI_O(RANKS) | CLI_O(ROOT) | CLI_O(PARAM) | CLI_O(DOT) | CLI_O(PLUGIN) | CLI_O(HELP))

int tutti_cli_tree(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("tree", TREE_OPTS, 1, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti tree ALGO [-n N] [--root R] [--param K=V ...] [--dot]\n\n"
           "Draw the tree a tree-based algorithm uses, children in send order.\n"
           "ALGO: a registry algorithm built on a tree, with its own parameters (tutti\n"
           "list), or else a bare tree kind; a name that is both is the algorithm:\n"
           "  %s.\n"
           "A kind's parameter, as the registry declares it (auto, chosen per run from\n"
           "the model, is drawn for postal latency %d):\n",
           tree_names(), TUTTI_TREE_DEFAULT_L);
    print_kind_params();
    printf("\noptions:\n");
    cli_print_options(stdout, TREE_OPTS);
    return 0;
  }
  if (o.npos < 1) return cli_fail(CLI_EUSAGE, "tree", "missing ALGO; accepted: %s", tree_names());
  if (o.root >= o.nranks)
    return cli_fail(CLI_EUSAGE, "tree", "--root: %d is out of range for %d ranks; accepted: 0..%d",
                    o.root, o.nranks, o.nranks - 1);
  const char *name = o.pos[0];
  tutti_treespec_t spec;
  char title[512], tail[160] = "", err[1024] = "";
  /* An algorithm's name before a kind's: the registry's binomial, flat and
   * binary are tree algorithms with parameters of their own (segment). */
  const tutti_algo_desc_t *d = NULL, *x;
  for (int i = 0; (x = tutti_algo_desc_at(i)) != NULL && !d; i++)
    if (!strcmp(x->name, name) && x->tree) d = x;
  int kind;
  if (d) {
    const tutti_algo_t *a;
    if (tutti_algo_select(d->coll, d->name, o.params, &a, err, sizeof err))
      return cli_fail(CLI_EUSAGE, "tree", "%s", err);
    /* "auto" is chosen per run from the model: drawn for the default latency */
    if (tutti_algo_treespec(a, TUTTI_TREE_DEFAULT_L, &spec)) {
      /* a plugin's range wider than the kind allows */
      const tutti_param_desc_t *p = tutti_tree_kind_param(spec.kind);
      char range[80] = "none";
      if (p) tutti_param_range(p, range, sizeof range);
      return cli_fail(CLI_EUSAGE, "tree", "%s %s: its parameters make no %s tree; accepted: %s %s",
                      tutti_coll_name(d->coll), name, tutti_tree_kind_name(spec.kind),
                      p ? p->name : "parameters", range);
    }
    char note[128] = "";
    for (int i = 0; i < d->nparams; i++)
      if (tutti_algo_param_is_auto(a, i))
        snprintf(note, sizeof note,
                 " (%s = auto is chosen per run from the model; drawn for postal latency %d)",
                 d->params[i].name, TUTTI_TREE_DEFAULT_L);
    char fmt[256] = "";
    tutti_algo_format(a, fmt, sizeof fmt);
    snprintf(title, sizeof title, "%s %s: %s tree", tutti_coll_name(d->coll), fmt,
             tutti_tree_kind_name(spec.kind));
    snprintf(tail, sizeof tail, "%s", note);
  } else if (!tutti_tree_kind_find(name, &kind)) {
    if (tutti_tree_kind_select(kind, o.params, TUTTI_TREE_DEFAULT_L, &spec, err, sizeof err))
      return cli_fail(CLI_EUSAGE, "tree", "%s", err);
    snprintf(title, sizeof title, "%s tree", name);
  } else {
    return cli_fail(CLI_EUSAGE, "tree",
                    "'%s' is neither a tree algorithm nor a tree kind; accepted: %s", name,
                    tree_names());
  }
  int dot = (o.given & CLI_O(DOT)) != 0;
  if (!dot) {
    char extra[64] = "";
    if (spec.kind == TUTTI_TREE_LAMBDA) snprintf(extra, sizeof extra, ", lambda = %g", spec.lambda);
    if (spec.kind == TUTTI_TREE_KNOMIAL) snprintf(extra, sizeof extra, ", k = %d", spec.k);
    if (spec.kind == TUTTI_TREE_POSTAL) snprintf(extra, sizeof extra, ", L = %d", spec.L);
    printf("# %s%s%s; %d ranks, root %d; children in send order\n", title, extra, tail, o.nranks,
           o.root);
  }
  int rc = tutti_tree_print(&spec, o.nranks, o.root, stdout, dot);
  /* a write error (TUTTI_EIO) is main's to report, with the cause */
  if (rc && rc != TUTTI_EIO) return cli_fail(CLI_ERUNTIME, "tree", "%s", tutti_strerror(rc));
  return 0;
}

/* ------------------------------------------------------------ profiles */

int tutti_cli_profiles(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("profiles", CLI_O(JSON) | CLI_O(HELP), 0, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti profiles [--json]\n\n"
           "The built-in latency profiles: name, what machine, the model's parameters and\n"
           "where the numbers come from. Use one with --profile NAME, or an INI file with\n"
           "--profile FILE (bench/CLI.md). The first is the default.\n\noptions:\n");
    cli_print_options(stdout, CLI_O(JSON) | CLI_O(HELP));
    return 0;
  }
  int json = (o.given & CLI_O(JSON)) != 0;
  if (json) printf("[");
  const tutti_profile_info_t *b;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    tutti_profile_t p;
    char err[1024] = "", desc[512] = "";
    if (tutti_profile_load(b->name, &p, err, sizeof err))
      return cli_fail(CLI_ERUNTIME, "profiles", "built-in '%s': %s", b->name, err);
    tutti_model_describe(&p.model, desc, sizeof desc);
    if (json) {
      printf("%s\n {\"name\":", i ? "," : "");
      cli_json_str(stdout, b->name);
      printf(",\"default\":%s,\"description\":", i == 0 ? "true" : "false");
      cli_json_str(stdout, b->description);
      printf(",\"model\":");
      tutti_model_json(&p.model, stdout);
      printf(",\"model_text\":");
      cli_json_str(stdout, desc);
      printf(",\"topology\":");
      if (p.topo_spec[0])
        cli_json_str(stdout, p.topo_spec);
      else
        printf("null");
      printf(",\"source\":");
      cli_json_str(stdout, b->source);
      printf("}");
      continue;
    }
    printf("%s%s%s\n", i ? "\n" : "", b->name, i == 0 ? "  (default)" : "");
    printf("  %s\n", b->description);
    printf("  model:  %s\n", desc);
    if (p.topo_spec[0]) printf("  topology: %s\n", p.topo_spec);
    printf("  source: %s\n", b->source);
  }
  if (json) printf("\n]\n");
  return 0;
}
