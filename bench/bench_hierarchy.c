/*
 * bench_hierarchy.c -- `tutti bench hierarchy`: where two levels beat the
 * best flat algorithm, and by how much. Two machines of multicore hosts,
 * 16 hosts x 8 cores (tree:16x8, 128 ranks) and 64 hosts x 4 cores
 * (tree:64x4, 256 ranks), each with the same links: a core's own link to
 * its host 0.5 us / 20 GB/s, a host's link to the network 2 us / 10 GB/s
 * (--links, leaf links first). Each rank on its own core, in rank order,
 * so every host holds a range of ranks.
 *
 * For each machine, collective (bcast, reduce, allreduce, barrier) and
 * size (default 8 B, 64 KiB, 1 MiB; the barrier has none): one call of
 * every flat algorithm -- every registered algorithm of the collective
 * but hierarchical and auto, at its defaults -- and of hierarchical with
 * every pair of the words its inter and intra parameters accept (--intra
 * narrows the intra words). The table gives per row the best flat
 * algorithm and its time, the best two-level pair (inter/intra) and its
 * time, their ratio (above 1: two levels win) and how many pairs beat
 * the best flat one; a summary per machine and one for both.
 *
 * Every point is one call on fresh clocks in a timing-only world
 * (TUTTI_NO_DATA: the modeled times are those of a data run, bit for bit)
 * on fibers, run by the commands' own point runner (cli_point_run); an
 * algorithm whose restrictions the rank count breaks is skipped, and a
 * two-level pair whose inter cannot run on the leaders fails its point
 * alone: both are counted under the table. Ties go to the first in
 * registry order (flat) or in inter, then intra order (two levels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "tutti/tutti.h"

int tutti_bench_hierarchy(int argc, char **argv);

#define WHO "tutti bench hierarchy"
#define CMD "bench hierarchy" /* cli_fail's name of the command */
#define MAXW 16               /* words of a level's parameter */
#define MAXF 32               /* flat algorithms of a collective */
#define TIE 1e-12             /* relative: times this close are equal */

/* The endpoints: Hockney with a small alpha, the cores' bandwidth and
 * an eager limit. With a topology the links carry each message's bytes
 * and latency; the model adds L(0) = alpha once per message and keeps the
 * ports, each busy alpha + beta m per message (runtime/MODEL.md
 * "Topology"). alpha is a per-message software cost, well below every
 * link's latency: with none, a root would post any number of sends at no
 * cost, which no message library does, and a flat algorithm's P - 1
 * sends would be free. beta is the core's link's: a rank injects and
 * drains as fast as its own link carries, so the ports neither hide nor
 * add to what the links make of a message. Messages below 16 KiB go
 * eagerly, as message libraries send small ones (the infiniband-hdr
 * profile's limit); Hockney's own default, all rendezvous, would make
 * every 8-byte message wait for its receive to be posted. */
#define MODEL "hockney:alpha=0.1us,beta=0.05ns,eager_limit=16KiB"
#define LINKS "0.5us/20GB/s,2us/10GB/s"

static const struct {
  const char *name, *topology;
  int hosts, cores;
} machines[] = {{"16x8", "tree:16x8", 16, 8}, {"64x4", "tree:64x4", 64, 4}};
#define NMACH (int)(sizeof machines / sizeof *machines)

static const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_REDUCE, TUTTI_COLL_ALLREDUCE,
                            TUTTI_COLL_BARRIER};
#define NCOLL (int)(sizeof colls / sizeof *colls)

/* ------------------------------------------------------------ one message */

struct msg {
  int to;
  long m;
};

/* NO_DATA: the buffer is never touched, only its size counts (world.h) */
static char nothing[1];

static int one_message(tutti_rank_t *r, void *arg) {
  const struct msg *x = arg;
  int me = tutti_rank(r);
  if (me == 0) return tutti_send(r, nothing, x->m, TUTTI_BYTE, x->to, 0);
  if (me == x->to) return tutti_recv(r, nothing, x->m, TUTTI_BYTE, 0, 0, NULL);
  return 0;
}

