/*
 * cli_explain_forms.c -- the closed forms `tutti explain` evaluates for
 * the postal, LogP and LogGP presets (cli_explain_cost.c prints them;
 * its header comment says which): the ranks' times followed down and up
 * an algorithm's tree, and the round counts of the exchange algorithms.
 * Each is exact where it is given (tests/test_e2e_explain_cost.c holds
 * every one against the engine); where none is known, f->none says why.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"

/* ------------------------------------------------------------ trees */

/* The tree of a tree algorithm, relative to root 0: kids[first[v] ..
 * first[v+1]) in send order, n[v] its subtree's size, ord[] parents
 * before children. */
struct tree {
  int P, *first, *kids, *n, *ord;
};

static void tree_free(struct tree *t) {
  free(t->first), free(t->kids), free(t->n), free(t->ord);
}

static int tree_make(const tutti_treespec_t *spec, int P, struct tree *t) {
  t->P = P;
  t->first = calloc((size_t)P + 1, sizeof *t->first);
  t->kids = malloc((size_t)P * sizeof *t->kids);
  t->n = malloc((size_t)P * sizeof *t->n);
  t->ord = malloc((size_t)P * sizeof *t->ord);
  if (!t->first || !t->kids || !t->n || !t->ord) return tree_free(t), -1;
  int used = 0;
  for (int v = 0; v < P; v++) {
    int nc = 0;
    if (tutti_tree_node(spec, v, P, 0, NULL, t->kids + used, P - used, &nc) ||
        tutti_tree_subtree_size(spec, v, P, 0, &t->n[v]))
      return tree_free(t), -1;
    t->first[v] = used;
    used += nc;
  }
  t->first[P] = used;
  int head = 0, tail = 0;
  t->ord[tail++] = 0;
  while (head < tail && tail <= P) {
    int v = t->ord[head++];
    for (int i = t->first[v]; i < t->first[v + 1] && tail < P; i++) t->ord[tail++] = t->kids[i];
  }
  return tail == P ? 0 : (tree_free(t), -1);
}

/* An eager model's costs at one message size (runtime/MODEL.md). */
struct costs {
  double Os, S, L, R, Or;
};

static struct costs costs_at(const tutti_model_t *m, double bytes) {
  bytes += (double)m->header; /* every cost at m + header (runtime/MODEL.md) */
  return (struct costs){tutti_cost_eval(&m->send_cpu, bytes), tutti_cost_eval(&m->send_port, bytes),
                        tutti_cost_eval(&m->latency, bytes), tutti_cost_eval(&m->recv_port, bytes),
                        tutti_cost_eval(&m->recv_cpu, bytes)};
}

/* Down the tree, all eager (rules 1, 2, 4), from time t0 at the root: a
 * rank that has its data at t starts its children's sends one after the
 * other, S apart; a child's port serves its one message on arrival (not
 * before R), and the receive completes O_r later. The latest of every
 * rank's data and every send's return. Message bytes: m (bcast), or the
 * child's subtree's blocks of m (scatter). */
static double down(const struct tree *t, const tutti_model_t *md, double m, int scatter, double t0,
                   double *have) {
  double T = t0;
  have[0] = t0;
  for (int k = 0; k < t->P; k++) {
    int v = t->ord[k];
    double s = have[v];
    for (int i = t->first[v]; i < t->first[v + 1]; i++) {
      int c = t->kids[i];
      struct costs x = costs_at(md, scatter ? m * t->n[c] : m);
      have[c] = fmax(s + x.L, x.R) + x.Or;
      T = fmax(T, fmax(have[c], s + x.Os));
      s += x.S;
    }
  }
  return T;
}

/* Up the tree, postal (O_r = 0): a rank done at t sends to its parent at
 * once, arriving L later; a parent's port takes one arrival a step, in
 * arrival order; a rank is done when its port has taken its children's.
 * The root's time. */
static double up(const struct tree *t, double L, double *done) {
  double *at = malloc((size_t)t->P * sizeof *at);
  if (!at) return NAN;
  for (int k = t->P - 1; k >= 0; k--) {
    int v = t->ord[k], nc = 0;
    for (int i = t->first[v]; i < t->first[v + 1]; i++) {
      double x = done[t->kids[i]] + L;
      int j = nc++;
      while (j > 0 && at[j - 1] > x) at[j] = at[j - 1], j--;
      at[j] = x;
    }
    double e = 0;
    for (int i = 0; i < nc; i++) e = fmax(at[i], e + 1);
    done[v] = e;
  }
  free(at);
  return done[0];
}

/* ------------------------------------------------------------ postal forms */

static int ceil_log(long P, long k) {
  int r = 0;
  for (long d = 1; d < P; d *= k) r++;
  return r;
}

static int floor_log2(long P) {
  int r = 0;
  while ((2L << r) <= P) r++;
  return r;
}

