/*
 * test_e2e_html_page.c -- what the --html page draws (bench/html_page.html),
 * read from its DOM in headless chromium (html_helpers.h), each check
 * against something the page did not compute itself; at every event
 * loaded, check_section's (html_checks.h: arrows by the time cursor, edges
 * by the messages in flight, ranks' states by their messages), and:
 * - the four states, each seen: sending (a binomial parent on its last
 *   send), queued (a broadcast's root at 0), blocked, done;
 * - explain's cost and why beside the picture, as `tutti explain` prints
 *   them, and the critical path it marks underlaid on the timeline;
 * - the shapes read from the messages: dual-root's two trees and their
 *   roots' exchange, two-tree's two trees against NCCL's construction, the
 *   circulant graph of dissemination, recursive doubling's butterfly;
 * - a projector: at 1024x768 the shape beside the timeline, both within
 *   the window (the browser's layout, measured by html_helpers.h);
 * - a topology: the switch tree with the ranks at its leaves and each
 *   link's messages and longest queue as `tutti run` reports them, lanes
 *   in chain order or by switch;
 * - a student's own algorithm (bench/labs/lab5-kary.c) drawn as its tree;
 * - every registered algorithm at 8 and 16 ranks and on tree:2x4, in
 *   compare pages of a collective each, at #end (nothing in flight, every
 *   rank done, no edge or node styled otherwise) and mid-run: all in one
 *   browser per parameter.
 *
 * Under ASan the pages are not loaded (test_e2e_html.c's header says why).
 * TUTTI_TSAN_SKIP: the browser is a separate program that TSan does not
 * instrument; the page's data path is covered by test_e2e_explain.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_checks.h"
#include "tutti/tutti.h"

/* ------------------------------------------------------------ the four states */

/* queued: a broadcast's root at 0 posts its sends at once, the first on its
 * port and the others behind it (binomial: 2 behind, flat: 6); sending:
 * each binomial parent on its last send, nothing behind (event 3, 2.016 us:
 * ranks 0, 2, 4, 6); blocked: the ranks waiting for their message; done:
 * everyone at the end. In a pipelined allreduce several ports are busy at
 * once, and not all 14 ranks are blocked. */