/* The modeled time of one message of m bytes alone, rank 0 to `to`; negative error. */
static double message_time(tutti_world_t *w, int to, long m) {
  struct msg x = {to, m};
  int rc = tutti_world_run(w, one_message, &x);
  if (rc) {
    fprintf(stderr, WHO ": %s\n", tutti_world_error(w));
    return rc;
  }
  tutti_report_t rep;
  if ((rc = tutti_world_report(w, &rep))) return rc;
  return rep.modeled_time;
}

/* ------------------------------------------------------------ candidates */

/* The words of hierarchical's parameter `name` for coll, into w (NULL-
 * terminated); their count, 0 when coll has no hierarchical. */
static int level_words(int coll, const char *name, const char **w) {
  const tutti_algo_desc_t *d = tutti_algo_desc_find(coll, "hierarchical");
  int n = 0;
  for (int i = 0; d && i < d->nparams; i++)
    if (!strcmp(d->params[i].name, name) && d->params[i].choices)
      for (const char *const *c = d->params[i].choices; *c && n < MAXW - 1; c++) w[n++] = *c;
  w[n] = NULL;
  return n;
}

/* Is word among the intra words the user asked for (NULL: all)? */
static int wanted(const char *word, const char *list) {
  if (!list) return 1;
  size_t n = strlen(word);
  for (const char *s = list; *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : s + strlen(s))
    if (!strncmp(s, word, n) && (s[n] == ',' || !s[n])) return 1;
  return 0;
}

/* One (collective, size) row's points: the flat algorithms, then the
 * two-level pairs (inter-major). */
struct row {
  struct cli_point pt[MAXF + MAXW * MAXW];
  const char *inter[MAXF + MAXW * MAXW], *intra[MAXF + MAXW * MAXW];
  int nflat, n;
};

static int row_fill(struct row *rw, int coll, size_t bytes, const char *intra_list) {
  char err[512], params[128];
  const tutti_algo_desc_t *d;
  rw->nflat = rw->n = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) && rw->n < MAXF; i++) {
    if (d->coll != coll || tutti_algo_is_auto(d) || tutti_algo_is_two_level(d)) continue;
    struct cli_point *p = &rw->pt[rw->n];
    memset(p, 0, sizeof *p);
    if (tutti_algo_select(coll, d->name, NULL, &p->algo, err, sizeof err)) {
      fprintf(stderr, WHO ": %s: %s\n", d->name, err);
      return 3;
    }
    p->desc = d, p->coll = coll, p->bytes = bytes;
    rw->inter[rw->n] = rw->intra[rw->n] = NULL;
    rw->n++;
  }
  rw->nflat = rw->n;
  const char *inter[MAXW], *intra[MAXW];
  int ni = level_words(coll, "inter", inter), na = level_words(coll, "intra", intra);
  d = tutti_algo_desc_find(coll, "hierarchical");
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < na; k++) {
      if (!wanted(intra[k], intra_list)) continue;
      struct cli_point *p = &rw->pt[rw->n];
      memset(p, 0, sizeof *p);
      snprintf(params, sizeof params, "inter=%s,intra=%s", inter[i], intra[k]);
      if (tutti_algo_select(coll, "hierarchical", params, &p->algo, err, sizeof err)) {
        fprintf(stderr, WHO ": hierarchical:%s: %s\n", params, err);
        return 3;
      }
      p->desc = d, p->coll = coll, p->bytes = bytes;
      rw->inter[rw->n] = inter[i], rw->intra[rw->n] = intra[k];
      rw->n++;
    }
  return 0;
}

/* The first point of least time among pts[lo..hi) that ran; -1 if none did. */
static int best(const struct row *rw, int lo, int hi) {
  int b = -1;
  for (int k = lo; k < hi; k++) {
    const struct cli_point *p = &rw->pt[k];
    if (p->skipped || p->failed) continue;
    if (b < 0 || p->time < rw->pt[b].time * (1 - TIE)) b = k;
  }
  return b;
}