/* The postal closed forms of the exchange algorithms (built-ins, by name). */
static void postal_named(const struct cli_job *j, const tutti_explain_t *ex, int P, double L,
                         struct xform *f) {
  const tutti_algo_desc_t *d = tutti_algo_desc(j->algo);
  const char *n = d->name;
  int pow2 = !(P & (P - 1)), lg = floor_log2(P);
#define IS(c, name) (j->coll == TUTTI_COLL_##c && !strcmp(n, name))
  if (!pow2 && (IS(ALLREDUCE, "recursive-doubling") || IS(BARRIER, "recursive-doubling") ||
                IS(ALLREDUCE, "rabenseifner") || IS(REDUCE_SCATTER, "recursive-halving") ||
                IS(ALLGATHER, "recursive-doubling")))
    f->none = "P is not a power of two: its extra ranks fold in and out";
  if (IS(ALLREDUCE, "ring")) {
    f->text = "2(P-1) L: 2(P-1) rounds, each rank sending one message a round, L steps each";
    f->t = 2.0 * (P - 1) * L;
  } else if (IS(ALLGATHER, "ring") || IS(REDUCE_SCATTER, "ring")) {
    f->text = "(P-1) L: P-1 rounds, each rank sending one message a round, L steps each";
    f->t = (P - 1) * L;
  } else if (IS(ALLGATHER, "bruck")) {
    f->text = "ceil(log2 P) L: one message a rank a round, L steps each";
    f->t = ceil_log(P, 2) * L;
  } else if (IS(ALLGATHER, "recursive-doubling") && pow2) {
    f->text = "log2 P L: an exchange with one partner a round, L steps each";
    f->t = lg * L;
  } else if ((IS(ALLREDUCE, "recursive-doubling") || IS(BARRIER, "recursive-doubling")) && pow2) {
    f->text = "log2 P L: an exchange with one partner a round, L steps each";
    f->t = lg * L;
  } else if (IS(ALLREDUCE, "rabenseifner") && pow2) {
    f->text = "2 log2 P L: recursive halving, then doubling, one exchange a round";
    f->t = 2.0 * lg * L;
  } else if (IS(REDUCE_SCATTER, "recursive-halving") && pow2) {
    f->text = "log2 P L: one exchange a round, L steps each";
    f->t = lg * L;
  } else if (IS(BARRIER, "dissemination")) {
    long k = (long)tutti_algo_param(j->algo, "k"), most = 0;
    double t = 0;
    for (long dd = 1; dd < P; dd *= k) {
      long nr = (P + dd - 1) / dd - 1;
      nr = nr < k - 1 ? nr : k - 1;
      t += (double)nr - 1 + L, most++;
    }
    f->text = "sum over its rounds of (n_r - 1 + L): n_r = min(k-1, ceil(P/k^r) - 1) sends a "
              "round leave one step apart, the last arriving L later";
    f->t = t;
    snprintf(f->note, sizeof f->note, "%ld round%s, k = %ld", most, most == 1 ? "" : "s", k);
  } else if (IS(BARRIER, "fibonacci")) {
    double pl = tutti_algo_param(j->algo, "L");
    int Lp = isnan(pl) ? (int)L : (int)pl, fp = tutti_postal_f((int)L, P);
    f->text = "f_L(P): by step t a rank has heard from F_L(t) ranks, the optimal broadcast's "
              "count, which no barrier can beat";
    if (Lp == (int)L && fp >= 0) f->t = fp;
  } else if (IS(BCAST, "pipelined-chain")) {
    long S = 0;
    for (size_t i = 0; i < ex->nmsgs; i++) S += ex->msgs[i].src == j->root;
    f->text = "(S - 1) + (P - 1) L: the root's S segments leave one step apart, each L steps "
              "a hop down the P-1 hops of the chain";
    f->t = (double)(S - 1) + (P - 1) * L;
    snprintf(f->note, sizeof f->note, "S = %ld segment%s", S, S == 1 ? "" : "s");
  }
#undef IS
}

