/*
 * bench_sharing.c -- `tutti bench sharing`: a comparison only a modeled
 * machine can make. Every registered algorithm of a collective (but
 * `auto`, which runs one of them) is timed on one profile under both
 * sharings of runtime/MODEL.md "Sharing" -- fifo, a port or a link
 * carrying one message at a time (LogGP's view), and fair, concurrent
 * messages sharing its bandwidth max-min fairly (SimGrid's flow models)
 * -- and ranked under each; the bench says where the ranking changes.
 *
 * The machine: a profile (--profile), by default one built in where
 * sharing matters -- 4 switches of 16 hosts, 1 Gbps and 10 us on every
 * link, so a switch's uplink carries the traffic of 16 hosts (16:1
 * oversubscribed), ranks dealt round-robin over the switches (so that 16
 * ranks cross the uplinks too), and the ends cost nothing but the links' time (LogGP
 * with L = o = g = 0 and G = 8 ns/B, as bench/smpi/cm02.ini), eager below
 * 64 KiB. Each (collective, P, size) runs every algorithm once per
 * sharing on a timing-only world (TUTTI_NO_DATA: the modeled time of a
 * data run, bit for bit; tests/test_e2e_fair.c verifies every algorithm
 * under fair sharing with data), by the commands' point runner.
 *
 * Ranking: an algorithm's rank is 1 + the algorithms strictly faster (ties
 * share a rank); the winners are those of rank 1. A (P, size) whose
 * winners differ between the sharings is a winner change, one whose ranks
 * differ otherwise an order change; each gets a summary line, and the
 * last line counts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "tutti/tutti.h"

int tutti_bench_sharing(int argc, char **argv);

#define WHO "tutti bench sharing"
#define CMD "bench sharing"
#define MAXA 32 /* algorithms of one collective */

/* The default machine (the header comment). */
static const char default_ini[] = "[model]\n"
                                  "preset = loggp\n"
                                  "L = 0\n"
                                  "o = 2us\n"
                                  "g = 0\n"
                                  "G = 8ns\n"
                                  "eager_limit = 64KiB\n"
                                  "[topology]\n"
                                  "spec = tree:4x16\n"
                                  "links = 10us/1Gbps, 10us/1Gbps\n"
                                  "mapping = roundrobin\n";
#define DEFAULT_NAME "two-level cluster (built in)"
#define MAX_DEFAULT_P 64 /* its hosts */

static void usage(FILE *f) {
  fprintf(f,
          "usage: tutti bench sharing [COLL ...] [options]\n\n"
          "Every registered algorithm of each COLL (default: every collective) timed under\n"
          "fifo and fair sharing (runtime/MODEL.md \"Sharing\") on one profile, ranked under\n"
          "each; where the winner or the order changes, a line says so.\n\n"
          "  -n, --ranks LIST     rank counts (default 16,64)\n"
          "  -m, --bytes LIST     bytes per rank (default 1KiB,64KiB,1MiB)\n"
          "  --profile NAME|FILE  the profile (default: 4 switches x 16 hosts, 1 Gbps and 10 us\n"
          "                       links, ranks round-robin over the switches, LogGP with\n"
          "                       G = 8 ns/B and nothing else, eager below 64 KiB)\n");
}

/* The machine for P ranks: profile, or the built-in one. 0 or an exit
 * status after the one-line error. */
static int machine(const char *profile, int P, tutti_machine_t *mach) {
  if (profile) {
    struct cli_opts o = {0};
    o.profile = profile;
    return cli_model(CMD, &o, P, mach);
  }
  tutti_profile_t p;
  char err[512];
  tutti_machine_spec_t sp = tutti_machine_spec_default();
  if (tutti_profile_parse_string(default_ini, "default", &p, err, sizeof err) == 0) {
    sp.model_value = &p.model, sp.topology = p.topo_spec, sp.links = p.topo_links;
    sp.mapping = p.topo_mapping;
    sp.nranks = P;
    if (tutti_machine_build(&sp, mach, NULL, err, sizeof err) == 0) return 0;
  }
  fprintf(stderr, WHO ": %s\n", err);
  return 3;
}

struct row {
  struct cli_point pt[2][MAXA]; /* [sharing][algorithm] */
  int rank[2][MAXA];
  int n;
};

