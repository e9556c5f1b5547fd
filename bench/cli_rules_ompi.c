/*
 * cli_rules_ompi.c -- Open MPI's coll/tuned dynamic rules from a tune
 * (bench/CLI.md "MPI libraries' rules files"): the classic text file of
 * Open MPI 4.1 (`tune --ompi-rules`) and the JSON file Open MPI 6.0 reads
 * (`tune --ompi-rules-json`), the same rules in both.
 *
 * What Open MPI 4.1's reader (coll_tuned_dynamic_file.c) and lookup
 * (coll_tuned_dynamic_rules.c, coll_tuned_decision_dynamic.c) do, which
 * the file follows:
 * - the classic file is numbers; a '#' starts a comment to the end of its
 *   line, anywhere (tests/test_e2e_tune_mpi.c runs Open MPI on such a
 *   file). A communicator takes the rules of the largest size at or below
 *   its own, and one below every size the first's: so the first size is
 *   1, with algorithm 0 -- Open MPI's fixed decision -- below the
 *   smallest count tutti measured;
 * - a call takes the rule of the largest size key at or below its own;
 *   the key is the message's bytes for bcast, reduce and allreduce, and
 *   the whole buffer -- the bytes per rank x the communicator size -- for
 *   allgather, gather, scatter, reduce_scatter (the sum of the counts)
 *   and reduce_scatter_block: those collectives get their rules per
 *   communicator size, each with its own thresholds (cli_rules.c);
 *   alltoall's is the whole buffer too (bytes per block x the size);
 * - scan and exscan: the key is the datatype's size x the communicator
 *   size, whatever the count (ompi_coll_tuned_scan_intra_dec_dynamic;
 *   tests/test_e2e_tune_mpi.c runs them), so a rule cannot follow the
 *   message. Only Open MPI's linear (1), a chain in rank order, is
 *   tutti's `linear`: its recursive_doubling (2) pairs rank XOR 2^k,
 *   tutti's Hillis-Steele rounds send to rank + 2^k, another pattern. So
 *   the rules of a communicator size are one: 1 where linear ran, with
 *   the notes of what tutti would run (a second algorithm mapped here
 *   would need one rule per communicator size, not one per message size);
 * - knomial bcast (7) takes its radix from the MCA parameter
 *   coll_tuned_bcast_algorithm_knomial_radix (default 4), not from the
 *   rule: the file still writes the radix as the rule's fan-out (what
 *   6.0's JSON reader may use) and says which --mca to pass.
 * Algorithm numbers are those of `ompi_info --param coll tuned --level 9`
 * (4.1), the same for these algorithms in 6.0.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cli_rules.h"

/* Open MPI 4.1's algorithm names, per collective id (index = number). */
static const char *const names_allgather[] = {"ignore", "linear", "bruck", "recursive_doubling",
                                              "ring",   NULL};
static const char *const names_allreduce[] = {
    "ignore", "basic_linear",   "nonoverlapping", "recursive_doubling",
    "ring",   "segmented_ring", "rabenseifner",   NULL};