/* ------------------------------------------------------------ a machine */

struct tally {
  int rows, wins, ties;
  double top; /* the largest flat/two-level ratio */
  char top_at[64], where[1024], tied[512];
};

static void note_win(struct tally *t, const char *what, double q) {
  size_t len = strlen(t->where);
  snprintf(t->where + len, sizeof t->where - len, "%s%s", t->wins ? ", " : "", what);
  t->wins++;
  if (q > t->top) t->top = q, snprintf(t->top_at, sizeof t->top_at, "%s", what);
}

static int run_machine(int mi, const size_t *sizes, int nsizes, const char *intra_list,
                       struct tally *all) {
  const int P = machines[mi].hosts * machines[mi].cores;
  struct cli_opts o = {0};
  o.model = MODEL, o.topology = machines[mi].topology, o.links = LINKS, o.no_data = 1;
  tutti_machine_t mach;
  int st = cli_model(CMD, &o, P, &mach);
  if (st) return st;
  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = &mach.model;
  cli_config(&o, &cfg, 0); /* --no-data */
  tutti_world_t *w = NULL;
  struct row *rw = malloc(sizeof *rw);
  char desc[256], s1[32], s2[32], s3[32], s4[32];
  if (!rw || tutti_world_create(&w, &cfg)) {
    fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
    st = 3;
    goto out;
  }
  tutti_model_describe(&mach.model, desc, sizeof desc);
  printf("\n%s: %d hosts x %d cores, %d ranks (one per core, in rank order)\n", machines[mi].name,
         machines[mi].hosts, machines[mi].cores, P);
  printf("model        %s\n", desc);
  cli_print_topology(stdout, &mach, 13);
  /* what the links make of one message alone: a path's latency is the
   * sum of its links' (a core's link up and the other's down within a
   * host; and the two hosts' links between hosts) */
  double m0[2][2];
  const long msz[2] = {8, 1 << 20};
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < 2; k++)
      if ((m0[h][k] = message_time(w, h ? machines[mi].cores : 1, msz[k])) < 0) {
        st = 3;
        goto out;
      }
  printf("one message  within a host %s (8 B), %s (1 MiB); between hosts %s (8 B), %s (1 MiB)\n",
         tutti_format_model_time(&mach.model, m0[0][0], s1, sizeof s1),
         tutti_format_model_time(&mach.model, m0[0][1], s2, sizeof s2),
         tutti_format_model_time(&mach.model, m0[1][0], s3, sizeof s3),
         tutti_format_model_time(&mach.model, m0[1][1], s4, sizeof s4));
  printf("\n%-10s %8s  %-19s %11s  %-32s %11s %8s %6s\n", "collective", "size", "best flat", "time",
         "best two-level (inter/intra)", "time", "flat/2lv", "wins");
  struct tally t = {0};
  int skipped = 0, failed = 0;
  char notes[2048] = "";
  for (int c = 0; c < NCOLL; c++) {
    int coll = colls[c], data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
    for (int s = 0; s < (data ? nsizes : 1); s++) {
      size_t bytes = data ? sizes[s] : 0;
      if ((st = row_fill(rw, coll, bytes, intra_list))) goto out;
      for (int k = 0; k < rw->n; k++) {
        cli_point_run(&w, &cfg, P, &rw->pt[k]);
        const struct cli_point *p = &rw->pt[k];
        if (!p->skipped && !p->failed) continue;
        char spec[160];
        tutti_algo_format(p->algo, spec, sizeof spec);
        p->skipped ? skipped++ : failed++;
        size_t len = strlen(notes);
        /* each algorithm once: its reason is the same at every size */
        if (!strstr(notes, spec))
          snprintf(notes + len, sizeof notes - len, "  %s %s: %s\n",
                   p->skipped ? "skipped" : "failed", spec, p->note);
      }
      if (!w) {
        fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
        st = 3;
        goto out;
      }
      int f = best(rw, 0, rw->nflat), h = best(rw, rw->nflat, rw->n), beat = 0, pairs = 0;
      for (int k = rw->nflat; k < rw->n; k++) {
        const struct cli_point *p = &rw->pt[k];
        if (p->skipped || p->failed) continue;
        pairs++;
        beat += f >= 0 && p->time < rw->pt[f].time * (1 - TIE);
      }
      char sz[32] = "-", pair[80] = "-", what[64];
      if (data) tutti_format_bytes(bytes, sz, sizeof sz);
      if (h >= 0) snprintf(pair, sizeof pair, "%s/%s", rw->inter[h], rw->intra[h]);
      double q = f >= 0 && h >= 0 && rw->pt[h].time > 0 ? rw->pt[f].time / rw->pt[h].time : 0;
      snprintf(s1, sizeof s1, "-"), snprintf(s2, sizeof s2, "-");
      if (f >= 0) tutti_format_model_time(&mach.model, rw->pt[f].time, s1, sizeof s1);
      if (h >= 0) tutti_format_model_time(&mach.model, rw->pt[h].time, s2, sizeof s2);
      char wins[32], ratio[32] = "-";
      if (q > 0) snprintf(ratio, sizeof ratio, "%.3f", q);
      snprintf(wins, sizeof wins, "%d/%d", beat, pairs);
      printf("%-10s %8s  %-19s %11s  %-32s %11s %8s %6s\n", tutti_coll_name(coll), sz,
             f >= 0 ? rw->pt[f].desc->name : "-", s1, pair, s2, ratio, wins);
      fflush(stdout);
      t.rows++;
      snprintf(what, sizeof what, "%s%s%s", tutti_coll_name(coll), data ? " " : "", data ? sz : "");
      if (!beat && f >= 0 && h >= 0 && rw->pt[h].time <= rw->pt[f].time * (1 + TIE)) {
        size_t len = strlen(t.tied);
        snprintf(t.tied + len, sizeof t.tied - len, "%s%s", t.ties++ ? ", " : "", what);
      }
      if (beat) {
        note_win(&t, what, q);
        char at[80];
        snprintf(at, sizeof at, "%s %s", machines[mi].name, what);
        note_win(all, at, q);
      }
      all->rows++;
    }
  }
  if (skipped || failed)
    printf("%d points skipped, %d failed (each algorithm's first reason):\n%s", skipped, failed,
           notes);
  printf("summary %s: two levels win at ", machines[mi].name);
  if (t.wins)
    printf("%d of %d rows (%s), by up to %.2fx (%s)", t.wins, t.rows, t.where, t.top, t.top_at);
  else
    printf("none of %d rows", t.rows);
  /* a tie: the best flat algorithm runs as two levels do (a binomial tree
   * on hosts of 2^k consecutive ranks: each subtree of 2^k ranks is a host) */
  if (t.ties) printf("; tie with the best flat at %d (%s)", t.ties, t.tied);
  printf("\n");
