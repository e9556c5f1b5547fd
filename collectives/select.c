/*
 * select.c -- choosing an algorithm of the registry (registry.c) and
 * reading its parameters: tutti_algo_select() parses "name:k=v,k=v" once
 * into a handle (algo.h) that holds the values and the algorithm's own
 * typed struct, errors list what is accepted, and the per-call checks
 * (tutti_algo_check_call) test what only a call knows (the rank count,
 * the root, the message size). Any thread, any time.
 *
 * Handles are interned: one per distinct (algorithm, values), made under
 * a lock the first time it is selected and kept for the process's life,
 * so a selection is a pointer that compares by identity (a rank's call
 * plan keys on it) and is freely shared.
 *
 * Selection: an explicit name, else the collective's environment variable
 * (TUTTI_BCAST=lambda-tree:lambda=0.7), else the collective's default
 * (registry.c's `defaults`). A name matches exactly, or as an unambiguous
 * leading part ending at a '-' of a registered name: "lambda" is
 * "lambda-tree", "postal" "postal-optimal".
 *
 * Parameter values: REAL and INT as C numbers, SIZE as tutti_parse_size
 * ("8KiB"), CHOICE as one of its words ("dfs"; a word ending in ':' takes a
 * rank list, "list:0,2,1,3", whose commas do not end the value), and
 * "auto" where the parameter allows it (the algorithm then chooses per run,
 * from the model: bit set in is_auto, NAN or TUTTI_PARAM_AUTO in the typed
 * field). Values are parsed once, here, into the algorithm's typed
 * struct, which is what it reads. Ranges are inclusive; lambda's
 * upper bound is the double just below 1 and is shown as "[0.5, 1)".
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "engine.h"
#include "tutti/coll.h"
#include "tutti/units.h"

/* ----------------------------------------------------------------- lookup */

/* Exact name, else the one name that starts with `name` followed by '-'. */
static const tutti_algo_desc_t *find_name(int coll, const char *name, size_t len) {
  const tutti_algo_desc_t *hit = NULL;
  int nhits = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != coll || strncmp(d->name, name, len)) continue;
    if (d->name[len] == '\0') return d;
    if (d->name[len] == '-') hit = d, nhits++;
  }
  return nhits == 1 ? hit : NULL;
}

/* ----------------------------------------------------------------- errors */

void tutti__errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static void fmt_num(double x, char *buf, size_t n) {
  tutti_format_shortest(x, buf, n);
}

int tutti_param_range(const tutti_param_desc_t *p, char *buf, size_t n) {
  if (!p || !buf || !n) return TUTTI_EINVAL;
  if (p->type == TUTTI_PARAM_CHOICE) { /* "one of rank, dfs, list:R,R,..." */
    size_t used = (size_t)snprintf(buf, n, "one of ");
    for (int w = 0; p->choices && p->choices[w] && used < n; w++) {
      const char *word = p->choices[w];
      int colon = word[strlen(word) - 1] == ':';
      used += (size_t)snprintf(buf + used, n - used, "%s%s%s", w ? ", " : "", word,
                               colon ? "R,R,... (ranks or ranges a-b)" : "");
    }
    return 0;
  }
  char lo[32], hi[32], up[32];
  fmt_num(p->min, lo, sizeof lo);
  if (isinf(p->max)) {
    snprintf(buf, n, ">= %s", lo);
    return 0;
  }
  fmt_num(p->max, hi, sizeof hi);
  fmt_num(nextafter(p->max, INFINITY), up, sizeof up);
  /* an upper bound that is the double just below a short number is shown
   * as that number, open: lambda's [0.5, 1) */
  if (strlen(hi) > 12 && strlen(up) <= 6)
    snprintf(buf, n, "in [%s, %s)", lo, up);
  else
    snprintf(buf, n, "in [%s, %s]", lo, hi);
  return 0;
}

/* "a number in [0.5, 1) or auto" */
static void fmt_accepted(const tutti_param_desc_t *p, char *buf, size_t n) {
  char range[512]; /* a choice's words */
  if (p->type == TUTTI_PARAM_CHOICE) {
    tutti_param_range(p, range, sizeof range);
    snprintf(buf, n, "%s%s", range, p->flags & TUTTI_PARAM_AUTO_OK ? ", or auto" : "");
    return;
  }
  tutti_param_range(p, range, sizeof range);
  const char *what = p->type == TUTTI_PARAM_REAL  ? "a number"
                     : p->type == TUTTI_PARAM_INT ? "an integer"
                                                  : "a size in bytes (e.g. 8KiB)";
  snprintf(buf, n, "%s %s%s", what, range, p->flags & TUTTI_PARAM_AUTO_OK ? " or auto" : "");
}