Test(html_page, four_states, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char bin[4096], flat[4096], dual[4096], logp[4096];
  PAGE(bin, "html_states_binomial", "run", "bcast", "binomial", "-n", "8", "-m", "1000");
  PAGE(flat, "html_states_flat", "run", "bcast", "flat", "-n", "8", "-m", "1000");
  /* LogP with a gap longer than L + o: the root's port stays busy after its last message
   * arrived, past the run's end */
  PAGE(logp, "html_states_logp", "run", "bcast", "flat", "-n", "4", "--model",
       "logp:L=1us,o=1us,g=10us");
  PAGE(dual, "html_states_dual", "run", "allreduce", "dual-root:blocks=4", "-n", "14", "-m",
       "64KiB");
  const char *u[] = {url(0, bin, "#step=3"),   url(1, flat, "#step=1"),  url(2, bin, "#end"),
                     url(3, dual, "#step=5"),  url(4, dual, "#step=17"), url(5, dual, "#step=29"),
                     url(6, dual, "#step=41"), url(7, bin, "#step=1"),   url(8, logp, "#end"),
                     url(9, logp, "#step=3")};
  char *dom = browse_all(u, 10, 1024, 768);
  const char *fe, *f, *se, *s;

  f = frame(dom, 0, &fe), s = section_in(f, fe, 0, &se);
  struct look k = check_section(s, se, 0, "binomial at 2.016 us");
  cr_expect(ne(ptr,
               strstr(s, ">rank 0 sending \xe2\x86\x92"
                         "1<"),
               NULL),
            "the root's last send");
  cr_expect(ne(ptr, strstr(s, "<rect class=\"statebg sending\""), NULL), "its lane shows it");
  cr_expect(ne(ptr, strstr(s, "<g class=\"node has sending\" data-rank=\"0\""), NULL),
            "its tree node shows it");
  cr_expect(eq(int, k.states[0], 4), "ranks 0, 2, 4, 6 send");
  cr_expect(eq(int, k.states[2], 4), "ranks 1, 3, 5, 7 are blocked on their receive");
  cr_expect(ne(ptr,
               strstr(s, ">rank 7 blocked \xe2\x86\x90"
                         "6<"),
               NULL),
            "blocked on a receive");

  f = frame(dom, 7, &fe), s = section_in(f, fe, 0, &se);
  k = check_section(s, se, 0, "binomial at 0");
  cr_expect(ne(ptr,
               strstr(s, ">rank 0 sending \xe2\x86\x92"
                         "4<"),
               NULL),
            "the binomial root at 0: its first send on its port, the next one posted after it");
  cr_expect(eq(int, k.states[0], 1));
  cr_expect(eq(int, k.states[1], 0));
  cr_expect(eq(int, k.states[2], 7));

  f = frame(dom, 1, &fe), s = section_in(f, fe, 0, &se);
  k = check_section(s, se, 0, "flat at 0");
  cr_expect(ne(ptr,
               strstr(s, ">rank 0 queued \xe2\x86\x92"
                         "1 (+6)<"),
               NULL),
            "the flat root: one send on its port, six queued behind it");
  cr_expect(ne(ptr, strstr(s, "<rect class=\"statebg queued\""), NULL));
  cr_expect(ne(ptr, strstr(s, "<g class=\"node has queued\" data-rank=\"0\""), NULL));
  cr_expect(eq(int, k.states[1], 1));

  f = frame(dom, 2, &fe), s = section_in(f, fe, 0, &se);
  k = check_section(s, se, 1, "binomial at the end");
  cr_expect(eq(int, count_tags(s, se, "<rect class=\"statebg", "done"), 8), "8 lanes done");

  int most = 0;
  for (int i = 3; i < 7; i++) {
    f = frame(dom, i, &fe), s = section_in(f, fe, 0, &se);
    k = check_section(s, se, 0, "dual-root");
    cr_expect(lt(int, k.states[2], 14), "frame %d: not all 14 blocked", i);
    most = k.states[0] + k.states[1] > most ? k.states[0] + k.states[1] : most;
  }
  cr_expect(ge(int, most, 4), "the pipeline keeps several ports busy at once");
  f = frame(dom, 8, &fe), s = section_in(f, fe, 0, &se);
  k = check_section(s, se, 1, "LogP at the end"); /* every rank done, the root's gap or not */
  f = frame(dom, 9, &fe), s = section_in(f, fe, 0, &se);
  k = check_section(s, se, 0, "LogP at 11 us");
  cr_expect(ne(ptr,
               strstr(s, ">rank 0 queued \xe2\x86\x92"
                         "2 (+1)<"),
               NULL),
            "the second send on the port, the third behind it");
  /* the key names the four states */
  for (int s4 = 0; s4 < 4; s4++) {
    char key[64];
    snprintf(key, sizeof key, "</i>%s", STATES[s4]);
    cr_expect(ne(ptr, strstr(dom, key), NULL), "the key names '%s'", STATES[s4]);
  }
  free(dom);
}

/* ------------------------------------------------------------ explain beside the picture */

/* s with & < > as the DOM writes them */
static char *escaped(const char *s) {
  char *out = malloc(strlen(s) * 5 + 1), *o = out;
  for (; *s; s++)
    o += *s == '&'   ? sprintf(o, "&amp;")
         : *s == '<' ? sprintf(o, "&lt;")
         : *s == '>' ? sprintf(o, "&gt;")
                     : (*o = *s, 1);
  *o = '\0';
  return out;
}

/* Runs of blanks as one space, in place. */
static char *squeeze(char *s) {
  char *o = s;
  for (const char *p = s; *p; p++)
    if (!(*p == ' ' || *p == '\n') || (o > s && o[-1] != ' ')) *o++ = *p == '\n' ? ' ' : *p;
  while (o > s && o[-1] == ' ') o--;
  *o = '\0';
  return s;
}

