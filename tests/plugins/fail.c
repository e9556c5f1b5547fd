/*
 * fail.c -- a test plugin whose bcasts fail at run time, each in its own
 * way: 'errs' returns an error on rank 1, 'hangs' has the rank after the
 * root wait for a second message the root never sends, 'undeclared' reads a parameter it does not
 * declare, 'corrupts' gets the last byte wrong on the last rank. Each run
 * must end with an error naming the rank, the algorithm and this file (or,
 * for 'corrupts', fail verification at that rank and element). And
 * 'miscounts' runs right but registers one message too many (P, where its
 * flat tree sends P - 1): tutti check must say so.
 */
#include <tutti/plugin.h>

static int tree(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root, int tag) {
  int P = tutti_size(r), me = tutti_rank(r), rc = 0; /* flat: the root sends to everyone */
  if (me != root) return tutti_recv(r, buf, count, type, root, tag, TUTTI_STATUS_IGNORE);
  for (int i = 0; i < P && !rc; i++)
    if (i != root) rc = tutti_send(r, buf, count, type, i, tag);
  return rc;
}

static int errs(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  int rc = tree(r, buf, count, type, root, tag);
  return rc ? rc : tutti_rank(r) == 1 ? TUTTI_EINVAL : 0;
}

static int hangs(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                 const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  int rc = tree(r, buf, count, type, root, tag);
  if (!rc && tutti_rank(r) == (root + 1) % tutti_size(r) && tutti_rank(r) != root)
    rc = tutti_recv(r, buf, count, type, root, tag, TUTTI_STATUS_IGNORE);
  return rc;
}

static int undeclared(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  long k = tutti_param_long(a, "fanout"); /* declared: k */
  (void)k;
  return tree(r, buf, count, type, root, tag);
}

static int corrupts(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                    const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  int rc = tree(r, buf, count, type, root, tag);
  size_t bytes = (size_t)count * tutti_type_size(type);
  if (!rc && bytes && tutti_rank(r) == tutti_size(r) - 1 && tutti_rank(r) != root) {
    unsigned char one = (unsigned char)(((unsigned char *)buf)[bytes - 1] + 1);
    rc = tutti_local_copy(r, (unsigned char *)buf + bytes - 1, &one, 1);
  }
  return rc;
}

static int miscounts(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                     const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  return tag < 0 ? tag : tree(r, buf, count, type, root, tag);
}

static double one_too_many(const tutti_algo_t *a, int P, int root, size_t m,
                           const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return P;
}

static const tutti_param_desc_t k = {
    .name = "k", .type = TUTTI_PARAM_INT, .def = 2, .min = 2, .max = 8, .help = "unused"};

#define DESC(id, nparams_, params_)                                                                \
  {                                                                                                \
    .abi = TUTTI_ALGO_ABI, .coll = TUTTI_COLL_BCAST, .name = #id, .fn.bcast = id,                  \
    .nparams = nparams_, .params = params_, .summary = "fails: " #id,                              \
    .source = "tests/plugins/fail.c"                                                               \
  }

static const tutti_algo_desc_t descs[] = {DESC(errs, 0, NULL),
                                          DESC(hangs, 0, NULL),
                                          DESC(undeclared, 1, &k),
                                          DESC(corrupts, 0, NULL),
                                          {.abi = TUTTI_ALGO_ABI,
                                           .coll = TUTTI_COLL_BCAST,
                                           .name = "miscounts",
                                           .fn.bcast = miscounts,
                                           .summary = "fails: one message too many counted",
                                           .source = "tests/plugins/fail.c",
                                           .msgs_fn = one_too_many}};

TUTTI_PLUGIN(p) {
  int rc = 0;
  for (size_t i = 0; i < sizeof descs / sizeof *descs && !rc; i++)
    rc = tutti_plugin_add(p, &descs[i]);
  return rc;
}