static void list_names(int coll, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) && used < n; i++) {
    if (d->coll != coll) continue;
    int k = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", d->name);
    if (k < 0) break;
    used += (size_t)k;
  }
}

static void list_params(const tutti_algo_desc_t *d, char *buf, size_t n) {
  size_t used = 0;
  if (d->nparams == 0) {
    snprintf(buf, n, "none (%s takes no parameters)", d->name);
    return;
  }
  buf[0] = '\0';
  for (int i = 0; i < d->nparams && used < n; i++) {
    int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", d->params[i].name);
    if (k < 0) break;
    used += (size_t)k;
  }
}

/* ------------------------------------------------------------ rank lists */

/* A rank list "0,2-5,9-7" (spaces ignored): writes its ranks in order to
 * out[0..cap) and returns how many there are (also past cap), or -1 when
 * it is not such a list. Ranks are 0..2^30; a range a-b runs down when
 * a > b. */
long tutti__rank_list(const char *list, int *out, long cap) {
  /* the one reader of rank lists, which --mapping list: shares (units.h) */
  return tutti_parse_rank_list(list, 1L << 30, out, cap, NULL);
}

/* -------------------------------------------------------------- selection */

static int param_find(const tutti_algo_desc_t *d, const char *key, size_t len) {
  for (int i = 0; i < d->nparams; i++)
    if (strlen(d->params[i].name) == len && !strncmp(d->params[i].name, key, len)) return i;
  return -1;
}

/* What a selection holds before it is interned. */
struct values {
  unsigned is_auto;
  double value[TUTTI_MAX_PARAMS];
  char list[TUTTI_MAX_PARAMS][TUTTI_PARAM_LIST_MAX]; /* "" unless a word ending in ':' */
};

/* Parse one value: 0, or TUTTI_EINVAL with the message. */
static int parse_value(const char *who, const tutti_param_desc_t *p, const char *v,
                       struct values *a, int i, char *err, size_t errlen) {
  char acc[640];
  fmt_accepted(p, acc, sizeof acc);
  a->list[i][0] = '\0';
  if (!strcmp(v, "auto")) {
    if (!(p->flags & TUTTI_PARAM_AUTO_OK)) {
      tutti__errf(err, errlen, "%s: parameter '%s' does not take auto; accepted: %s", who, p->name,
                  acc);
      return TUTTI_EINVAL;
    }
    a->value[i] = NAN;
    a->is_auto |= 1u << i;
    return 0;
  }
  double x;
  char *end = NULL;
  errno = 0;
  if (p->type == TUTTI_PARAM_CHOICE) {
    for (int w = 0; p->choices[w]; w++) {
      const char *word = p->choices[w];
      size_t wl = strlen(word);
      if (word[wl - 1] != ':') {
        if (strcmp(v, word)) continue;
      } else {
        if (strncmp(v, word, wl)) continue;
        /* the rank list, kept without spaces (the canonical spelling) */
        char list[TUTTI_PARAM_LIST_MAX];
        size_t k = 0;
        for (const char *c = v + wl; *c; c++)
          if (*c != ' ' && k + 1 < sizeof list) list[k++] = *c;
        list[k] = '\0';
        if (strlen(v + wl) >= sizeof list) {
          tutti__errf(
              err, errlen,
              "%s: parameter '%s': the list is too long (%zu characters); accepted: at most %d "
              "(ranges a-b shorten it)",
              who, p->name, strlen(v + wl), TUTTI_PARAM_LIST_MAX - 1);
          return TUTTI_EINVAL;
        }
        if (tutti__rank_list(list, NULL, 0) < 0) goto bad;
        memcpy(a->list[i], list, k + 1);
      }
      a->value[i] = w;
      a->is_auto &= ~(1u << i);
      return 0;
    }
    goto bad;
  }
  if (p->type == TUTTI_PARAM_SIZE) {
    size_t sz;
    if (tutti_parse_size(v, &sz, NULL, 0)) goto bad;
    /* cut to 2^63: a size near SIZE_MAX rounds up to 2^64 as a double, which
     * no later conversion back could hold; no message is that large, so the
     * segmenting is the same */
    x = sz > (size_t)1 << 63 ? 0x1p63 : (double)sz;
  } else if (p->type == TUTTI_PARAM_INT) {
    long long k = strtoll(v, &end, 10);
    if (end == v || *end || errno) goto bad;
    x = (double)k;
  } else {
    x = strtod(v, &end);
    if (end == v || *end || !isfinite(x)) goto bad;
  }
  if (!(x >= p->min && x <= p->max)) {
    tutti__errf(err, errlen, "%s: parameter '%s': '%s' is out of range; accepted: %s", who, p->name,
                v, acc);
    return TUTTI_EINVAL;
  }
  a->value[i] = x == 0 ? 0 : x; /* -0 is 0: one handle for equal values */
  a->is_auto &= ~(1u << i);
  return 0;
bad:
  tutti__errf(err, errlen, "%s: parameter '%s': '%s' is not valid; accepted: %s", who, p->name, v,
              acc);
  return TUTTI_EINVAL;
}