/* The text of [p, e) with its tags dropped and its blanks squeezed: a copy. */
static char *text_between(const char *p, const char *e) {
  char *out = malloc((size_t)(e - p) + 1), *o = out;
  for (int in = 0; p < e; p++)
    if (*p == '<')
      in = 1, *o++ = ' ';
    else if (*p == '>')
      in = 0;
    else if (!in)
      *o++ = *p;
  *o = '\0';
  return squeeze(out);
}
/* explain's section `name` ("cost"), without its heading: a copy */
static char *explain_section(const char *out, const char *name) {
  char head[32];
  snprintf(head, sizeof head, "== %s\n", name);
  const char *p = strstr(out, head);
  cr_assert(ne(ptr, (void *)p, NULL), "explain prints no '%s'", head);
  p += strlen(head);
  const char *e = strstr(p, "\n== ");
  char *s = strndup(p, e ? (size_t)(e - p) : strlen(p));
  for (size_t n = strlen(s); n && (s[n - 1] == '\n' || s[n - 1] == ' '); n--) s[n - 1] = '\0';
  return s;
}

/* The page shows explain's cost block as printed and its why as a
 * paragraph, and underlays every message explain marks critical (its '*'
 * lines), on Hockney and on the postal model. */
Test(html_page, explain_cost_why_and_critical_path, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  const char *cases[][10] = {
      {"bcast", "binomial", "-n", "8", "-m", "1000", NULL},
      {"bcast", "lambda-tree:lambda=0.6", "-n", "8", "--model", "postal:L=2", NULL},
      {"allreduce", "ring", "-n", "4", "-m", "4000", NULL}};
  enum { N = sizeof cases / sizeof *cases };
  char pages[N][4096], name[64];
  const char *u[N];
  for (int c = 0; c < N; c++) {
    const char *argv[12] = {"run"};
    int k = 1;
    for (int i = 0; cases[c][i]; i++) argv[k++] = cases[c][i];
    argv[k] = NULL;
    snprintf(name, sizeof name, "html_explain_%d", c);
    make_page(pages[c], sizeof pages[c], name, argv);
    u[c] = url(c, pages[c], "#end");
  }
  char *dom = browse_all(u, N, 1024, 768);
  for (int c = 0; c < N; c++) {
    const char *argv[12] = {"explain"};
    int k = 1;
    for (int i = 0; cases[c][i]; i++) argv[k++] = cases[c][i];
    argv[k] = NULL;
    struct cli r = run_env(NULL, argv);
    cr_assert(eq(int, r.status, 0), "%s", r.err);
    const char *fe, *f = frame(dom, c, &fe), *se, *s = section_in(f, fe, 0, &se);
    cr_assert(s != NULL);
    const char *text = strstr(s, "<div class=\"text\">");
    cr_assert(text && text < se, "case %d: no text beside the picture", c);
    /* the page's text of each section against explain's, blanks squeezed (the page lets a
     * paragraph flow to its width) */
    const char *h_cost = strstr(text, "<h3>cost</h3>"), *h_why = strstr(text, "<h3>why</h3>");
    const char *text_end = strstr(text, "</div>");
    cr_assert(h_cost && h_why && text_end && h_cost < h_why && h_why < text_end,
              "case %d: no cost and why beside the picture", c);
    const char *names[] = {"cost", "why"}, *from[] = {h_cost + 13, h_why + 12},
               *to[] = {h_why, text_end};
    for (int k2 = 0; k2 < 2; k2++) {
      char *plain = explain_section(r.out, names[k2]), *want = escaped(squeeze(plain));
      char *got = text_between(from[k2], to[k2]);
      cr_expect(eq(str, got, want), "case %d: the page's %s", c, names[k2]);
      free(plain), free(want), free(got);
    }
    cr_expect(ne(ptr, strstr(h_cost, "<pre>"), NULL), "case %d: the cost block in columns", c);
    int stars = 0;
    for (const char *p = r.out; (p = strstr(p, "\n  *")) != NULL; p++) stars++;
    cr_assert(gt(int, stars, 0));
    cr_expect(eq(int, count_tags(s, se, "<line class=\"crit", NULL), stars),
              "case %d: the critical path underlaid, one line a message", c);
    check_section(s, se, 1, "explain's page");
    cli_free(&r);
  }
  free(dom);
}

/* ------------------------------------------------------------ shapes beyond one tree */