out:
  if (w) tutti_world_destroy(w);
  free(rw);
  tutti_machine_free(&mach);
  return st;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f) {
  fprintf(f,
          "usage: tutti bench hierarchy [options]\n\n"
          "Where two levels beat the best flat algorithm: bcast, reduce, allreduce and\n"
          "barrier on 16 hosts x 8 cores (tree:16x8) and 64 hosts x 4 cores (tree:64x4),\n"
          "each with a core's links 0.5 us / 20 GB/s and a host's 2 us / 10 GB/s:\n"
          "  links  %s\n"
          "  model  %s (the endpoints)\n"
          "Modeled time of every flat algorithm and of hierarchical with every inter and\n"
          "intra word; per row the best of each, their ratio and the pairs that win.\n\n"
          "  --sizes LIST       bytes per rank (default 8,64KiB,1MiB; the barrier has none)\n"
          "  --intra LIST|all   intra words to pair with every inter: flat,binomial, ..\n"
          "                     (default all: every word each collective's intra takes)\n",
          LINKS, MODEL);
}

/* Is every word of list an intra word of some collective here? The first
 * that is not into bad. */
static int intra_ok(const char *list, char *bad, size_t n) {
  const char *w[MAXW];
  for (const char *s = list;; s++) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    int found = 0;
    for (int c = 0; c < NCOLL && !found; c++) {
      level_words(colls[c], "intra", w);
      for (int k = 0; w[k] && !found; k++)
        found = len && strlen(w[k]) == len && !strncmp(w[k], s, len);
    }
    if (!found) {
      snprintf(bad, n, "%.*s", (int)len, s);
      return 0;
    }
    if (!e) return 1;
    s = e;
  }
}

