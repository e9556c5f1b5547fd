/*
 * lab5-kary.c -- a broadcast written outside tutti: a k-ary tree.
 * (Written by `tutti new bcast kary`; tutti runs it as it is.)
 *
 * Idea: number the ranks from the root, v = (rank - root) mod P; they
 * form a k-ary heap: v's parent is (v-1)/k, its children are k*v+1 ..
 * k*v+k. A rank receives the message from its parent, then sends it to
 * its children one after the other.
 *
 * Source: the k-ary tree of any algorithms textbook; k = 2 is Open MPI's
 * binary tree broadcast (tutti's bcast 'binary').
 *
 * Cost under Hockney (c = alpha + beta m for an m-byte message): a rank's
 * sends leave one after the other, so the i-th child of a parent (i = 1..k)
 * has the message i c after its parent; the broadcast takes the largest
 * sum of such steps on a path from the root (kary_cost adds them
 * up): at most 2 floor(log2 P) c for k = 2.
 *
 * Try it:
 *   tutti run bcast lab5-kary.c -n 16 -m 64KiB
 *   tutti run bcast lab5-kary.c:k=4 -n 16
 *   tutti check bcast lab5-kary.c         the correctness sweep, the cost against the engine
 *   tutti compare bcast binomial lab5-kary.c -n 16 --html page.html
 *
 * What to change: the tree is parent() and the loop over children in
 * kary_bcast; a new parameter is a field of struct params and
 * an entry of params[] below; keep kary_cost and _msgs in step with the
 * algorithm (tutti check compares them).
 */
#include <stdlib.h>
#include <tutti/plugin.h>

/* The algorithm's parameters, filled in by tutti from "kary:k=4". */
struct params {
  long k; /* children per rank */
};

static int kary_bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                               int root, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  const struct params *p = tutti_algo_params(a);
  long P = tutti_size(r), k = p->k;
  long v = (tutti_rank(r) - root + P) % P; /* my number in the tree */
  int rc = 0;
  if (v > 0) { /* from my parent */
    int parent = (int)(((v - 1) / k + root) % P);
    rc = tutti_recv(r, buf, count, type, parent, tag, TUTTI_STATUS_IGNORE);
    if (rc) return rc;
  }
  tutti_request_t req[64]; /* k <= 64 (its range below) */
  int n = 0;
  for (long c = k * v + 1; c <= k * v + k && c < P && !rc; c++) /* to my children, in turn */
    rc = tutti_isend(r, buf, count, type, (int)((c + root) % P), tag, &req[n++]);
  int rc2 = n ? tutti_waitall(r, n, req, NULL) : 0;
  return rc ? rc : rc2;
}

/* The Hockney time of the algorithm for P ranks and m bytes: the latest
 * rank to have the message. *bound = 0: exact, as tutti's engine times it. */
static double kary_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound) {
  (void)root;
  const struct params *p = tutti_algo_params(a);
  double c = h->alpha + h->beta * (double)m, worst = 0;
  for (long v = 1; v < P; v++) {
    double t = 0;
    for (long u = v; u > 0; u = (u - 1) / p->k) t += (double)((u - 1) % p->k + 1) * c;
    if (t > worst) worst = t;
  }
  *bound = 0;
  return worst;
}

/* The messages one call sends, all ranks together: a message a tree edge. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double kary_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return P - 1;
}

static const tutti_param_desc_t params[] = {
    {.name = "k",
     .type = TUTTI_PARAM_INT,
     .def = 3,
     .min = 2,
     .max = 64,
     .help = "children per rank",
     .offset = offsetof(struct params, k)},
};

static const tutti_algo_desc_t kary = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_BCAST,
    .name = "kary",
    .fn.bcast = kary_bcast,
    .nparams = 1,
    .params = params,
    .params_size = sizeof(struct params),
    .summary = "k-ary tree: a rank receives from its parent, then sends to its k children in turn",
    .source = "the k-ary tree (k = 2: Open MPI's binary tree)",
    .cost = "sum of i (alpha + beta m) along the slowest path; 2 floor(log2 P)(...) for k = 2",
    .cost_fn = kary_cost,
    .msgs_fn = kary_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &kary);
}