/* Apply "k=v,k=v" (spaces around keys and values are ignored). `seen`
 * catches a key given twice, also across the name's list and params. */
static int apply_params(const char *who, const tutti_algo_desc_t *d, const char *list,
                        struct values *a, unsigned *seen, char *err, size_t errlen) {
  char item[TUTTI_PARAM_LIST_MAX + 64], names[160];
  for (const char *s = list; s && *s;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    /* A value with a ':' (a choice word and its rank list, order=list:0,2,1)
     * goes on through the pieces after it that hold no '=' and are not empty. */
    const char *eq0 = memchr(s, '=', len);
    if (eq0 && memchr(eq0, ':', len - (size_t)(eq0 - s)))
      while (comma && comma[1] && comma[1] != ',') {
        const char *c2 = strchr(comma + 1, ',');
        size_t l2 = c2 ? (size_t)(c2 - comma - 1) : strlen(comma + 1);
        if (memchr(comma + 1, '=', l2)) break;
        comma = c2;
        len = comma ? (size_t)(comma - s) : strlen(s);
      }
    if (len >= sizeof item) {
      tutti__errf(err, errlen, "%s: parameter list item too long: '%.40s...'", who, s);
      return TUTTI_EINVAL;
    }
    memcpy(item, s, len);
    item[len] = '\0';
    s = comma ? comma + 1 : s + len;
    char *k = item, *eq = strchr(item, '=');
    while (*k == ' ') k++;
    if (!*k && !comma) break; /* a trailing comma or an empty list */
    list_params(d, names, sizeof names);
    if (!eq) {
      tutti__errf(err, errlen, "%s: '%s' is not key=value; accepted keys: %s", who, k, names);
      return TUTTI_EINVAL;
    }
    char *ke = eq, *v = eq + 1;
    while (ke > k && ke[-1] == ' ') ke--;
    while (*v == ' ') v++;
    for (char *ve = v + strlen(v); ve > v && ve[-1] == ' ';) *--ve = '\0';
    int i = param_find(d, k, (size_t)(ke - k));
    if (i < 0) {
      tutti__errf(err, errlen, "%s: unknown parameter '%.*s'; accepted: %s", who, (int)(ke - k), k,
                  names);
      return TUTTI_EINVAL;
    }
    if (*seen >> i & 1u) {
      tutti__errf(err, errlen, "%s: parameter '%s' given twice", who, d->params[i].name);
      return TUTTI_EINVAL;
    }
    *seen |= 1u << i;
    int rc = parse_value(who, &d->params[i], v, a, i, err, errlen);
    if (rc) return rc;
  }
  return 0;
}

/* ------------------------------------------------------------- interning */

/* Every handle ever made, by hash: a selection made again finds its
 * handle (select takes the lock; nothing else reads the table). */
#define BUCKETS 1024
static struct tutti_algo *table[BUCKETS];
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
  return h;
}

static uint64_t hash_of(const struct tutti__entry *e, const struct values *v) {
  uint64_t h = mix(0xcbf29ce484222325ull, &e, sizeof e);
  h = mix(h, &v->is_auto, sizeof v->is_auto);
  for (int i = 0; i < e->d.nparams; i++) {
    h = mix(h, &v->value[i], sizeof v->value[i]);
    h = mix(h, v->list[i], strlen(v->list[i]));
  }
  return h;
}