/* The edges drawn in [s, se) as sorted "a-b" pairs (a < b), their count. */
static int edge_pairs(const char *s, const char *se, int *pairs, int cap, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, "<line class=\"edge")) && p < se; p++) {
    cr_assert(lt(int, n, cap), "%s: too many edges", what);
    int a = (int)attr(p, "data-a"), b = (int)attr(p, "data-b");
    pairs[n++] = a < b ? a * MAXP + b : b * MAXP + a;
  }
  for (int i = 1; i < n; i++) /* insertion sort: a few dozen */
    for (int k = i; k > 0 && pairs[k - 1] > pairs[k]; k--) {
      int x = pairs[k];
      pairs[k] = pairs[k - 1], pairs[k - 1] = x;
    }
  return n;
}

/* NCCL's btree on P ranks (allreduce_two_tree.c's tree 0): v with lowest
 * set bit 2^k has children v - 2^(k-1) and the largest v + 2^i < P, i < k;
 * the root 0 has one child, 2^(ceil(log2 P) - 1). Pairs appended to out. */
static int btree(int P, int *out, int n, int mirror) {
  int top = 1;
  while (top * 2 < P) top *= 2;
  int e[2 * MAXP][2], m = 0;
  e[m][0] = 0, e[m++][1] = top;
  for (int v = 2; v < P; v += 2) {
    int k = __builtin_ctz((unsigned)v);
    e[m][0] = v, e[m++][1] = v - (1 << (k - 1));
    for (int i = k - 1; i >= 0; i--)
      if (v + (1 << i) < P) {
        e[m][0] = v, e[m++][1] = v + (1 << i);
        break;
      }
  }
  for (int i = 0; i < m; i++) {
    int a = mirror ? P - 1 - e[i][0] : e[i][0], b = mirror ? P - 1 - e[i][1] : e[i][1];
    out[n++] = a < b ? a * MAXP + b : b * MAXP + a;
  }
  return n;
}

static int by_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

/* Shapes found in the messages: dual-root's two trees on [0, 7) and
 * [7, 14) whose roots 6 and 13 exchange (a dashed edge); two-tree's two
 * trees on 12 ranks, edge for edge NCCL's btree and its mirror; the
 * circulant graph of a dissemination barrier on 8 ranks (a chord for
 * every rank at shifts 1, 2, 4: 20 pairs); recursive doubling's
 * butterfly (a segment a message, each between v and v xor 2^j). */
