/*
 * cli_rules.c -- the library-neutral part of the MPI libraries' rules
 * files (cli_rules.h): which algorithm of a library each measured
 * (collective, P, m) gets, the rules that come of it per communicator
 * size, and the provenance lines every file starts with.
 *
 * A cell's pick is the fastest candidate the library has (map != -1);
 * candidates equally fast (modeled times are integer picoseconds, so a
 * tie is a tie) go to the library's preferred one (the lowest pref: its
 * default first), then to the first enumerated. When tutti's own winner
 * is not among them the rule still says what the library should run --
 * the next best it has -- and a note says what tutti would have run and
 * how much slower the library's is.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_rules.h"

const struct tune_cell *tune_cell_at(const struct tune_result *t, int coll, int i, int s) {
  return &t->cells[t->first[coll] + i * t->per[coll] + s];
}

/* x is faster than y beyond rounding (equal modeled times tie). */
static int faster(double x, double y) {
  return x < y * (1 - 1e-12);
}

static int same_pick(const struct rules_pick *a, const struct rules_pick *b) {
  return a->alg == b->alg && a->fan == b->fan && a->seg == b->seg;
}

/* Cell c's pick for tg into *pk, and a note when it is not tutti's best. */
static void pick_cell(const struct tune_result *t, const struct rules_target *tg,
                      const struct tune_cell *c, const char *lib, struct rules_pick *pk, char *note,
                      size_t nn) {
  double tm = INFINITY;
  int im = -1, pm = INT_MAX;
  *pk = (struct rules_pick){0, "its own choice", 0, 0};
  note[0] = '\0';
  char at[64], mb[32];
  tutti_format_bytes(c->m, mb, sizeof mb);
  if (c->coll == TUTTI_COLL_BARRIER)
    snprintf(at, sizeof at, "%d ranks", c->P);
  else
    snprintf(at, sizeof at, "%d ranks, %s", c->P, mb);
  for (int a = 0; a < t->ncand[tg->coll]; a++) {
    struct rules_pick p;
    int pref;
    double x = c->times[a];
    if (!isfinite(x) || tg->map(tg, t->cand[tg->coll][a], c->P, c->seg[a], &p, &pref)) continue;
    if (faster(x, tm) || (!faster(tm, x) && pref < pm)) tm = x, im = a, pm = pref, *pk = p;
  }
  char tb[32], tl[32];
  tutti_format_model_time(t->model, c->t, tb, sizeof tb);
  struct rules_pick pb; /* the library's of tutti's best, if it has it */
  int prb, best_in = c->best >= 0 &&
                     !tg->map(tg, t->cand[tg->coll][c->best], c->P, c->seg[c->best], &pb, &prb);
  if (im < 0) {
    snprintf(note, nn,
             "at %s, tutti's best, %s (%s), and every other algorithm that ran are not in %s: %s",
             at, c->spec, tb, lib, pk->name);
  } else if (faster(c->t, tm)) {
    tutti_format_model_time(t->model, tm, tl, sizeof tl);
    double pct = c->t > 0 ? 100 * (tm - c->t) / c->t : 0.0;
    char slower[32];
    if (pct < 0.1)
      snprintf(slower, sizeof slower, "under 0.1%% slower");
    else
      snprintf(slower, sizeof slower, "+%.1f%%", pct);
    snprintf(note, nn,
             "at %s, tutti's best, %s (%s), is not in %s: the next best it has is %s (%s, %s)", at,
             c->spec, tb, lib, pk->name, tl, slower);
  } else if (!best_in || !same_pick(&pb, pk)) {
    snprintf(note, nn, "at %s, tutti's best, %s, and %s's %s tie (%s): %s's first of the tied", at,
             c->spec, lib, pk->name, tb, lib);
  }
}

/* a x b, at most SIZE_MAX - 1 (SIZE_MAX stays "no end"). */
static size_t mul_sat(size_t a, size_t b) {
  if (a == SIZE_MAX) return SIZE_MAX;
  return b && a > (SIZE_MAX - 1) / b ? SIZE_MAX - 1 : a * b;
}

/* The rules of rank index i (n of them into r, r has room for per[coll]). */
static int rules_at(const struct tune_result *t, const struct rules_target *tg, int i,
                    const char *lib, struct rules_rule *r) {
  int n = 0;
  for (int s = 0; s < t->per[tg->coll]; s++) {
    const struct tune_cell *c = tune_cell_at(t, tg->coll, i, s);
    if (!c->ok) continue;
    struct rules_pick p;
    char note[sizeof r->note];
    pick_cell(t, tg, c, lib, &p, note, sizeof note);
    if (n && same_pick(&r[n - 1].pick, &p)) { /* one rule: its sizes' notes together */
      size_t len = strlen(r[n - 1].note);
      if (note[0] && len + 8 < sizeof r->note)
        snprintf(r[n - 1].note + len, sizeof r->note - len, "%s%s", len ? "; " : "", note);
      continue;
    }
    r[n] = (struct rules_rule){n ? c->m : 0, SIZE_MAX, p, ""};
    snprintf(r[n].note, sizeof r->note, "%s", note);
    if (n) r[n - 1].hi = c->m - 1;
    n++;
  }
  return n;
}