static int same(const struct tutti_algo *a, const struct tutti__entry *e, const struct values *v) {
  if (a->e != e || a->is_auto != v->is_auto) return 0;
  for (int i = 0; i < e->d.nparams; i++) {
    /* bitwise: NAN (auto) equals NAN */
    if (memcmp(&a->value[i], &v->value[i], sizeof v->value[i])) return 0;
    if (strcmp(a->list[i] ? a->list[i] : "", v->list[i])) return 0;
  }
  return 1;
}

/* The typed field of parameter i in the algorithm's struct. */
static void put_typed(unsigned char *st, const tutti_param_desc_t *p, double x, int is_auto) {
  char *f = (char *)st + p->offset;
  if (p->type == TUTTI_PARAM_REAL) {
    double y = is_auto ? NAN : x;
    memcpy(f, &y, sizeof y);
  } else if (p->type == TUTTI_PARAM_SIZE) { /* at most 2^63: parse_value cut it */
    size_t y = is_auto ? SIZE_MAX : (size_t)x;
    memcpy(f, &y, sizeof y);
  } else {
    long y = is_auto ? TUTTI_PARAM_AUTO : (long)x;
    memcpy(f, &y, sizeof y);
  }
}

static int intern(const struct tutti__entry *e, const struct values *v, const tutti_algo_t **out) {
  uint64_t h = hash_of(e, v);
  struct tutti_algo **b = &table[h % BUCKETS], *a;
  int rc = 0;
  pthread_mutex_lock(&intern_lock);
  for (a = *b; a && !(a->hash == h && same(a, e, v)); a = a->next) {
  }
  if (!a && (a = calloc(1, sizeof *a + e->d.params_size))) {
    a->magic = TUTTI__ALGO_MAGIC;
    a->e = e;
    a->hash = h;
    a->is_auto = v->is_auto;
    for (int i = 0; i < e->d.nparams; i++) {
      const tutti_param_desc_t *p = &e->d.params[i];
      int au = v->is_auto >> i & 1u;
      a->value[i] = au ? NAN : v->value[i];
      if (v->list[i][0] && !(a->list[i] = strdup(v->list[i]))) rc = TUTTI_ENOMEM;
      if (e->d.params_size) put_typed(a->params, p, a->value[i], au);
    }
    if (rc) {
      for (int i = 0; i < e->d.nparams; i++) free((void *)a->list[i]);
      free(a);
      a = NULL;
    } else {
      a->next = *b;
      *b = a;
    }
  }
  pthread_mutex_unlock(&intern_lock);
  *out = a;
  return a ? 0 : TUTTI_ENOMEM;
}

/* A name that is a file: a plugin to load (plugin.c). */
static int is_file(const char *name, size_t len) {
  if (memchr(name, '/', len)) return 1;
  return (len > 2 && !strncmp(name + len - 2, ".c", 2)) ||
         (len > 3 && !strncmp(name + len - 3, ".so", 3));
}