Test(html_page, shapes_from_the_messages, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char dual[4096], two[4096], diss[4096], rd[4096];
  PAGE(dual, "html_shape_dual", "run", "allreduce", "dual-root", "-n", "14", "-m", "64KiB");
  PAGE(two, "html_shape_two", "run", "allreduce", "two-tree", "-n", "12", "-m", "4KiB");
  PAGE(diss, "html_shape_diss", "run", "barrier", "dissemination", "-n", "8");
  PAGE(rd, "html_shape_rd", "run", "allreduce", "recursive-doubling", "-n", "8", "-m", "1KiB");
  const char *u[] = {url(0, dual, "#end"),    url(1, two, "#end"),     url(2, diss, "#end"),
                     url(3, rd, "#end"),      url(4, dual, "#step=9"), url(5, two, "#step=9"),
                     url(6, diss, "#step=3"), url(7, rd, "#step=3")};
  char *dom = browse_all(u, 8, 1024, 768);
  const char *fe, *f, *se, *s;
  int got[4 * MAXP], want[4 * MAXP], n;

  f = frame(dom, 0, &fe), s = section_in(f, fe, 0, &se);
  check_section(s, se, 1, "dual-root");
  cr_expect(ne(ptr, strstr(s, "two trees, roots 6 and 13 exchanging"), NULL), "the caption");
  n = edge_pairs(s, se, got, 4 * MAXP, "dual-root");
  cr_expect(eq(int, n, 13), "12 tree edges and the roots' exchange");
  cr_expect(eq(int, count_tags(s, se, "<line class=\"edge", "dual"), 1));
  for (int i = 0; i < n; i++)
    if (got[i] != 6 * MAXP + 13)
      cr_expect(eq(int, got[i] / MAXP < 7, got[i] % MAXP < 7), "edge %d-%d crosses the halves",
                got[i] / MAXP, got[i] % MAXP);

  f = frame(dom, 1, &fe), s = section_in(f, fe, 0, &se);
  check_section(s, se, 1, "two-tree");
  cr_expect(ne(ptr, strstr(s, "two trees over all ranks"), NULL), "the caption");
  n = edge_pairs(s, se, got, 4 * MAXP, "two-tree");
  int m = btree(12, want, btree(12, want, 0, 0), 1);
  qsort(want, (size_t)m, sizeof *want, by_int);
  cr_assert(eq(int, n, m), "two trees of 11 edges each");
  for (int i = 0; i < n; i++)
    cr_expect(eq(int, got[i], want[i]), "edge %d: %d-%d, NCCL's %d-%d", i, got[i] / MAXP,
              got[i] % MAXP, want[i] / MAXP, want[i] % MAXP);

  f = frame(dom, 2, &fe), s = section_in(f, fe, 0, &se);
  check_section(s, se, 1, "dissemination");
  cr_expect(ne(ptr, strstr(s, "the circulant graph"), NULL), "the caption");
  n = edge_pairs(s, se, got, 4 * MAXP, "dissemination");
  cr_expect(eq(int, n, 20), "shifts 1 and 2 at each of 8 ranks, 4 at half of them");
  for (int i = 0; i < n; i++) {
    int d = got[i] % MAXP - got[i] / MAXP;
    cr_expect(d == 1 || d == 2 || d == 4 || d == 6 || d == 7, "chord %d-%d", got[i] / MAXP,
              got[i] % MAXP);
  }

  f = frame(dom, 3, &fe), s = section_in(f, fe, 0, &se);
  check_section(s, se, 1, "recursive doubling");
  cr_expect(ne(ptr, strstr(s, "round by round"), NULL), "the caption");
  cr_expect(eq(int, count_tags(s, se, "<line class=\"seg", NULL), 24), "a segment a message");
  for (const char *p = s; (p = strstr(p, "<line class=\"seg")) && p < se; p++) {
    int x = (int)attr(p, "data-src") ^ (int)attr(p, "data-dst");
    cr_expect(x == 1 || x == 2 || x == 4, "a butterfly's partners differ in one bit: %d", x);
  }
  for (int i = 4; i < 8; i++) check_frame(dom, i, 0, "a shape mid-run");
  free(dom);
}

/* ------------------------------------------------------------ a topology */

/* The ranks in the order their lanes run down the timeline. */
static void lanes(const char *s, const char *se, int P, int *order) {
  double y[MAXP];
  char buf[256];
  for (int r = 0; r < P; r++) y[r] = -1;
  for (const char *p = s; (p = strstr(p, "<text class=\"lbl")) && p < se; p++) {
    int st, r = label_rank(text_of(p, buf, sizeof buf), &st);
    if (r >= 0 && r < P) y[r] = attr(p, "y");
  }
  for (int i = 0; i < P; i++) {
    int best = -1;
    for (int r = 0; r < P; r++)
      if (y[r] >= 0 && (best < 0 || y[r] < y[best])) best = r;
    cr_assert(best >= 0, "a rank without a lane");
    order[i] = best, y[best] = -1;
  }
}

/* The run's link report line for `link` ("s0 -> root"): messages and queue. */
static void link_report(const char *out, const char *link, int *msgs, int *queue) {
  char pat[64];
  snprintf(pat, sizeof pat, "\n  %s ", link);
  const char *p = strstr(out, pat);
  cr_assert(ne(ptr, (void *)p, NULL), "no '%s' in the link report", link);
  char unit[16];
  double bytes, busy, queued;
  char bu[16], qu[16];
  int got = sscanf(p + strlen(pat), "%d %lf %15s %lf %15s %lf %15s %d", msgs, &bytes, unit, &busy,
                   bu, &queued, qu, queue);
  cr_assert(eq(int, got, 8), "cannot read '%.80s'", p);
}