/* Append a rules_comm of cmin..cmax with rules r[0..n) keyed x mult. */
static int push(struct rules_comm **v, int *nv, int *cap, int cmin, int cmax, int measured,
                const struct rules_rule *r, int n, size_t mult) {
  if (*nv == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    struct rules_comm *g = realloc(*v, (size_t)nc * sizeof *g);
    if (!g) return TUTTI_ENOMEM;
    *v = g, *cap = nc;
  }
  struct rules_rule *copy = malloc((size_t)n * sizeof *copy);
  if (!copy) return TUTTI_ENOMEM;
  for (int k = 0; k < n; k++) {
    copy[k] = r[k];
    copy[k].lo = mul_sat(r[k].lo, mult);
    copy[k].hi = r[k].hi == SIZE_MAX ? SIZE_MAX : mul_sat(r[k].hi + 1, mult) - 1;
  }
  (*v)[(*nv)++] = (struct rules_comm){cmin, cmax, measured, n, copy};
  return 0;
}

int rules_build(const struct tune_result *t, const struct rules_target *tg, const char *lib,
                struct rules_comm **out, int *nout) {
  struct rules_comm *v = NULL;
  int nv = 0, cap = 0, rc = 0;
  int *nr = calloc((size_t)t->nranks, sizeof *nr);
  struct rules_rule *all = calloc((size_t)t->nranks * (size_t)t->per[tg->coll] + 1, sizeof *all);
  if (!nr || !all) rc = TUTTI_ENOMEM;
  /* each measured count's rules; a count where nothing ran has none and
   * the count below it reaches on */
  int first = -1;
  for (int i = 0; !rc && i < t->nranks; i++) {
    nr[i] = rules_at(t, tg, i, lib, all + (size_t)i * (size_t)t->per[tg->coll]);
    if (nr[i] && first < 0) first = i;
  }
  if (!rc && first >= 0 && t->ranks[first] > 1) { /* below every measured count */
    struct rules_rule own = {0, SIZE_MAX, {0, "its own choice", 0, 0}, ""};
    rc = push(&v, &nv, &cap, 1, t->ranks[first] - 1, 0, &own, 1, 1);
  }
  for (int i = first; !rc && i >= 0 && i < t->nranks; i++) {
    if (!nr[i]) continue;
    int next = i + 1;
    while (next < t->nranks && !nr[next]) next++;
    int lo = t->ranks[i], hi = next < t->nranks ? t->ranks[next] - 1 : INT32_MAX;
    const struct rules_rule *ri = all + (size_t)i * (size_t)t->per[tg->coll];
    if (!tg->key_per_block || nr[i] == 1) {
      rc = push(&v, &nv, &cap, lo, hi, lo, ri, nr[i], 1);
      continue;
    }
    /* block x communicator size: exact thresholds for every size to the
     * next measured count; past the last, those of the last */
    for (int c = lo; !rc && c <= (hi == INT32_MAX ? lo : hi); c++)
      rc = push(&v, &nv, &cap, c, hi == INT32_MAX ? INT32_MAX : c, lo, ri, nr[i], (size_t)c);
  }
  free(nr), free(all);
  if (rc) {
    rules_free(v, nv);
    return rc;
  }
  *out = v, *nout = nv;
  return 0;
}

void rules_free(struct rules_comm *c, int n) {
  for (int i = 0; c && i < n; i++) free(c[i].r);
  free(c);
}

void rules_provenance(FILE *f, const struct tune_result *t, const char *lead) {
  time_t now = time(NULL);
  const char *sde = getenv("SOURCE_DATE_EPOCH"); /* reproducible files, as compilers do */
  if (sde && *sde) now = (time_t)strtoll(sde, NULL, 10);
  struct tm tm;
  char when[64] = "?";
  if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  fprintf(f, "%swritten by tutti %s (tutti tune) on %s\n", lead, TUTTI_VERSION_STRING, when);
  if (t->profile)
    fprintf(f, "%sprofile %s: %s\n", lead, t->profile, t->model_desc);
  else
    fprintf(f, "%smodel %s: %s\n", lead, t->model_spec ? t->model_spec : "(default)",
            t->model_desc);
  if (t->topology) fprintf(f, "%stopology %s\n", lead, t->topology);
  fprintf(f, "%smeasured at ranks %s, bytes per rank %s%s\n", lead, t->ranks_text, t->sizes_text,
          t->no_data ? " (--no-data: timing only, nothing verified)" : ", every result verified");
}