int tutti_algo_select(int coll, const char *name, const char *params, const tutti_algo_t **out,
                      char *err, size_t errlen) {
  if (!out) {
    tutti__errf(err, errlen, "no output algorithm given");
    return TUTTI_EINVAL;
  }
  if (coll < 0 || coll >= TUTTI_COLL_N) {
    char all[160] = "";
    for (int i = 0; i < TUTTI_COLL_N; i++)
      snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "",
               tutti_coll_name(i));
    tutti__errf(err, errlen, "unknown collective %d; accepted: %s", coll, all);
    return TUTTI_ENOTFOUND;
  }
  const char *from = NULL; /* the environment variable the name came from */
  if (!name || !*name) {
    const char *var = tutti__coll_env(coll), *env = getenv(var);
    if (env && *env) name = env, from = var;
  }
  const tutti_algo_desc_t *d = NULL;
  const char *nparams = NULL;
  char who[160];
  int rc;
  if (!name || !*name) {
    d = tutti_algo_desc_default(coll);
    if (!d) {
      tutti__errf(err, errlen, "no %s algorithm is registered", tutti_coll_name(coll));
      return TUTTI_ENOTFOUND;
    }
  } else {
    const char *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    nparams = colon ? colon + 1 : NULL;
    if (is_file(name, len)) {
      char path[4096];
      snprintf(path, sizeof path, "%.*s", (int)len, name);
      if ((rc = tutti__plugin_algo(coll, path, &d, err, errlen))) return rc;
    } else if (!(d = find_name(coll, name, len))) {
      char names[512];
      list_names(coll, names, sizeof names);
      if (from)
        tutti__errf(err, errlen, "%s='%s': unknown %s algorithm '%.*s'; accepted: %s", from, name,
                    tutti_coll_name(coll), (int)len, name, names);
      else
        tutti__errf(err, errlen, "unknown %s algorithm '%.*s'; accepted: %s", tutti_coll_name(coll),
                    (int)len, name, names);
      return TUTTI_ENOTFOUND;
    }
  }
  if (from)
    snprintf(who, sizeof who, "%s='%s': %s '%s'", from, name, tutti_coll_name(coll), d->name);
  else
    snprintf(who, sizeof who, "%s '%s'", tutti_coll_name(coll), d->name);
  struct values *v = malloc(sizeof *v); /* 8 KiB: not on a rank's small stack */
  if (!v) {
    tutti__errf(err, errlen, "out of memory");
    return TUTTI_ENOMEM;
  }
  v->is_auto = 0;
  for (int i = 0; i < d->nparams; i++) {
    const tutti_param_desc_t *p = &d->params[i];
    v->value[i] = p->def;
    v->list[i][0] = '\0';
    if (p->flags & TUTTI_PARAM_AUTO_DEFAULT) v->value[i] = NAN, v->is_auto |= 1u << i;
  }
  unsigned seen = 0;
  rc = apply_params(who, d, nparams, v, &seen, err, errlen);
  if (!rc) rc = apply_params(who, d, params, v, &seen, err, errlen);
  if (!rc && (rc = intern(tutti__entry_of(d), v, out))) tutti__errf(err, errlen, "out of memory");
  free(v);
  if (!rc && err && errlen) err[0] = '\0';
  return rc;
}

/* The algorithms of calls with algo NULL: one entry per collective and
 * value of its variable (NULL: unset or empty, the default), made under
 * the lock by the first call that needs it and never changed or freed
 * after, so ranks keep its index (plan.c). A process sees few values;
 * past ENV_ALGOS of them a call selects anew (correct, only slower). */
#define ENV_ALGOS 64
static struct env_algo {
  int coll;
  char *env;
  const tutti_algo_t *algo;
} env_algos[ENV_ALGOS];
static int n_env_algos;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

int tutti__env_algo_index(int coll, int *idx) {
  *idx = -1;
  if (coll < 0 || coll >= TUTTI_COLL_N) return TUTTI_ENOTFOUND;
  const char *env = getenv(tutti__coll_env(coll));
  if (env && !*env) env = NULL;
  int rc = 0;
  pthread_mutex_lock(&env_lock);
  for (int i = 0; i < n_env_algos && *idx < 0; i++) {
    const struct env_algo *e = &env_algos[i];
    if (e->coll == coll && (e->env && env ? !strcmp(e->env, env) : e->env == env)) *idx = i;
  }
  if (*idx < 0 && n_env_algos < ENV_ALGOS) {
    struct env_algo *e = &env_algos[n_env_algos];
    char *copy = env ? strdup(env) : NULL;
    /* name NULL: the variable, exactly as tutti_algo_select reads it */
    if ((!env || copy) && !(rc = tutti_algo_select(coll, NULL, NULL, &e->algo, NULL, 0))) {
      e->coll = coll, e->env = copy;
      *idx = n_env_algos++;
    } else {
      free(copy);
    }
  }
  pthread_mutex_unlock(&env_lock);
  return rc;
}

const tutti_algo_t *tutti__env_algo(int idx) {
  return env_algos[idx].algo;
}

/* ------------------------------------------------------------- accessors */

const tutti_algo_desc_t *tutti_algo_desc(const tutti_algo_t *a) {
  return tutti__algo_valid(a) ? &a->e->d : NULL;
}

const void *tutti_algo_params(const tutti_algo_t *a) {
  return tutti__algo_valid(a) && a->e->d.params_size ? a->params : NULL;
}