/* On tree:2x4 with the round-robin mapping: the switch tree (root, s0, s1,
 * the eight ranks at the leaves), its links labelled with the messages
 * and longest queue `tutti run` reports (the rank-order chain's s0 -> root:
 * 32 messages, 7 at once); the lanes follow the chain -- rank order for
 * order=rank, the topology's 0 2 4 6 1 3 5 7 for order=dfs -- and for a
 * tree that is no chain, the switches' order; links carrying a message
 * light up at mid-run. */
Test(html_page, topology_drawn, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char rank[4096], dfs[4096], bin[4096];
#define TOPO "-n", "8", "-m", "1MiB", "--topology", "tree:2x4", "--mapping", "roundrobin"
  PAGE(rank, "html_topo_rank", "run", "bcast", "pipelined-chain:segments=8,order=rank", TOPO);
  PAGE(dfs, "html_topo_dfs", "run", "bcast", "pipelined-chain:segments=8,order=dfs", TOPO);
  PAGE(bin, "html_topo_binomial", "run", "bcast", "binomial", TOPO);
  struct cli r = CLI("run", "bcast", "pipelined-chain:segments=8,order=rank", TOPO, "--no-data");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
#undef TOPO
  const char *u[] = {url(0, rank, "#end"), url(1, dfs, "#end"), url(2, bin, "#end"),
                     url(3, rank, "#step=41"), url(4, dfs, "#step=30")};
  char *dom = browse_all(u, 5, 1024, 768);
  static const int by_rank[8] = {0, 1, 2, 3, 4, 5, 6, 7}, by_switch[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  const int *want[3] = {by_rank, by_switch, by_switch};
  for (int i = 0; i < 3; i++) {
    const char *fe, *f = frame(dom, i, &fe), *se, *s = section_in(f, fe, 0, &se);
    check_section(s, se, 1, "a topology");
    int order[8];
    lanes(s, se, 8, order);
    for (int k = 0; k < 8; k++)
      cr_expect(eq(int, order[k], want[i][k]), "page %d: lane %d holds rank %d, want %d", i, k,
                order[k], want[i][k]);
    cr_expect(eq(int, count_tags(s, se, "<g class=\"swn\"", NULL), 3), "three switches");
    cr_expect(ne(ptr, strstr(s, ">root</text>"), NULL));
    /* a node a rank in the shape, and one at each leaf of the switch tree */
    cr_expect(eq(int, count_tags(s, se, "<g class=\"node", NULL), 16));
    cr_expect(eq(int, count_tags(s, se, "<line class=\"lk", NULL), 2 * (2 + 8)),
              "two links an edge: up and down");
  }
  int msgs, queue;
  link_report(r.out, "s0 -> root", &msgs, &queue);
  cr_assert(eq(int, msgs, 32), "the lab's figure");
  char title[128];
  snprintf(title, sizeof title, "<title>s0 -&gt; root: %d messages, longest queue %d</title>", msgs,
           queue);
  const char *fe, *f = frame(dom, 0, &fe);
  const char *t = strstr(f, title);
  cr_expect(t && t < fe, "the switch tree names %s", title);
  cr_expect(ne(ptr, strstr(f, ">queue 7<"), NULL), "the longest queue beside its switch");
  for (int i = 3; i < 5; i++) {
    check_frame(dom, i, 0, "a topology mid-run");
    f = frame(dom, i, &fe);
    cr_expect(gt(int, count_tags(f, fe, "<line class=\"lk", "fly"), 0), "links carry mid-run");
  }
  cli_free(&r);
  free(dom);
}

/* ------------------------------------------------------------ a projector */

/* The box the browser gave the svg whose tag starts at p: l, t, r, b. */
static void box(const char *p, double b[4]) {
  char buf[96];
  attr_text(p, "data-box", buf, sizeof buf);
  cr_assert(eq(int, sscanf(buf, "%lf,%lf,%lf,%lf", &b[0], &b[1], &b[2], &b[3]), 4), "box '%s'",
            buf);
}

/* At 1024x768 the first run's shape stands beside its timeline and both
 * end above the window's bottom edge, for 16 ranks (a tree, dual-root's
 * two trees with 326 messages), on tree:2x4 (the chain, the switch tree
 * and 18 link lanes), and in a compare page under its finish bars. */
Test(html_page, fits_a_projector, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char bin[4096], dual[4096], chain[4096], cmp[4096];
  PAGE(bin, "html_fit_binomial", "run", "bcast", "binomial", "-n", "16");
  PAGE(dual, "html_fit_dual", "run", "allreduce", "dual-root", "-n", "16", "-m", "64KiB");
  PAGE(chain, "html_fit_chain", "run", "bcast", "pipelined-chain:segments=8,order=dfs", "-n", "8",
       "-m", "1MiB", "--topology", "tree:2x4", "--mapping", "roundrobin");
  PAGE(cmp, "html_fit_compare", "compare", "bcast", "flat", "binomial", "lambda-tree", "-n", "16");
  const char *u[] = {url(0, bin, "#step=3"), url(1, dual, "#step=30"), url(2, chain, "#step=12"),
                     url(3, cmp, "#step=5")};
  char *dom = browse_all(u, 4, 1024, 768);
  for (int i = 0; i < 4; i++) {
    const char *fe, *f = frame(dom, i, &fe), *se, *s = section_in(f, fe, 0, &se);
    cr_assert(s != NULL);
    const char *shape = strstr(s, "<div class=\"shape\">"),
               *time = strstr(s, "<div class=\"time\">");
    cr_assert(shape && time && shape < time && time < se, "page %d: a shape and a timeline", i);
    double t[4], b[4];
    box(strstr(time, "<svg"), t);
    cr_expect(le(dbl, t[3], 768), "page %d: the timeline ends at %g, below the window", i, t[3]);
    cr_expect(le(dbl, t[2], 1024), "page %d: the timeline is wider than the window", i);
    int n = 0;
    for (const char *p = shape; (p = strstr(p, "<svg")) && p < time; p++, n++) {
      box(p, b);
      cr_expect(le(dbl, b[3], 768), "page %d: the shape's picture %d ends at %g", i, n, b[3]);
      cr_expect(le(dbl, b[2], t[0]), "page %d: the shape's picture %d is not beside the timeline",
                i, n);
      cr_expect(lt(dbl, b[1], t[3]), "page %d: nor level with it", i);
    }
    cr_expect(eq(int, n, i == 2 ? 2 : 1), "page %d: the shape (and the switch tree)", i);
  }
  free(dom);
}

/* ------------------------------------------------------------ a student's own algorithm */

/* bench/labs/lab5-kary.c, a file as a student writes it, goes through
 * `tutti run --html` and `tutti explain` like a built-in: the page draws
 * its k-ary heap (rank v's parent (v-1)/3) from its messages, and explain
 * gives its cost and why. */
Test(html_page, a_students_file, .timeout = 300) {
  const char *src = getenv("TUTTI_SOURCE_DIR");
  cr_assert(ne(ptr, (void *)src, NULL), "TUTTI_SOURCE_DIR is not set");
  char file[4096], cache[64], page[4096], opt[4200];
  snprintf(file, sizeof file, "%s/bench/labs/lab5-kary.c", src);
  snprintf(cache, sizeof cache, "/tmp/tutti_html_cache_%d", (int)getpid());
  cr_assert(eq(int, setenv("TUTTI_CACHE_DIR", cache, 1), 0));
  page_path(page, sizeof page, "html_kary.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  struct cli r = CLI("run", "bcast", file, "-n", "8", "-m", "1KiB", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  HAS(r.out, "algorithm     kary:k=3");
  cli_free(&r);
  r = CLI("explain", "bcast", file, "-n", "8", "-m", "1KiB");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  HAS(r.out, "== cost");
  HAS(r.out, "== why");
  cli_free(&r);
  self_contained(page);
  const char *rm[] = {"rm", "-rf", cache, NULL};
  pid_t pid;
  if (!posix_spawnp(&pid, "rm", NULL, NULL, (char *const *)rm, environ)) waitpid(pid, NULL, 0);
  if (SANITIZED) return;
  const char *u[] = {url(0, page, "#end"), url(1, page, "#step=4")};
  char *dom = browse_all(u, 2, 1024, 768);
  const char *fe, *f = frame(dom, 0, &fe), *se, *s = section_in(f, fe, 0, &se);
  check_section(s, se, 1, "kary");
  cr_expect(ne(ptr, strstr(s, "the tree, from the messages"), NULL), "the caption");
  int got[MAXP], n = edge_pairs(s, se, got, MAXP, "kary");
  cr_assert(eq(int, n, 7));
  for (int v = 1; v < 8; v++)
    cr_expect(eq(int, got[v - 1], (v - 1) / 3 * MAXP + v), "edge %d: %d-%d", v - 1,
              got[v - 1] / MAXP, got[v - 1] % MAXP);
  cr_expect(ne(ptr, strstr(s, "<div class=\"text\"><h3>cost</h3>"), NULL), "its cost beside it");
  check_frame(dom, 1, 0, "kary mid-run");
  free(dom);
}

/* ------------------------------------------------------------ every algorithm */

struct every {
  int P;
  int topo; /* on tree:2x4, the round-robin mapping (a flag: Criterion copies parameters into a
               process of its own, where a pointer would not hold) */
};

ParameterizedTestParameters(html_page, every_algorithm) {
  static struct every params[] = {{8, 0}, {16, 0}, {8, 1}};
  return cr_make_param_array(struct every, params, sizeof params / sizeof *params);
}

/* Every registered algorithm, in `tutti compare` pages of one collective
 * (at most 7 algorithms a page, so split evenly), each page at #end and at
 * event 9, one browser for all: the checks of check_section on every run. */
ParameterizedTest(struct every *e, html_page, every_algorithm, .timeout = 400) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  enum { MAXPAGES = 24 };
  static char pages[MAXPAGES][4096];
  int npages = 0, nruns[MAXPAGES], total = 0;
  char ranks[16];
  snprintf(ranks, sizeof ranks, "%d", e->P);
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    const char *names[64];
    int n = 0;
    const tutti_algo_desc_t *d;
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
      if (d->coll == c && n < 64) names[n++] = d->name;
    int chunks = (n + 6) / 7;
    for (int k = 0, at = 0; k < chunks; k++) {
      int m = (n - at) / (chunks - k); /* even chunks: 8 is 4 and 4, not 7 and 1 */
      cr_assert(lt(int, npages, MAXPAGES));
      char name[64], opt[4200];
      snprintf(name, sizeof name, "html_every_%d%s_%s_%d.html", e->P, e->topo ? "_topo" : "",
               tutti_coll_name(c), k);
      page_path(pages[npages], sizeof pages[npages], name);
      snprintf(opt, sizeof opt, "--html=%s", pages[npages]);
      const char *argv[32] = {"compare", tutti_coll_name(c)};
      int a = 2;
      for (int i = 0; i < m; i++) argv[a++] = names[at + i];
      argv[a++] = "-n", argv[a++] = ranks;
      if (tutti_coll_traits(c) & TUTTI_COLL_DATA) argv[a++] = "-m", argv[a++] = "1KiB";
      if (e->topo)
        argv[a++] = "--topology", argv[a++] = "tree:2x4", argv[a++] = "--mapping",
        argv[a++] = "roundrobin";
      argv[a++] = opt;
      argv[a] = NULL;
      struct cli r = run_env(NULL, argv);
      cr_assert(eq(int, r.status, 0), "%s: %s", name, r.err);
      cli_free(&r);
      nruns[npages++] = m, total += m, at += m;
    }
  }
  int want = 0;
  for (int i = 0; tutti_algo_desc_at(i); i++) want++;
  cr_assert(eq(int, total, want), "every registered algorithm has a run");
  const char *u[2 * MAXPAGES] = {0};
  for (int i = 0; i < npages; i++)
    u[2 * i] = url(2 * i, pages[i], "#end"), u[2 * i + 1] = url(2 * i + 1, pages[i], "#step=9");
  char *dom = browse_all(u, 2 * npages, 1024, 768);
  for (int i = 0; i < npages; i++) {
    cr_assert(eq(int, check_frame(dom, 2 * i, 1, pages[i]), nruns[i]), "%s: a section a run",
              pages[i]);
    check_frame(dom, 2 * i + 1, 0, pages[i]);
  }
  free(dom);
}