int tutti_bench_hierarchy(int argc, char **argv) {
  const char *intra = NULL; /* all */
  size_t defsizes[] = {8, 64 << 10, 1 << 20}, *sizes = defsizes, *given = NULL;
  int nsizes = 3, st = 0;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      free(given);
      return 0;
    } else if ((v = bench_opt(argc, argv, &i, "--sizes"))) {
      if (bench_once(WHO, &seen, 1u << 0, "--sizes")) return free(given), 2;
      if ((st = cli_parse_sizes(CMD, v, &given, &nsizes))) return st;
      sizes = given;
    } else if ((v = bench_opt(argc, argv, &i, "--intra"))) {
      if (bench_once(WHO, &seen, 1u << 1, "--intra")) return free(given), 2;
      char bad[64];
      if (!strcmp(v, "all"))
        intra = NULL;
      else if (!intra_ok(v, bad, sizeof bad)) {
        /* the words any of the collectives' intra takes, each once */
        char words[512] = "";
        const char *w[MAXW];
        for (int c = 0; c < NCOLL; c++) {
          level_words(colls[c], "intra", w);
          for (int k = 0; w[k]; k++) {
            size_t len = strlen(words);
            if (!wanted(w[k], words))
              snprintf(words + len, sizeof words - len, "%s%s", len ? "," : "", w[k]);
          }
        }
        fprintf(stderr, WHO ": --intra: '%s' is no intra word; accepted: all, or a list of %s\n",
                bad, words);
        free(given);
        return 2;
      } else
        intra = v;
    } else if (!strcmp(argv[i], "--sizes") || !strcmp(argv[i], "--intra")) {
      fprintf(stderr, WHO ": %s: missing its value; accepted: %s LIST\n", argv[i], argv[i]);
      free(given);
      return 2;
    } else {
      fprintf(stderr, WHO ": unknown option '%s'; accepted: --sizes, --intra (see --help)\n",
              argv[i]);
      free(given);
      return 2;
    }
  }
  printf("One call per algorithm on fresh clocks, modeled, timing only. best flat: the fastest\n"
         "registered algorithm but hierarchical and auto, at its defaults; best two-level: the\n"
         "fastest hierarchical:inter=X,intra=Y over every inter word and %s%s;\n"
         "flat/2lv: the first time over the second (above 1: two levels win); wins: the pairs\n"
         "faster than the best flat algorithm, of those that ran; ties go to the first\n"
         "registered (flat) or the first inter, then intra (two levels).\n"
         "The model is the endpoints': a cost alpha per message, the cores' bandwidth, eager\n"
         "below 16 KiB. The links carry each message's latency and bytes, a path's latency\n"
         "the sum of its links' (a host's ranks: 2 core links; hosts: 2 core, 2 host links).\n",
         intra ? "intra " : "every intra word", intra ? intra : "");
  struct tally all = {0};
  for (int mi = 0; mi < NMACH && !st; mi++) st = run_machine(mi, sizes, nsizes, intra, &all);
  if (!st && all.wins)
    printf("\nsummary: two levels win at %d of %d rows (%s), by up to %.2fx (%s)\n", all.wins,
           all.rows, all.where, all.top, all.top_at);
  else if (!st)
    printf("\nsummary: two levels win at none of %d rows\n", all.rows);
  free(given);
  return st;
}