double tutti_algo_param_at(const tutti_algo_t *a, int i) {
  if (!tutti__algo_valid(a) || i < 0 || i >= a->e->d.nparams || (a->is_auto >> i & 1u)) return NAN;
  return a->value[i];
}

int tutti_algo_param_is_auto(const tutti_algo_t *a, int i) {
  return tutti__algo_valid(a) && i >= 0 && i < a->e->d.nparams && (a->is_auto >> i & 1u);
}

double tutti_algo_param(const tutti_algo_t *a, const char *name) {
  if (!tutti__algo_valid(a) || !name) return NAN;
  return tutti_algo_param_at(a, param_find(&a->e->d, name, strlen(name)));
}

/* Parameter `name` of a, for an algorithm reading its own: -1 (and the
 * fault reported: plan.c) when it does not declare it. */
static int own_param(const tutti_algo_t *a, const char *name) {
  int i = tutti__algo_valid(a) && name ? param_find(&a->e->d, name, strlen(name)) : -1;
  if (i < 0) tutti__param_fault(a, name);
  return i;
}

long tutti_param_long(const tutti_algo_t *a, const char *name) {
  int i = own_param(a, name);
  if (i < 0) return 0;
  return a->is_auto >> i & 1u ? TUTTI_PARAM_AUTO : (long)a->value[i];
}

double tutti_param_real(const tutti_algo_t *a, const char *name) {
  int i = own_param(a, name);
  return i < 0 ? NAN : a->value[i]; /* NAN where auto */
}

size_t tutti_param_size(const tutti_algo_t *a, const char *name) {
  int i = own_param(a, name);
  if (i < 0) return 0;
  return a->is_auto >> i & 1u ? SIZE_MAX : (size_t)a->value[i];
}

const char *tutti_param_list(const tutti_algo_t *a, const char *name) {
  int i = own_param(a, name);
  return i < 0 || !a->list[i] ? "" : a->list[i];
}

/* ------------------------------------------------------------- checks */

int tutti_algo_check(const tutti_algo_t *a, int nranks, tutti_op_t op, char *err, size_t errlen) {
  int rc = tutti_algo_check_call(a, nranks, -1, SIZE_MAX, op, err, errlen);
  if (!rc && err && errlen) err[0] = '\0'; /* no notes here */
  return rc;
}

int tutti_algo_check_call(const tutti_algo_t *a, int nranks, int root, size_t bytes, tutti_op_t op,
                          char *err, size_t errlen) {
  if (!tutti__algo_valid(a)) {
    tutti__errf(err, errlen, "not a selected algorithm (use tutti_algo_select)");
    return TUTTI_EINVAL;
  }
  const tutti_algo_desc_t *d = &a->e->d;
  int rc;
  if (nranks < 1) {
    tutti__errf(err, errlen, "%d ranks: a world has at least one", nranks);
    return TUTTI_EINVAL;
  }
  if ((d->restrictions & TUTTI_ALGO_POW2) && (nranks & (nranks - 1))) {
    tutti__errf(err, errlen, "%s '%s' needs a power-of-two number of ranks, not %d",
                tutti_coll_name(d->coll), d->name, nranks);
    return TUTTI_ENOTSUP;
  }
  if (op && (d->restrictions & TUTTI_ALGO_COMMUTATIVE)) {
    int c = tutti_op_commutative(op);
    if (c < 0) {
      tutti__errf(err, errlen, "invalid reduction op");
      return TUTTI_EOP;
    }
    if (!c) {
      tutti__errf(err, errlen,
                  "%s '%s' needs a commutative op; '%s' is not (choose another algorithm)",
                  tutti_coll_name(d->coll), d->name, tutti_op_name(op));
      return TUTTI_ENOTSUP;
    }
  }
  if (root >= nranks) {
    tutti__errf(err, errlen, "root %d is not a rank of 0..%d", root, nranks - 1);
    return TUTTI_EINVAL;
  }
  /* hierarchical: the restrictions of the algorithms its levels name */
  if (op && tutti_algo_is_two_level(d) && (rc = tutti__levels_check(a, op, err, errlen))) return rc;
  /* a check that passes may leave a note (a fallback) in err */
  if (err && errlen) err[0] = '\0';
  for (int i = 0; i < d->nparams; i++)
    if (d->params[i].check && (rc = d->params[i].check(a, i, nranks, root, bytes, err, errlen)))
      return rc;
  return 0;
}

