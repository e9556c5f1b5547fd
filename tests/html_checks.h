/*
 * html_checks.h -- what any --html page must show, checked against what
 * the page did not compute itself (the page tests, test_e2e_html*.c):
 * check_section reads one run's section of a DOM (html_helpers.h) at the
 * event it shows -- an arrow styled in flight exactly when the time
 * cursor lies between its ends, delivered when past them; a shape's edge
 * (or chord) in flight exactly when a message between its two ranks is; a
 * round's segment as its message; each rank's label and tree nodes in one
 * of the four states (sending, queued, blocked, done) or none, agreeing
 * with its messages: done with nothing on its way to it and nothing of its
 * own to start, blocked with one of them, sending or queued with a
 * message started to the rank it names, queued with as many of its sends
 * not started as it says; the counters in data-* the same; at the end
 * every message delivered and every rank done. make_page writes a page
 * with `tutti`, url() names one of its events.
 */
#ifndef TUTTI_TESTS_HTML_CHECKS_H
#define TUTTI_TESTS_HTML_CHECKS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_helpers.h"

#define MAXP 32

/* ------------------------------------------------------------ a section's checks */

__attribute__((unused)) static const char *const STATES[] = {"sending", "queued", "blocked",
                                                             "done"};

/* The text of the element whose tag starts at `tag`. */
static inline const char *text_of(const char *tag, char *buf, size_t n) {
  const char *gt = strchr(tag, '>'), *lt = gt ? strchr(gt, '<') : NULL;
  cr_assert(gt && lt);
  snprintf(buf, n, "%.*s", (int)(lt - gt - 1 < (long)n ? lt - gt - 1 : (long)n - 1), gt + 1);
  return buf;
}

/* "rank R STATE ..." -> R and the state's index (-1: none) */
static inline int label_rank(const char *text, int *state) {
  int r = -1, len = 0;
  char word[32] = "";
  *state = -1;
  if (sscanf(text, "rank %d %n%31s", &r, &len, word) < 1) return -1;
  for (int k = 0; k < 4; k++)
    if (!strcmp(word, STATES[k])) *state = k;
  return r;
}

/* The number after the UTF-8 arrow `arrow` ("\u2192" or "\u2190") in s, or -1. */
static inline int after(const char *s, const char *arrow) {
  const char *p = strstr(s, arrow);
  return p ? atoi(p + strlen(arrow)) : -1;
}

struct look {
  int P, messages, fly, done, states[4];
};

/* Everything section [sec, se) shows at its time, checked against its own
 * geometry (the header comment); at_end: the run is over. */