static const char *const names_barrier[] = {
    "ignore", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree", NULL};
static const char *const names_bcast[] = {
    "ignore",      "basic_linear", "chain",   "pipeline",          "split_binary_tree",
    "binary_tree", "binomial",     "knomial", "scatter_allgather", "scatter_allgather_ring",
    NULL};
static const char *const names_gather[] = {"ignore", "basic_linear", "binomial", NULL};
static const char *const names_reduce[] = {"ignore", "linear",   "chain", "pipeline",
                                           "binary", "binomial", NULL};
static const char *const names_rs[] = {"ignore", "non-overlapping", "recursive_halving", "ring",
                                       NULL};
static const char *const names_rsb[] = {"ignore", "basic_linear", "recursive_doubling",
                                        "recursive_halving", NULL};
static const char *const names_alltoall[] = {
    "ignore", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc", NULL};
static const char *const names_scan[] = {"ignore", "linear", "recursive_doubling", NULL};

/* Per collective id: the names, and the order a tie follows (Open MPI's
 * default for the collective first; bench/CLI.md lists them). */
static const struct {
  int id;
  const char *const *names;
  int prefer[8]; /* 0-terminated */
} ompi_algs[] = {
    {0, names_allgather, {3, 2, 4}},
    {2, names_allreduce, {3, 6, 4, 2}},
    {3, names_alltoall, {2, 3, 1}},
    {6, names_barrier, {4, 3, 6, 1}},
    {7, names_bcast, {6, 5, 9, 8, 3, 7, 1}},
    {8, names_scan /* exscan: the same names */, {1}},
    {9, names_gather, {2, 1}},
    {11, names_reduce, {5, 4, 3, 1}},
    {12, names_rs, {2, 3}},
    {13, names_rsb, {3}},
    {14, names_scan, {1}},
    {15, names_gather /* scatter: the same names */, {2, 1}},
};

static int is_pow2(int P) {
  return P > 0 && !(P & (P - 1));
}

static int builtin_named(const tutti_algo_desc_t *d, const char *name) {
  return tutti_algo_builtin(d) && !strcmp(d->name, name);
}

/* Open MPI's number of tutti algorithm a on P ranks (-1: none), and its
 * fan-out and segment. */
static int ompi_number(int id, const tutti_algo_t *a, int P, long seg, long *fan, long *sg) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  const char *tree = d->tree; /* a tree algorithm's kind, NULL for any other */
  double k = tutti_algo_param(a, "k");
  *fan = 0, *sg = 0;
  if (tree && !strcmp(tree, "knomial") && k == 2) tree = "binomial"; /* radix 2 is binomial */
  switch (id) {
  case 7: /* bcast */
    if (tree) {
      if (!strcmp(tree, "flat")) return 1;
      *sg = seg;
      if (!strcmp(tree, "chain")) return 3;
      if (!strcmp(tree, "binary")) return 5;
      if (!strcmp(tree, "binomial")) return 6;
      if (!strcmp(tree, "knomial")) return *fan = (long)k, 7;
      return -1;
    }
    if (builtin_named(d, "pipelined-chain") && tutti_algo_param(a, "order") == 0)
      return *sg = seg, 3; /* rank order from the root: Open MPI's chain of one */
    if (builtin_named(d,
                      "scatter-allgather")) /* recursive doubling runs the ring off powers of 2 */
      return tutti_algo_param(a, "allgather") != 0 && is_pow2(P) ? 8 : 9;
    return -1;
  case 11: /* reduce */
    if (!tree) return -1;
    if (!strcmp(tree, "flat")) return 1;
    *sg = seg;
    if (!strcmp(tree, "chain")) return 3;
    if (!strcmp(tree, "binary")) return 4;
    if (!strcmp(tree, "binomial")) return 5;
    return -1;
  case 9:  /* gather */
  case 15: /* scatter */
    if (!tree) return -1;
    return !strcmp(tree, "flat") ? 1 : !strcmp(tree, "binomial") ? 2 : -1;
  case 6: /* barrier */
    if (tree) return !strcmp(tree, "flat") ? 1 : !strcmp(tree, "binomial") ? 6 : -1;
    if (builtin_named(d, "recursive-doubling")) return 3;
    if (builtin_named(d, "dissemination") && k == 2) return 4;
    return -1;
  case 2: /* allreduce */
    if (builtin_named(d, "reduce-bcast")) return 2;
    if (builtin_named(d, "recursive-doubling")) return 3;
    if (builtin_named(d, "ring")) return 4;
    if (builtin_named(d, "rabenseifner")) return 6;
    return -1;
  case 0: /* allgather */
    if (builtin_named(d, "bruck")) return 2;
    if (builtin_named(d, "recursive-doubling")) return 3;
    if (builtin_named(d, "ring")) return 4;
    return -1;
  case 12: /* reduce_scatter */
    if (builtin_named(d, "recursive-halving")) return 2;
    if (builtin_named(d, "ring")) return 3;
    return -1;
  case 13: /* reduce_scatter_block */
    return builtin_named(d, "recursive-halving") ? 3 : -1;
  case 3: /* alltoall: Open MPI's pairwise shifts (rank + s, rank - s) on every P */
    if (builtin_named(d, "linear")) return 1; /* every request posted, then wait */
    if (builtin_named(d, "ring")) return 2;
    if (builtin_named(d, "pairwise")) return is_pow2(P) ? -1 : 2; /* XOR on powers of 2 */
    if (builtin_named(d, "bruck")) return 3;
    return -1;
  case 8:  /* exscan */
  case 14: /* scan */
    return builtin_named(d, "linear") ? 1 : -1;
  default:
    return -1;
  }
}

static int map_ompi(const struct rules_target *tg, const tutti_algo_t *a, int P, long seg,
                    struct rules_pick *out, int *pref) {
  long fan, sg;
  int alg = ompi_number(tg->id, a, P, seg, &fan, &sg);
  if (alg < 0) return -1;
  for (size_t i = 0; i < sizeof ompi_algs / sizeof *ompi_algs; i++) {
    if (ompi_algs[i].id != tg->id) continue;
    *out = (struct rules_pick){alg, ompi_algs[i].names[alg], fan, sg};
    *pref = 8;
    for (int p = 0; p < 8 && ompi_algs[i].prefer[p]; p++)
      if (ompi_algs[i].prefer[p] == alg) *pref = p;
    return 0;
  }
  return -1;
}

/* The collectives Open MPI's tuned component reads rules for and tutti
 * has, by Open MPI's id (coll_base_functions.h COLLTYPE_T). */
static const struct rules_target ompi_targets[] = {
    {TUTTI_COLL_ALLGATHER, 0, "allgather", 1, map_ompi},
    {TUTTI_COLL_ALLREDUCE, 2, "allreduce", 0, map_ompi},
    {TUTTI_COLL_ALLTOALL, 3, "alltoall", 1, map_ompi},
    {TUTTI_COLL_BARRIER, 6, "barrier", 0, map_ompi},
    {TUTTI_COLL_BCAST, 7, "bcast", 0, map_ompi},
    {TUTTI_COLL_EXSCAN, 8, "exscan", 0, map_ompi},
    {TUTTI_COLL_GATHER, 9, "gather", 1, map_ompi},
    {TUTTI_COLL_REDUCE, 11, "reduce", 0, map_ompi},
    {TUTTI_COLL_REDUCE_SCATTER, 12, "reduce_scatter", 1, map_ompi},
    {TUTTI_COLL_REDUCE_SCATTER, 13, "reduce_scatter_block", 1, map_ompi},
    {TUTTI_COLL_SCAN, 14, "scan", 0, map_ompi},
    {TUTTI_COLL_SCATTER, 15, "scatter", 1, map_ompi},
};
#define NTARGETS (int)(sizeof ompi_targets / sizeof *ompi_targets)

/* Every target's rules (NULL where tutti measured nothing), built once
 * for both formats. */
struct built {
  struct rules_comm *c[NTARGETS];
  int n[NTARGETS];
  long radix[4]; /* the knomial radices the rules use, 0-terminated */
};

static int build_all(const struct tune_result *t, struct built *b) {
  memset(b, 0, sizeof *b);
  for (int i = 0; i < NTARGETS; i++) {
    int rc = rules_build(t, &ompi_targets[i], "Open MPI", &b->c[i], &b->n[i]);
    if (rc) {
      for (int j = 0; j < i; j++) rules_free(b->c[j], b->n[j]);
      return rc;
    }
    for (int k = 0; k < b->n[i]; k++)
      for (int r = 0; r < b->c[i][k].n; r++) {
        long x = b->c[i][k].r[r].pick.alg == 7 ? b->c[i][k].r[r].pick.fan : 0;
        int have = 0, q = 0;
        for (; q < 3 && b->radix[q]; q++) have |= b->radix[q] == x;
        if (x && !have && q < 3) b->radix[q] = x;
      }
  }
  return 0;
}

static void free_all(struct built *b) {
  for (int i = 0; i < NTARGETS; i++) rules_free(b->c[i], b->n[i]);
}

static void size_text(size_t v, char *buf, size_t n) {
  if (v == SIZE_MAX)
    snprintf(buf, n, "no end");
  else
    tutti_format_bytes(v, buf, n);
}

int rules_write_ompi(FILE *f, const struct tune_result *t) {
  struct built b;
  int rc = build_all(t, &b), ncoll = 0;
  if (rc) return rc;
  for (int i = 0; i < NTARGETS; i++) ncoll += b.n[i] > 0;
  rules_provenance(f, t, "# ");
  fputs("# Open MPI 4.1 coll/tuned dynamic rules, classic format (bench/CLI.md \"MPI libraries'\n"
        "# rules files\"): mpirun --mca coll_tuned_use_dynamic_rules 1 \\\n"
        "#   --mca coll_tuned_dynamic_rules_filename FILE ...\n"
        "# The number of collectives; per collective its id and number of communicator\n"
        "# sizes; per size the size (from it up to the next) and its number of rules; per\n"
        "# rule: from BYTES (up to the next rule's) ALGORITHM FAN-IN/OUT SEGMENT-BYTES.\n"
        "# BYTES: the message of bcast, reduce and allreduce; the whole buffer (bytes per\n"
        "# rank x communicator size) of the others, but scan and exscan, whose BYTES Open\n"
        "# MPI takes as the datatype's size x the communicator size (their rules name\n"
        "# linear or nothing). Algorithm 0: Open MPI's own choice.\n",
        f);
  if (b.radix[0]) {
    fprintf(f,
            "# knomial bcast (7): Open MPI 4.1 takes its radix from --mca "
            "coll_tuned_bcast_algorithm_knomial_radix %ld",
            b.radix[0]);
    if (b.radix[1])
      fprintf(f, " (these rules use radices %ld, %ld%s: one applies)", b.radix[0], b.radix[1],
              b.radix[2] ? ", ..." : "");
    fputs("; the fan-out column says which\n", f);
  }
  fprintf(f, "%d # collectives\n", ncoll);
  for (int i = 0; i < NTARGETS; i++) {
    if (!b.n[i]) continue;
    fprintf(f, "%d # %s\n%d # communicator sizes\n", ompi_targets[i].id, ompi_targets[i].name,
            b.n[i]);
    for (int k = 0; k < b.n[i]; k++) {
      const struct rules_comm *c = &b.c[i][k];
      char span[48];
      if (c->cmax == INT32_MAX)
        snprintf(span, sizeof span, "%d ranks and up", c->cmin);
      else if (c->cmax == c->cmin)
        snprintf(span, sizeof span, "%d ranks", c->cmin);
      else
        snprintf(span, sizeof span, "%d..%d ranks", c->cmin, c->cmax);
      if (c->measured)
        fprintf(f, "%d %d # %s: the rules measured at %d\n", c->cmin, c->n, span, c->measured);
      else
        fprintf(f, "%d %d # %s: below every measured count, Open MPI's own\n", c->cmin, c->n, span);
      for (int r = 0; r < c->n; r++) {
        const struct rules_rule *x = &c->r[r];
        char lo[32], hi[32];
        tutti_format_bytes(x->lo, lo, sizeof lo);
        size_text(x->hi, hi, sizeof hi);
        if (x->note[0]) fprintf(f, "# %s\n", x->note);
        fprintf(f, "%zu %d %ld %ld # %s..%s: %s\n", x->lo, x->pick.alg, x->pick.fan, x->pick.seg,
                lo, hi, x->pick.name);
      }
    }
  }
  free_all(&b);
  return 0;
}

int rules_write_ompi_json(FILE *f, const struct tune_result *t) {
  struct built b;
  int rc = build_all(t, &b), first = 1;
  if (rc) return rc;
  /* Open MPI 6.0's schema (docs/tuning-apps/tuned_dynamic_file_schema.json)
   * admits no other field, so no comment: provenance and notes are the
   * classic file's. Communicator and message ranges are inclusive, the
   * first match wins; no rule below the smallest measured count: no match
   * is Open MPI's own decision. */
  fputs("{\n  \"rule_file_version\": 3,\n  \"module\": \"tuned\",\n  \"collectives\": {", f);
  for (int i = 0; i < NTARGETS; i++) {
    int any = 0;
    for (int k = 0; k < b.n[i]; k++) any |= b.c[i][k].measured != 0;
    if (!any) continue;
    fprintf(f, "%s\n    \"%s\": [", first ? "" : ",", ompi_targets[i].name);
    first = 0;
    int fc = 1;
    for (int k = 0; k < b.n[i]; k++) {
      const struct rules_comm *c = &b.c[i][k];
      if (!c->measured) continue;
      fprintf(f, "%s\n      {\"comm_size_min\": %d, ", fc ? "" : ",", c->cmin);
      if (c->cmax != INT32_MAX) fprintf(f, "\"comm_size_max\": %d, ", c->cmax);
      fputs("\"rules\": [", f);
      fc = 0;
      for (int r = 0; r < c->n; r++) {
        const struct rules_rule *x = &c->r[r];
        fprintf(f, "%s\n        {\"msg_size_min\": %zu, ", r ? "," : "", x->lo);
        if (x->hi != SIZE_MAX) fprintf(f, "\"msg_size_max\": %zu, ", x->hi);
        fprintf(f, "\"alg\": %d", x->pick.alg);
        if (x->pick.fan) fprintf(f, ", \"faninout\": %ld", x->pick.fan);
        if (x->pick.seg) fprintf(f, ", \"seg_size\": %ld", x->pick.seg);
        fputs("}", f);
      }
      fputs("]}", f);
    }
    fputs("\n    ]", f);
  }
  fputs("\n  }\n}\n", f);
  free_all(&b);
  return 0;
}
