/*
 * bench_lambda.c -- `tutti bench lambda`: Bernaschi & Iannello's
 * experiment (section 4 of "Efficient collective communication operations
 * in PVMe"), in modeled time. A reduce (sum) of doubles is called 10 times
 * in a row with the root moving each call (root = call mod P, so no call
 * pipelines into the next as it would with a fixed root); the time per
 * call is the last rank's finish over the number of calls -- the paper's
 * "greatest total elapsed time among the nodes" of 10 calls. The
 * lambda-tree (lambda = 0.6, the paper's value) is set against the
 * binomial tree for P = 2..128 on the SP2 profile (sp2-hps, Hockney) and
 * on the postal models of latency 2 and 4, for 1 and 1024 doubles.
 * Results are verified at every root. The summary also compares the
 * first call alone, which shows how much of a per-call gain comes from
 * consecutive calls overlapping (moving the root does not prevent all of it).
 *
 * Expect: in the postal model a message's latency is longer than its
 * sender's busy time, which is what lambda-trees exploit, so lambda-tree
 * wins at most sizes. Under Hockney (sp2-hps) latency and sending cost are
 * the same thing, and the binomial tree is already optimal: the lambda-tree
 * can only tie or lose. The paper's gains on the real SP2 came from the
 * part of the latency a sender does not pay, which Hockney does not have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tutti/tutti.h"

int tutti_bench_lambda(int argc, char **argv);

struct lrun {
  const tutti_algo_t *algo;
  long count;
  int calls;
};

static int lambda_rank(tutti_rank_t *r, void *arg) {
  const struct lrun *L = arg;
  int me = tutti_rank(r), P = tutti_size(r), rc = 0;
  double *x = malloc((size_t)L->count * sizeof *x), *y = malloc((size_t)L->count * sizeof *y);
  if (!x || !y) rc = TUTTI_ENOMEM;
  for (int k = 0; k < L->calls && !rc; k++) {
    int root = k % P;
    for (long i = 0; i < L->count; i++) x[i] = me + 0.5 * (double)i + k;
    rc = tutti_reduce(r, x, y, L->count, TUTTI_DOUBLE, TUTTI_SUM, root, L->algo);
    for (long i = 0; !rc && me == root && i < L->count; i++) /* exact: halves, small sums */
      if (y[i] != (double)P * (P - 1) / 2 + (double)P * (0.5 * (double)i + k)) rc = TUTTI_EVERIFY;
  }
  free(x);
  free(y);
  return rc;
}

/* Modeled time per call of `calls` reduces, and of the first call alone
 * (*first: runtime/MODEL.md rule 7, nothing to overlap with); negative error. */
static double per_call(tutti_world_t *w, const tutti_algo_t *a, long count, int calls,
                       double *first) {
  struct lrun L = {a, count, calls};
  int rc = tutti_world_run(w, lambda_rank, &L);
  if (rc) {
    fprintf(stderr, "tutti bench lambda: %s\n", tutti_world_error(w));
    return rc;
  }
  tutti_report_t rep;
  if ((rc = tutti_world_report(w, &rep))) return rc;
  *first = rep.ncalls ? rep.calls[0].time : 0;
  return rep.modeled_time / calls;
}

static int parse_list(const char *s, long *out, int max, long lo, long hi) {
  int n = 0;
  for (char *end; *s && n < max; s = *end ? end + 1 : end) {
    long v = strtol(s, &end, 10);
    if (end == s || (*end && *end != ',') || v < lo || v > hi) return -1;
    out[n++] = v;
  }
  return n;
}

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: tutti bench lambda [options]\n\n"
      "Bernaschi & Iannello's experiment in modeled time: 10 consecutive reduces\n"
      "(sum of doubles, root = call mod P), lambda-tree against binomial.\n\n"
      "  --profiles A,B,..  latency profiles (default sp2-hps,postal-2,postal-4)\n"
      "  --counts N,M,..    doubles per reduce (default 1,1024)\n"
      "  --ranks P,Q,..     rank counts (default 2-5,7-9,12,16,17,24,32,33,48,64,65,96,100,128)\n"
      "  --all              every rank count 2..128\n"
      "  --lambda X         the lambda-tree's lambda (default 0.6; auto fits the model)\n"
      "  --calls K          consecutive calls (default 10)\n");
}

struct stat_ {
  int win, lose, tie, best_p, worst_p;
  int win1, lose1; /* the first call alone */
  double best, worst, sum;
};

