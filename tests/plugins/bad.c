/*
 * bad.c -- test plugins that must not load, one per BAD_* case (the build
 * makes bad_<case>.so of each): no entry point, an ABI version from the
 * future or the past, names their collective has, bad parameter
 * declarations, an unknown collective, an entry point that fails, and a
 * good algorithm beside a bad one (neither is registered).
 */
#include <math.h>
#include <stddef.h>
#include <tutti/plugin.h>

static int bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                 const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r), P = tutti_size(r), rc = 0;
  if (tag < 0) return tag;
  if (tutti_rank(r) != root) return tutti_recv(r, buf, count, type, root, tag, NULL);
  for (int i = 0; i < P && !rc; i++)
    if (i != root) rc = tutti_send(r, buf, count, type, i, tag);
  return rc;
}

#define PARAM(nm, ty, d, lo, hi)                                                                   \
  { .name = nm, .type = ty, .def = d, .min = lo, .max = hi, .help = "a parameter" }
#define DESC(nm, np, ps)                                                                           \
  {                                                                                                \
    .abi = TUTTI_ALGO_ABI, .coll = TUTTI_COLL_BCAST, .name = nm, .fn.bcast = bcast, .nparams = np, \
    .params = ps, .summary = "flat", .source = "tests/plugins/bad.c"                               \
  }

#if defined(BAD_MINMAX)
static const tutti_param_desc_t ps[] = {PARAM("k", TUTTI_PARAM_INT, 5, 8, 2)};
static const tutti_algo_desc_t d = DESC("minmax", 1, ps);
#elif defined(BAD_DEFAULT)
static const tutti_param_desc_t ps[] = {PARAM("k", TUTTI_PARAM_INT, 99, 2, 8)};
static const tutti_algo_desc_t d = DESC("default", 1, ps);
#elif defined(BAD_DUPPARAM)
static const tutti_param_desc_t ps[] = {PARAM("k", TUTTI_PARAM_INT, 2, 2, 8),
                                        PARAM("k", TUTTI_PARAM_REAL, 0.5, 0, 1)};
static const tutti_algo_desc_t d = DESC("dupparam", 2, ps);
#elif defined(BAD_TYPE)
static const tutti_param_desc_t ps[] = {PARAM("k", 9, 2, 2, 8)};
static const tutti_algo_desc_t d = DESC("type", 1, ps);
#elif defined(BAD_COLL)
static tutti_algo_desc_t d = DESC("coll", 0, NULL);
#define FIX d.coll = 99
#elif defined(BAD_BUILTIN)
static const tutti_algo_desc_t d = DESC("binomial", 0, NULL);
#elif defined(BAD_TWINS)
static const tutti_algo_desc_t d = DESC("twin", 0, NULL), d2 = DESC("twin", 0, NULL);
#elif defined(BAD_PARTIAL)
static const tutti_param_desc_t ps[] = {PARAM("k", TUTTI_PARAM_INT, 2, 8, 2)};
static const tutti_algo_desc_t d = DESC("good", 0, NULL), d2 = DESC("partial", 1, ps);
#else
static const tutti_algo_desc_t d = DESC("fine", 0, NULL);
#endif

#if defined(BAD_NOENTRY)
int bad_entry(void); /* no TUTTI_PLUGIN: not a tutti plugin */
int bad_entry(void) {
  return d.nparams;
}
#elif defined(BAD_FUTURE) || defined(BAD_PAST)
TUTTI_PLUGIN_EXPORT extern const unsigned tutti_plugin_abi;
#ifdef BAD_FUTURE
TUTTI_PLUGIN_EXPORT const unsigned tutti_plugin_abi = TUTTI_ALGO_ABI + 1;
#else
TUTTI_PLUGIN_EXPORT const unsigned tutti_plugin_abi = TUTTI_ALGO_ABI - 1;
#endif
TUTTI_PLUGIN_EXPORT int tutti_plugin_init(tutti_plugin_t *p);
int tutti_plugin_init(tutti_plugin_t *p) {
  return tutti_plugin_add(p, &d);
}
#else
TUTTI_PLUGIN(p) {
#ifdef FIX
  FIX;
#endif
#ifdef BAD_INIT
  (void)p, (void)d;
  return -7;
#else
  int rc = tutti_plugin_add(p, &d);
#if defined(BAD_TWINS) || defined(BAD_PARTIAL)
  if (!rc) rc = tutti_plugin_add(p, &d2);
#endif
  return rc;
#endif
}
#endif