/* Ranks of the points that ran (0: did not). */
static void rank_them(struct row *rw, int s) {
  for (int i = 0; i < rw->n; i++) {
    const struct cli_point *p = &rw->pt[s][i];
    rw->rank[s][i] = 0;
    if (p->skipped || p->failed) continue;
    int r = 1;
    for (int j = 0; j < rw->n; j++) {
      const struct cli_point *q = &rw->pt[s][j];
      r += !q->skipped && !q->failed && q->time < p->time;
    }
    rw->rank[s][i] = r;
  }
}

/* "a" or "a = b": the winners under sharing s. */
static void winners(const struct row *rw, int s, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < rw->n; i++)
    if (rw->rank[s][i] == 1) {
      int w = snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? " = " : "",
                       rw->pt[s][i].desc->name);
      if (w > 0) len += (size_t)w;
    }
  if (!len) snprintf(buf, n, "none (no algorithm ran)");
}

struct tally {
  int points, winner, order, skipped, failed;
  char lines[16384]; /* the summary lines */
};

/* One (collective, P, size): every algorithm under both sharings, its
 * rows, and its summary line if the ranking changes. */
static int one(struct row *rw, int coll, int P, size_t bytes, tutti_world_t *w[2],
               const tutti_config_t cfg[2], const tutti_model_t *m, struct tally *t) {
  char err[512], sz[32] = "-";
  int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
  if (data) tutti_format_bytes(bytes, sz, sizeof sz);
  rw->n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) && rw->n < MAXA; i++) {
    if (d->coll != coll || tutti_algo_is_auto(d)) continue;
    for (int s = 0; s < 2; s++) {
      struct cli_point *p = &rw->pt[s][rw->n];
      memset(p, 0, sizeof *p);
      if (tutti_algo_select(coll, d->name, NULL, &p->algo, err, sizeof err)) {
        fprintf(stderr, WHO ": %s %s: %s\n", tutti_coll_name(coll), d->name, err);
        return 3;
      }
      p->desc = d, p->coll = coll, p->bytes = bytes;
      cli_point_run(&w[s], &cfg[s], P, p);
      if (!w[s]) {
        fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
        return 3;
      }
    }
    rw->n++;
  }
  rank_them(rw, 0);
  rank_them(rw, 1);
  int differ = 0;
  for (int i = 0; i < rw->n; i++) {
    char a[32] = "-", b[32] = "-", ra[8] = "-", rb[8] = "-";
    const struct cli_point *p = &rw->pt[0][i], *q = &rw->pt[1][i];
    if (rw->rank[0][i]) {
      tutti_format_model_time(m, p->time, a, sizeof a);
      snprintf(ra, sizeof ra, "%d", rw->rank[0][i]);
    }
    if (rw->rank[1][i]) {
      tutti_format_model_time(m, q->time, b, sizeof b);
      snprintf(rb, sizeof rb, "%d", rw->rank[1][i]);
    }
    differ |= rw->rank[0][i] != rw->rank[1][i];
    printf("%5d %9s  %-26s %12s %5s %12s %5s%s", P, sz, p->desc->name, a, ra, b, rb,
           rw->rank[0][i] != rw->rank[1][i] ? "  *" : "");
    if (p->skipped || p->failed || q->skipped || q->failed) {
      const struct cli_point *x = p->skipped || p->failed ? p : q;
      printf("  %s: %s", x->skipped ? "skipped" : "failed", x->note);
      x->skipped ? t->skipped++ : t->failed++;
    }
    printf("\n");
  }
  t->points++;
  char wf[256], wr[256];
  winners(rw, 0, wf, sizeof wf);
  winners(rw, 1, wr, sizeof wr);
  size_t len = strlen(t->lines);
  char *out = t->lines + len, where[64];
  size_t room = sizeof t->lines - len;
  snprintf(where, sizeof where, data ? " m=%s" : "%.0s", sz); /* the barrier has no size */
  if (strcmp(wf, wr)) {
    t->winner++;
    snprintf(out, room, "%s P=%d%s: winner %s (fifo) -> %s (fair)\n", tutti_coll_name(coll), P,
             where, wf, wr);
  } else if (differ) {
    t->order++;
    snprintf(out, room, "%s P=%d%s: order changes; winner %s under both\n", tutti_coll_name(coll),
             P, where, wf);
  }
  return 0;
}