/* Sizes in the largest binary unit that divides them: 8KiB, 1000. */
static void fmt_size(double x, char *buf, size_t n) {
  static const char *const units[] = {"", "KiB", "MiB", "GiB", "TiB"};
  uint64_t v = (uint64_t)x;
  int u = 0;
  while (u < 4 && v && v % 1024 == 0) v /= 1024, u++;
  snprintf(buf, n, "%llu%s", (unsigned long long)v, units[u]);
}

int tutti_algo_format(const tutti_algo_t *a, char *buf, size_t n) {
  if (!buf || !n) return TUTTI_EINVAL;
  buf[0] = '\0';
  if (!tutti__algo_valid(a)) return TUTTI_EINVAL;
  const tutti_algo_desc_t *d = &a->e->d;
  size_t used = (size_t)snprintf(buf, n, "%s", d->name);
  for (int i = 0; i < d->nparams && used < n; i++) {
    char v[TUTTI_PARAM_LIST_MAX + 32];
    tutti_algo_param_text(a, i, v, sizeof v);
    used += (size_t)snprintf(buf + used, n - used, "%c%s=%s", i ? ',' : ':', d->params[i].name, v);
  }
  return used < n ? 0 : TUTTI_EINVAL; /* TUTTI_EINVAL: truncated */
}

int tutti_algo_param_text(const tutti_algo_t *a, int i, char *buf, size_t n) {
  if (!buf || !n) return TUTTI_EINVAL;
  buf[0] = '\0';
  if (!tutti__algo_valid(a) || i < 0 || i >= a->e->d.nparams) return TUTTI_EINVAL;
  const tutti_param_desc_t *p = &a->e->d.params[i];
  int k;
  if (a->is_auto >> i & 1u) {
    k = snprintf(buf, n, "auto");
  } else if (p->type == TUTTI_PARAM_CHOICE) {
    k = snprintf(buf, n, "%s%s", p->choices[(int)a->value[i]], a->list[i] ? a->list[i] : "");
  } else {
    char v[48];
    if (p->type == TUTTI_PARAM_SIZE)
      fmt_size(a->value[i], v, sizeof v);
    else
      fmt_num(a->value[i], v, sizeof v);
    k = snprintf(buf, n, "%s", v);
  }
  return k >= 0 && (size_t)k < n ? 0 : TUTTI_EINVAL;
}

int tutti_tree_kind_select(int kind, const char *params, int L_auto, tutti_treespec_t *spec,
                           char *err, size_t errlen) {
  if (!spec || kind < 0 || kind >= TUTTI_TREE_NKINDS) {
    tutti__errf(err, errlen, "no such tree kind %d; accepted: 0..%d (tree.h)", kind,
                TUTTI_TREE_NKINDS - 1);
    return TUTTI_EINVAL;
  }
  /* the kind as an algorithm of one parameter, for apply_params' checks and messages */
  char who[64];
  snprintf(who, sizeof who, "%s tree", tutti_tree_kind_name(kind));
  const tutti_param_desc_t *p = tutti_tree_kind_param(kind);
  tutti_algo_desc_t d = {.name = who, .params = p, .nparams = p != NULL};
  struct values *v = malloc(sizeof *v);
  if (!v) {
    tutti__errf(err, errlen, "out of memory");
    return TUTTI_ENOMEM;
  }
  v->is_auto = 0;
  if (p) {
    v->value[0] = p->def;
    if (p->flags & TUTTI_PARAM_AUTO_DEFAULT) v->value[0] = NAN, v->is_auto = 1;
  }
  unsigned seen = 0;
  int rc = apply_params(who, &d, params, v, &seen, err, errlen);
  *spec = tutti_treespec_default(kind);
  if (L_auto < 1) L_auto = 1;
  if (!rc && p) { /* as tutti_algo_treespec resolves auto */
    if (kind == TUTTI_TREE_LAMBDA)
      spec->lambda = v->is_auto ? tutti_lambda_auto_postal(L_auto) : v->value[0];
    else if (kind == TUTTI_TREE_POSTAL)
      spec->L = v->is_auto ? L_auto : (int)v->value[0];
    else
      spec->k = (int)v->value[0];
  }
  free(v);
  if (!rc && err && errlen) err[0] = '\0';
  return rc;
}