/* Postal: the closed form for this run, or f->text NULL. */
void cli_explain_postal_form(const struct cli_job *j, const tutti_model_t *m,
                             const tutti_explain_t *ex, int P, size_t bytes, struct xform *f) {
  const tutti_algo_desc_t *d = tutti_algo_desc(j->algo);
  double L = m->params[0];
  f->t = NAN;
  f->none = "its time is measured only";
  if (!tutti_algo_builtin(d)) return;
  if (P == 1) {
    f->text = "0: one rank sends nothing";
    f->t = 0;
    return;
  }
  if (!d->tree) {
    if (!strcmp(d->name, "auto")) {
      f->none = "auto chooses by Hockney cost; explain the algorithm it chose";
      return;
    }
    int blocks = 0; /* a pipelined allreduce's parameter */
    for (int i = 0; i < d->nparams; i++) blocks |= !strcmp(d->params[i].name, "blocks");
    if (blocks) {
      f->none = "a pipeline of blocks whose exchanges interleave, which no form here follows";
      return;
    }
    int tour = j->coll == TUTTI_COLL_BARRIER && !strcmp(d->name, "tournament");
    if (tour || (j->coll == TUTTI_COLL_ALLREDUCE && !strcmp(d->name, "reduce-bcast"))) {
      tutti_treespec_t spec = tutti_treespec_default(TUTTI_TREE_BINOMIAL);
      double seg = tutti_algo_param(j->algo, "segment");
      if (seg > 0 && seg < bytes) {
        f->none = "pipelined in segments, which interleave";
        return;
      }
      struct tree t;
      if (tree_make(&spec, P, &t)) return;
      double *a = malloc((size_t)P * sizeof *a);
      if (a) {
        double u = up(&t, L, a);
        f->t = down(&t, m, tour ? 0 : (double)bytes, 0, u, a);
        f->text = tour ? "U_L(P) + T_L(P) on the binomial tree (its matches are the tree's "
                         "edges): up, each rank's port taking one arrival a step, then the "
                         "release down, a rank sending one a step, L each"
                       : "U_L(P) + T_L(P) on the binomial tree: up, each rank's port taking one "
                         "arrival a step, then down, a rank sending its children one a step, L "
                         "each";
      }
      free(a);
      tree_free(&t);
      return;
    }
    f->none = "its second phase starts at each rank's own time, which no form here follows";
    postal_named(j, ex, P, L, f);
    return;
  }
  double seg = tutti_algo_param(j->algo, "segment");
  if (seg > 0 && seg < bytes) { /* pipelined: no form here */
    f->none = "pipelined in segments, which interleave";
    return;
  }
  if (j->coll == TUTTI_COLL_REDUCE && m->gamma > 0) {
    f->none = "its reductions' gamma m, in the order the ranks receive";
    return;
  }
  tutti_treespec_t spec;
  struct tree t;
  if (cli_job_tree(j, m, bytes, &spec) || tree_make(&spec, P, &t)) return;
  double *a = malloc((size_t)P * sizeof *a);
  if (a) {
    long T1 = 0;
    int opt = tutti_postal_f((int)L, P);
    switch (j->coll) {
    case TUTTI_COLL_BCAST:
    case TUTTI_COLL_SCATTER:
      f->text = "T_L(P): down the tree, a rank that has the message at t starts its i-th send "
                "at t + i (i from 0), which arrives at t + i + L";
      f->t = down(&t, m, (double)bytes, j->coll == TUTTI_COLL_SCATTER, 0, a);
      if (opt >= 0 && !tutti_tree_postal_time(&spec, P, 1, &T1))
        snprintf(f->note, sizeof f->note, "this tree's T_1(%d) = %ld; the optimum f_%g(%d) = %d", P,
                 T1, L, P, opt);
      break;
    case TUTTI_COLL_REDUCE:
    case TUTTI_COLL_GATHER:
      f->text = "U_L(P): up the tree, a rank done at t sends to its parent, arriving at t + L; "
                "a rank's port takes one arrival a step, in arrival order";
      f->t = up(&t, L, a);
      break;
    case TUTTI_COLL_BARRIER: {
      f->text = "U_L(P) + T_L(P): an empty reduce up the tree, then an empty broadcast down";
      double u = up(&t, L, a);
      f->t = down(&t, m, 0, 0, u, a);
      break;
    }
    }
  }
  free(a);
  tree_free(&t);
}

/* LogP and LogGP: down a tree (bcast, scatter), unsegmented. */
void cli_explain_logp_form(const struct cli_job *j, const tutti_model_t *m, int P, size_t bytes,
                           struct xform *f) {
  const tutti_algo_desc_t *d = tutti_algo_desc(j->algo);
  f->t = NAN;
  f->none = "the forms here are a broadcast's and a scatter's down a tree, unsegmented";
  if (!tutti_algo_builtin(d) || !d->tree ||
      (j->coll != TUTTI_COLL_BCAST && j->coll != TUTTI_COLL_SCATTER))
    return;
  double seg = tutti_algo_param(j->algo, "segment");
  if (seg > 0 && seg < bytes) return;
  tutti_treespec_t spec;
  struct tree t;
  if (cli_job_tree(j, m, bytes, &spec) || tree_make(&spec, P, &t)) return;
  double *a = malloc((size_t)P * sizeof *a);
  if (a) {
    f->text = m->preset == TUTTI_MODEL_LOGP
                  ? "down the tree, a rank that has the message at t starts its i-th send at "
                    "t + i max(g, o) (i from 0); the child has it o + L + o after the start"
                  : "down the tree, a rank that has the message at t starts its i-th send at "
                    "t + i max(g, o + G m) (i from 0); the child has it o + G m + L + o after "
                    "the start";
    f->t = down(&t, m, (double)bytes, j->coll == TUTTI_COLL_SCATTER, 0, a);
  }
  free(a);
  tree_free(&t);
}