static int run_all(const char *profile, const int *want, const int *ranks, int nranks,
                   const size_t *sizes, int nsizes) {
  tutti_machine_t mach;
  int st = machine(profile, ranks[0], &mach);
  if (st) return st;
  char desc[256];
  tutti_model_describe(&mach.model, desc, sizeof desc);
  printf("profile  %s\nmodel    %s\n", profile ? profile : DEFAULT_NAME, desc);
  cli_print_topology(stdout, &mach, 9);
  printf("sharing  fifo, then fair (runtime/MODEL.md \"Sharing\"), whatever the profile says\n");
  tutti_machine_free(&mach);
  printf("\nOne call of each algorithm at its defaults, root 0, timing only; rank: 1 + the\n"
         "algorithms faster under that sharing; *: the rank changes.\n");
  struct row *rw = malloc(sizeof *rw);
  struct tally *t = calloc(1, sizeof *t);
  if (!rw || !t) {
    free(rw), free(t);
    fprintf(stderr, WHO ": out of memory\n");
    return 3;
  }
  for (int c = 0; c < TUTTI_COLL_N && !st; c++) {
    if (!want[c]) continue;
    int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0;
    printf("\n%s\n%5s %9s  %-26s %12s %5s %12s %5s\n", tutti_coll_name(c), "P", "size", "algorithm",
           "fifo", "rank", "fair", "rank");
    for (int k = 0; k < nranks && !st; k++) {
      int P = ranks[k];
      if ((st = machine(profile, P, &mach))) break;
      tutti_model_t m[2] = {mach.model, mach.model};
      m[0].sharing = TUTTI_SHARING_FIFO;
      m[1].sharing = TUTTI_SHARING_FAIR;
      tutti_config_t cfg[2];
      tutti_world_t *w[2] = {NULL, NULL};
      for (int s = 0; s < 2; s++) {
        cfg[s] = tutti_config_default(P);
        cfg[s].model = &m[s];
        cfg[s].flags |= TUTTI_NO_DATA;
        if (tutti_world_create(&w[s], &cfg[s])) {
          fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
          st = 3;
        }
      }
      for (int z = 0; z < (data ? nsizes : 1) && !st; z++)
        st = one(rw, c, P, data ? sizes[z] : 0, w, cfg, &mach.model, t);
      tutti_world_destroy(w[0]);
      tutti_world_destroy(w[1]);
      tutti_machine_free(&mach);
    }
  }
  if (!st) {
    printf("\nWhere the ranking changes (P, m):\n%s", t->lines[0] ? t->lines : "  nowhere\n");
    printf("sharing changes the winner at %d and only the order at %d of %d (collective, P, "
           "size)",
           t->winner, t->order, t->points);
    if (t->skipped) printf("; %d algorithm points skipped (restrictions)", t->skipped);
    if (t->failed) printf("; %d failed", t->failed);
    printf("\n");
    if (t->failed) st = 3;
  }
  free(rw);
  free(t);
  return st;
}

int tutti_bench_sharing(int argc, char **argv) {
  const char *ranks_text = NULL, *sizes_text = "1KiB,64KiB,1MiB", *profile = NULL;
  unsigned seen = 0;
  int want[TUTTI_COLL_N] = {0}, any = 0;
  for (int i = 0; i < argc; i++) {
    int o =
        bench_grid_opt(WHO, argc, argv, &i, &seen, &ranks_text, &sizes_text, &profile, "NAME|FILE");
    if (o == 1) {
      usage(stdout);
      return 0;
    } else if (o == 2) {
      return 2;
    } else if (o == 0) {
      int c;
      if (tutti_coll_find(argv[i], &c)) {
        char names[256] = "";
        for (int k = 0; k < TUTTI_COLL_N; k++)
          snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                   tutti_coll_name(k));
        fprintf(stderr, WHO ": unknown collective '%s'; accepted: %s\n", argv[i], names);
        return 2;
      }
      want[c] = any = 1;
    }
  }
  if (!any)
    for (int c = 0; c < TUTTI_COLL_N; c++) want[c] = 1;
  int *ranks = NULL, nranks = 0, nsizes = 0, st;
  size_t *sizes = NULL;
  /* the built-in machine has 64 hosts; a profile's own bounds its ranks
   * when its machine is built */
  if ((st = cli_parse_ranks(CMD, ranks_text ? ranks_text : "16,64",
                            profile ? 1 << 20 : MAX_DEFAULT_P, &ranks, &nranks)))
    return st;
  if ((st = cli_parse_sizes(CMD, sizes_text, &sizes, &nsizes))) return free(ranks), st;
  st = run_all(profile, want, ranks, nranks, sizes, nsizes);
  free(ranks), free(sizes);
  return st;
}