static inline struct look check_section(const char *sec, const char *se, int at_end,
                                        const char *what) {
  struct look k = {.P = (int)attr(sec, "data-ranks"), .messages = (int)attr(sec, "data-messages")};
  cr_assert(k.P >= 1 && k.P <= MAXP, "%s: %d ranks", what, k.P);
  const char *cur = strstr(sec, "<line class=\"cursor\"");
  cr_assert(cur && cur < se, "%s: no time cursor", what);
  double cx = attr(cur, "x1");
  static unsigned char fly[MAXP][MAXP], started[MAXP][MAXP];
  int pending[MAXP] = {0}, waiting_from[MAXP] = {0}; /* to it, not delivered; its own, not sent */
  memset(fly, 0, sizeof fly), memset(started, 0, sizeof started);
  char *state = calloc((size_t)k.messages + 1, 1), cls[128], buf[256];
  int n = 0;
  for (const char *p = sec; (p = strstr(p, "<line class=\"msg")) && p < se; p++, n++) {
    int i = (int)attr(p, "data-i"), a = (int)attr(p, "data-src"), b = (int)attr(p, "data-dst");
    double x1 = attr(p, "x1"), x2 = attr(p, "x2");
    cr_assert(i >= 0 && i < k.messages && a >= 0 && a < k.P && b >= 0 && b < k.P);
    attr_text(p, "class", cls, sizeof cls);
    char want = x2 <= cx ? 'd' : x1 <= cx ? 'f' : 'n';
    char got = has_class(cls, "done") ? 'd' : has_class(cls, "fly") ? 'f' : 'n';
    cr_assert(eq(chr, got, want), "%s: message %d (%d -> %d, x %g..%g) is '%s' at x %g", what, i, a,
              b, x1, x2, cls, cx);
    state[i] = got;
    k.fly += got == 'f', k.done += got == 'd';
    if (got == 'f') fly[a][b] = fly[b][a] = 1;
    if (got != 'n') started[a][b] = 1;
    if (got != 'd') pending[b]++;
    if (got == 'n') waiting_from[a]++, pending[a]++;
  }
  cr_assert(eq(int, n, k.messages), "%s: an arrow a message", what);
  cr_assert(eq(dbl, attr(sec, "data-in-flight"), k.fly), "%s", what);
  cr_assert(eq(dbl, attr(sec, "data-delivered"), k.done), "%s", what);
  /* edges and chords of the shape: in flight when a message between their ranks is */
  int edges_fly = 0;
  for (const char *p = sec; (p = strstr(p, "<line class=\"edge")) && p < se; p++) {
    int a = (int)attr(p, "data-a"), b = (int)attr(p, "data-b");
    int f = has_class(attr_text(p, "class", cls, sizeof cls), "fly");
    cr_assert(eq(int, f, fly[a][b]), "%s: edge %d-%d styled '%s'", what, a, b, cls);
    edges_fly += f;
  }
  cr_assert(eq(dbl, attr(sec, "data-edges-in-flight"), edges_fly), "%s", what);
  /* a round's segment: its message's state */
  for (const char *p = sec; (p = strstr(p, "<line class=\"seg")) && p < se; p++) {
    int i = (int)attr(p, "data-i");
    attr_text(p, "class", cls, sizeof cls);
    char got = has_class(cls, "done") ? 'd' : has_class(cls, "fly") ? 'f' : 'n';
    cr_assert(eq(chr, got, state[i]), "%s: segment of message %d", what, i);
  }
  /* each rank's label: its state agrees with its messages */
  int lstate[MAXP], labels = 0;
  for (int r = 0; r < MAXP; r++) lstate[r] = -2;
  for (const char *p = sec; (p = strstr(p, "<text class=\"lbl")) && p < se; p++) {
    int st, r = label_rank(text_of(p, buf, sizeof buf), &st);
    if (r < 0) continue; /* a link lane's name */
    cr_assert(r < k.P && lstate[r] == -2, "%s: one label a rank: %s", what, buf);
    attr_text(p, "class", cls, sizeof cls);
    cr_assert(st < 0 ? !strcmp(cls, "lbl ") || !strcmp(cls, "lbl") : has_class(cls, STATES[st]),
              "%s: '%s' in class '%s'", what, buf, cls);
    lstate[r] = st, labels++;
    if (st >= 0) k.states[st]++;
    if (st == 3) cr_assert(eq(int, pending[r], 0), "%s: %s, with a message left", what, buf);
    if (st == 2) cr_assert(gt(int, pending[r], 0), "%s: %s, with nothing left", what, buf);
    if (st == 0 || st == 1) {
      int d = after(buf, "\xe2\x86\x92");
      cr_assert(d >= 0 && d < k.P && started[r][d], "%s: %s, no message to %d started", what, buf,
                d);
    }
    if (st == 1) {
      const char *plus = strstr(buf, "(+");
      cr_assert(plus && atoi(plus + 2) >= 1 && waiting_from[r] >= atoi(plus + 2),
                "%s: %s, %d of its sends not started", what, buf, waiting_from[r]);
    }
  }
  cr_assert(eq(int, labels, k.P), "%s: a label a rank", what);
  for (int s = 0; s < 4; s++) {
    char name[16];
    snprintf(name, sizeof name, "data-%s", STATES[s]);
    cr_assert(eq(dbl, attr(sec, name), k.states[s]), "%s: %s", what, name);
  }
  /* the shape's nodes show their rank's state */
  for (const char *p = sec; (p = strstr(p, "<g class=\"node")) && p < se; p++) {
    int r = (int)attr(p, "data-rank");
    attr_text(p, "class", cls, sizeof cls);
    for (int s = 0; s < 4; s++)
      cr_assert(eq(int, has_class(cls, STATES[s]), lstate[r] == s), "%s: node %d '%s'", what, r,
                cls);
  }
  if (at_end) {
    cr_assert(eq(int, k.done, k.messages), "%s: every message delivered at the end", what);
    cr_assert(eq(int, k.states[3], k.P), "%s: every rank done at the end", what);
    cr_assert(eq(int, count_tags(sec, se, "<line class=\"lk", "fly"), 0), "%s: a link busy", what);
  }
  if (strstr(sec, "<line class=\"lk") && strstr(sec, "<line class=\"lk") < se)
    cr_assert(
        eq(dbl, attr(sec, "data-links-carrying"), count_tags(sec, se, "<line class=\"lk", "fly")),
        "%s: the switch tree's links carrying", what);
  free(state);
  return k;
}

/* Every section of frame i; their number. */
static inline int check_frame(const char *dom, int i, int at_end, const char *what) {
  const char *fe, *f = frame(dom, i, &fe), *se, *s;
  int n = 0;
  char w[512];
  for (; (s = section_in(f, fe, n, &se)) != NULL; n++) {
    snprintf(w, sizeof w, "%.400s, run %d", what, n);
    check_section(s, se, at_end, w);
  }
  cr_assert(gt(int, n, 0), "%s: nothing drawn", what);
  return n;
}

/* `tutti run ARGS --html BUILD/name.html`, which must succeed; the page's path in page. */
static inline void make_page(char *page, size_t n, const char *name, const char *const *args) {
  char opt[4200];
  page_path(page, n, name);
  strcat(page, ".html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  const char *argv[24];
  int k = 0;
  for (; args[k]; k++) argv[k] = args[k];
  argv[k++] = opt;
  argv[k] = NULL;
  struct cli r = run_env(NULL, argv);
  cr_assert(eq(int, r.status, 0), "%s: %s", name, r.err);
  cli_free(&r);
}
#define PAGE(buf, name, ...)                                                                       \
  make_page(buf, sizeof buf, name, (const char *const[]){__VA_ARGS__, NULL})

static char urls_buf[64][4200];
static inline const char *url(int i, const char *page, const char *frag) {
  snprintf(urls_buf[i], sizeof urls_buf[i], "%.4000s%.100s", page, frag);
  return urls_buf[i];
}

#endif