int tutti_bench_lambda(int argc, char **argv) {
  char profiles[512] = "sp2-hps,postal-2,postal-4", lambda[64] = "lambda=0.6", err[512];
  long counts[8] = {1, 1024},
       ranks[160] = {2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 32, 33, 48, 64, 65, 96, 100, 128};
  int ncounts = 2, nranks = 19, calls = 10;
  unsigned seen = 0;
  const char *who = "tutti bench lambda";
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--all")) {
      if (bench_once(who, &seen, 1u << 2, "--all or --ranks")) return 2;
      nranks = 0;
      for (int P = 2; P <= 128; P++) ranks[nranks++] = P;
    } else if ((v = bench_opt(argc, argv, &i, "--profiles"))) {
      if (bench_once(who, &seen, 1u << 0, "--profiles")) return 2;
      snprintf(profiles, sizeof profiles, "%s", v);
    } else if ((v = bench_opt(argc, argv, &i, "--counts"))) {
      if (bench_once(who, &seen, 1u << 1, "--counts")) return 2;
      if ((ncounts = parse_list(v, counts, 8, 0, 1 << 24)) <= 0) goto bad;
    } else if ((v = bench_opt(argc, argv, &i, "--ranks"))) {
      if (bench_once(who, &seen, 1u << 2, "--all or --ranks")) return 2;
      if ((nranks = parse_list(v, ranks, 160, 1, 4096)) <= 0) goto bad;
    } else if ((v = bench_opt(argc, argv, &i, "--lambda"))) {
      if (bench_once(who, &seen, 1u << 3, "--lambda")) return 2;
      snprintf(lambda, sizeof lambda, "lambda=%s", v);
    } else if ((v = bench_opt(argc, argv, &i, "--calls"))) {
      if (bench_once(who, &seen, 1u << 4, "--calls")) return 2;
      if ((calls = atoi(v)) < 1) goto bad;
    } else {
      fprintf(stderr, "tutti bench lambda: unknown option '%s' (see --help)\n", argv[i]);
      return 2;
    }
  }
  const tutti_algo_t *lam, *bin;
  if (tutti_algo_select(TUTTI_COLL_REDUCE, "lambda-tree", lambda, &lam, err, sizeof err) ||
      tutti_algo_select(TUTTI_COLL_REDUCE, "binomial", NULL, &bin, err, sizeof err)) {
    fprintf(stderr, "tutti bench lambda: %s\n", err);
    return 2;
  }
  char lname[96];
  tutti_algo_format(lam, lname, sizeof lname);
  printf("reduce (sum of doubles), %d consecutive calls, root = call mod P; time per call =\n"
         "the last rank's finish / %d. %s against binomial; ratio = lambda / binomial\n"
         "(below 1: the lambda-tree wins); 1call: the same ratio for the first call alone.\n",
         calls, calls, lname);

  char *save = NULL;
  for (char *prof = strtok_r(profiles, ",", &save); prof; prof = strtok_r(NULL, ",", &save)) {
    tutti_profile_t pr;
    if (tutti_profile_load(prof, &pr, err, sizeof err)) {
      fprintf(stderr, "tutti bench lambda: %s\n", err);
      return 2;
    }
    char desc[256];
    tutti_model_describe(&pr.model, desc, sizeof desc);
    printf("\n%s: %s\n%5s", pr.name, desc, "P");
    for (int j = 0; j < ncounts; j++) {
      char label[32];
      snprintf(label, sizeof label, "%ld double%s", counts[j], counts[j] == 1 ? "" : "s");
      printf(" | %-12s %10s %10s %6s %6s", label, "binomial", "lambda", "ratio", "1call");
    }
    printf("\n");
    struct stat_ st[8]; /* per count: wins, losses, ties, best and worst ratio and where */
    for (int j = 0; j < ncounts; j++) st[j] = (struct stat_){.best = 2};
    for (int i = 0; i < nranks; i++) {
      int P = (int)ranks[i];
      tutti_config_t cfg = tutti_config_default(P);
      cfg.model = &pr.model;
      tutti_world_t *w;
      if (tutti_world_create(&w, &cfg)) {
        fprintf(stderr, "tutti bench lambda: cannot create a world of %d ranks\n", P);
        return 3;
      }
      printf("%5d", P);
      for (int j = 0; j < ncounts; j++) {
        double fb, fl, tb = per_call(w, bin, counts[j], calls, &fb);
        double tl = per_call(w, lam, counts[j], calls, &fl);
        if (tb < 0 || tl < 0) {
          tutti_world_destroy(w);
          return tb == TUTTI_EVERIFY || tl == TUTTI_EVERIFY ? 1 : 3;
        }
        double q = tb > 0 ? tl / tb : 1;
        char sb[32], sl[32];
        tutti_format_model_time(&pr.model, tb, sb, sizeof sb);
        tutti_format_model_time(&pr.model, tl, sl, sizeof sl);
        printf(" | %-12s %10s %10s %6.3f %6.3f", "", sb, sl, q, fb > 0 ? fl / fb : 1);
        if (q < 1 - 1e-9)
          st[j].win++;
        else if (q > 1 + 1e-9)
          st[j].lose++;
        else
          st[j].tie++;
        if (q < st[j].best) st[j].best = q, st[j].best_p = P;
        if (q > st[j].worst) st[j].worst = q, st[j].worst_p = P;
        st[j].sum += q;
        st[j].win1 += fl < fb * (1 - 1e-9);
        st[j].lose1 += fl > fb * (1 + 1e-9);
      }
      printf("\n");
      fflush(stdout);
      tutti_world_destroy(w);
    }
    for (int j = 0; j < ncounts; j++) {
      printf("summary %s, %ld double%s: lambda-tree faster at %d of %d rank counts, slower at %d, "
             "equal at %d; best %.1f%% faster (P=%d)",
             pr.name, counts[j], counts[j] == 1 ? "" : "s", st[j].win, nranks, st[j].lose,
             st[j].tie, 100 * (1 - st[j].best), st[j].best_p);
      if (st[j].lose)
        printf(", worst %.1f%% slower (P=%d)", 100 * (st[j].worst - 1), st[j].worst_p);
      printf("; mean ratio %.3f; a single call alone: faster at %d, slower at %d\n",
             st[j].sum / nranks, st[j].win1, st[j].lose1);
    }
  }
  return 0;
bad:
  fprintf(stderr, "tutti bench lambda: bad option value (see tutti bench lambda --help)\n");
  return 2;
}
