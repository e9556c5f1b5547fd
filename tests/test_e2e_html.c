/*
 * test_e2e_html.c -- the step-through page of `tutti run --html` and
 * `tutti compare --html` (bench/html.c, bench/html_page.html), loaded in a
 * real browser: Debian's chromium, headless (html_helpers.h: several pages
 * in one browser). The page opened at #end steps to its last event on load
 * and leaves its counters in data-* attributes; chromium --dump-dom prints
 * the DOM after the script ran, which html_checks.h checks as every page
 * must look at any event. Checked against
 * `tutti run --json` / `tutti compare --json` of the same run: the arrows
 * drawn equal the run's messages, every message is delivered at the end,
 * none is in flight, and the last time shown is the modeled time (the
 * page's last event is the latest of the messages' and ranks' times, found
 * by the script, not copied). At #step=1 nothing is delivered yet. A
 * screenshot of each page goes into the build directory (html_*.png).
 * Without chromium those tests skip, unless TUTTI_REQUIRE_CHROMIUM=1 (CI),
 * which makes them fail. Bad input (too many ranks, an unwritable file, a
 * write error, compare's usage) is exit 2 or 3 with one line. The link
 * passages the page's link lanes draw (tutti_explain_t.hops) follow each
 * message's route, never overlap on a link, and add up to its link_wait.
 *
 * Under ASan the pages are written (and checked to fetch nothing) but not
 * loaded: the browser is not instrumented and each load takes seconds;
 * the plain build loads them.
 * TUTTI_TSAN_SKIP: the browser is a separate program that TSan does not
 * instrument, and each load takes seconds; the page's data path is the
 * library's tutti_world_explain, which test_e2e_explain covers under TSan.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "html_checks.h"
#include "json_reader.h"
#include "tutti/tutti.h"

/* ------------------------------------------------------------ run --html */

struct page_case {
  const char *name; /* the page and screenshot: html_NAME.html, .png */
  const char *args[12];
};

/* Run the case with --json and --html, load the page at #end (and, with
 * a screenshot, at #step=1 in the same browser), check what it shows
 * against the JSON; its path in page. */
static void check_run_page(const struct page_case *c, int screenshot, char *page, size_t n) {
  char opt[4200];
  page_path(page, n, c->name);
  strcat(page, ".html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  const char *argv[20] = {"run"};
  int k = 1;
  for (int i = 0; c->args[i]; i++) argv[k++] = c->args[i];
  argv[k++] = "--json";
  argv[k++] = opt;
  argv[k] = NULL;
  struct cli r = run_env(NULL, argv);
  cr_assert(eq(int, r.status, 0), "%s: %s", c->name, r.err);
  struct jp j = json_ok(r.out);
  double msgs = json_num(&j, "messages"), T = json_num(&j, "modeled_time"),
         P = json_num(&j, "ranks");
  cr_assert(gt(dbl, msgs, 0));
  self_contained(page);
  cli_free(&r);
  if (SANITIZED) return;

  char end_url[4200], first_url[4200];
  snprintf(end_url, sizeof end_url, "%s#end", page);
  snprintf(first_url, sizeof first_url, "%s#step=1", page);
  const char *urls[] = {end_url, first_url};
  char *dom = browse_all(urls, screenshot ? 2 : 1, 1600, 1200);
  const char *fe, *f = frame(dom, 0, &fe), *se;
  const char *now = strstr(f, "id=\"now\""), *s = section_in(f, fe, 0, &se);
  cr_assert(now && s, "%s: the page drew nothing: %.300s", c->name, f);
  cr_assert(section_in(f, fe, 1, &se) == NULL, "one run, one section");
  cr_assert(eq(dbl, attr(now, "data-step"), attr(now, "data-steps")), "#end is the last event");
  near(attr(now, "data-t"), T, "the last time");
  near(attr(s, "data-t"), T, "the run's time");
  cr_assert(eq(dbl, attr(s, "data-messages"), msgs), "%s: messages in the data", c->name);
  cr_assert(eq(dbl, attr(s, "data-drawn"), msgs), "%s: arrows drawn", c->name);
  cr_assert(eq(dbl, attr(s, "data-delivered"), msgs), "%s: delivered at the end", c->name);
  cr_assert(eq(dbl, attr(s, "data-in-flight"), 0));
  cr_assert(eq(dbl, attr(s, "data-blocked"), 0), "nobody is blocked after the end");
  cr_assert(eq(dbl, attr(s, "data-done"), P), "every rank is done at the end");
  check_frame(dom, 0, 1, c->name); /* html_checks.h: what every page must show */
  if (screenshot) { /* the first event: time 0, when no message can have arrived yet */
    f = frame(dom, 1, &fe);
    s = section_in(f, fe, 0, &se);
    now = strstr(f, "id=\"now\"");
    cr_assert(s && now);
    cr_assert(eq(dbl, attr(now, "data-t"), 0));
    cr_assert(eq(dbl, attr(s, "data-delivered"), 0));
    cr_assert(ge(dbl, attr(s, "data-in-flight"), 1), "%s: a first message leaves at 0", c->name);
    check_frame(dom, 1, 0, c->name);
    char png[4096], shot[4200];
    page_path(png, sizeof png, c->name);
    strcat(png, ".png");
    unlink(png);
    snprintf(shot, sizeof shot, "--screenshot=%s", png);
    free(browse(page, "#step=3", shot, "1600,1000"));
    check_png(png);
  }
  free(dom);
}

Test(html, run_binomial_16, .timeout = 300) {
  struct page_case c = {"html_run_binomial16", {"bcast", "binomial", "-n", "16", NULL}};
  char page[4096];
  check_run_page(&c, 1, page, sizeof page);
}

/* A tree edge carrying a message is styled in flight, whichever way the
 * edge was stored: at every early event of a broadcast (each message on
 * its own tree edge), the edges in flight are the messages in flight. */
Test(html, edges_in_flight_are_the_messages_in_flight, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char page[4096], opt[4200], url[4][4200];
  page_path(page, sizeof page, "html_edges.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  struct cli r = CLI("run", "bcast", "binomial", "-n", "8", "-m", "1000", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  const char *urls[4];
  for (int k = 0; k < 4; k++)
    snprintf(url[k], sizeof url[k], "%s#step=%d", page, k + 2), urls[k] = url[k];
  char *dom = browse_all(urls, 4, 1600, 1200);
  int flying = 0;
  for (int k = 0; k < 4; k++) {
    const char *fe, *f = frame(dom, k, &fe), *se, *sec = section_in(f, fe, 0, &se);
    cr_assert(sec != NULL, "#step=%d: the page drew nothing", k + 2);
    double fly = attr(sec, "data-in-flight");
    cr_expect(eq(dbl, attr(sec, "data-edges-in-flight"), fly), "#step=%d: %g messages in flight",
              k + 2, fly);
    cr_expect(eq(int, count_tags(sec, se, "<line class=\"edge", "fly"), (int)fly),
              "#step=%d: the edges styled in flight", k + 2);
    flying += fly > 0;
  }
  cr_assert(gt(int, flying, 0), "some event has a message in flight");
  free(dom);
  cli_free(&r);
}

/* #step=K opens event K, as the bar counts them; play reaches each event
 * at its modeled time in proportion (data-wall: the wall seconds into a
 * 1x play, 10 for the whole run); a postal axis counts "1 step", and the
 * label at the axis' end ends there instead of past the picture. */
Test(html, steps_play_and_axes, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char page[4096], opt[4200], url[4][4200];
  page_path(page, sizeof page, "html_steps.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  struct cli r = CLI("run", "bcast", "binomial", "-n", "8", "--model", "postal:L=2", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  cli_free(&r);
  const char *urls[4];
  snprintf(url[0], sizeof url[0], "%s#end", page);
  for (int k = 1; k < 4; k++) snprintf(url[k], sizeof url[k], "%s#step=%d", page, 2 * k);
  for (int k = 0; k < 4; k++) urls[k] = url[k];
  char *dom = browse_all(urls, 4, 1600, 1200);
  const char *fe, *f = frame(dom, 0, &fe), *now = strstr(f, "id=\"now\"");
  cr_assert(now != NULL);
  double T = attr(now, "data-t"), steps = attr(now, "data-steps");
  cr_assert(ge(dbl, steps, 7), "a postal binomial broadcast on 8 ranks has events enough");
  near(attr(now, "data-wall"), 10, "a whole run plays in 10 s at 1x");
  char *text = strndup(f, (size_t)(fe - f));
  cr_expect(eq(ptr, strstr(text, ">1 steps<"), NULL), "one step is '1 step'");
  cr_expect(ne(ptr, strstr(text, ">1 step<"), NULL), "the axis has a tick at 1 step");
  const char *tick = NULL, *p = strstr(text, "class=\"time\""); /* the timeline's ticks */
  cr_assert(p != NULL);
  while ((p = strstr(p, "class=\"tick\"")) && p < strstr(text, "class=\"cursor\"")) tick = p++;
  cr_assert(tick != NULL);
  cr_expect(ne(ptr, strstr(tick, "text-anchor=\"end\""), NULL), "the last tick ends at the axis");
  free(text);
  for (int k = 1; k < 4; k++) {
    char want[32];
    f = frame(dom, k, &fe);
    now = strstr(f, "id=\"now\"");
    cr_assert(now != NULL);
    cr_expect(eq(dbl, attr(now, "data-step"), 2 * k), "#step=%d opens event %d", 2 * k, 2 * k);
    snprintf(want, sizeof want, ">event %d of ", 2 * k);
    cr_expect(ne(ptr, strstr(now, want), NULL), "#step=%d: the bar says event %d", 2 * k, 2 * k);
    near(attr(now, "data-wall"), attr(now, "data-t") / T * 10, "played in proportion");
  }
  free(dom);
}

/* a schedule (no tree), a non-power of two */
Test(html, run_allreduce_ring_5, .timeout = 300) {
  struct page_case c = {"html_run_ring5", {"allreduce", "ring", "-n", "5", "-m", "40", NULL}};
  char page[4096];
  check_run_page(&c, 0, page, sizeof page);
}

/* link lanes with queues: the lecture's bad mapping on two switches */
Test(html, run_topology, .timeout = 300) {
  struct page_case c = {"html_run_topo",
                        {"bcast", "binomial", "-n", "8", "-m", "64KiB", "--topology", "tree:2x4",
                         "--mapping", "roundrobin", NULL}};
  char page[4096];
  check_run_page(&c, 1, page, sizeof page);
  FILE *f = fopen(page, "r");
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  HAS(text, "s0 -\\u003e root"); /* a lane for the uplink the mapping overloads */
}

/* ------------------------------------------------------------ compare */

/* The i-th "modeled_time" of compare --json's results. */
static double nth_time(const char *json, int i) {
  const char *p = json;
  for (int k = 0; k <= i; k++) {
    p = strstr(p, "\"modeled_time\":");
    cr_assert(p != NULL, "compare --json has fewer results");
    p += strlen("\"modeled_time\":");
  }
  return strtod(p, NULL);
}

Test(html, compare_page, .timeout = 300) {
  const char *algos[] = {"flat", "binomial", "lambda-tree"};
  double T[3], tmax = 0;
  for (int i = 0; i < 3; i++) { /* each algorithm's own run: the reference */
    struct cli r = CLI("run", "bcast", algos[i], "-n", "16", "-m", "1KiB", "--json");
    cr_assert(eq(int, r.status, 0), "%s", r.err);
    struct jp j = json_ok(r.out);
    T[i] = json_num(&j, "modeled_time");
    tmax = T[i] > tmax ? T[i] : tmax;
    cli_free(&r);
  }
  struct cli r = CLI("compare", "bcast", "flat", "binomial", "lambda-tree", "-n", "16", "-m",
                     "1KiB", "--json");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  json_ok(r.out);
  for (int i = 0; i < 3; i++) near(nth_time(r.out, i), T[i], "compare --json's time");
  cli_free(&r);

  char page[4096], opt[4200];
  page_path(page, sizeof page, "html_compare.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  r = CLI("compare", "bcast", "flat", "binomial", "lambda-tree", "-n", "16", "-m", "1KiB", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  HAS(r.out, "x fastest");
  cli_free(&r);
  self_contained(page);
  if (SANITIZED) return;
  char url[4200];
  snprintf(url, sizeof url, "%s#end", page);
  const char *urls[] = {url};
  char *dom = browse_all(urls, 1, 1600, 1200);
  near(attr(strstr(dom, "id=\"now\""), "data-t"), tmax, "the shared axis ends at the slowest");
  for (int i = 0; i < 3; i++) {
    const char *s = section(dom, i);
    cr_assert(s != NULL, "run %d not drawn", i);
    cr_assert(eq(dbl, attr(s, "data-drawn"), 15), "a broadcast to 15 ranks: 15 arrows");
    cr_assert(eq(dbl, attr(s, "data-delivered"), 15));
    near(attr(s, "data-t"), T[i], "each run's own end");
  }
  cr_assert(section(dom, 3) == NULL, "three runs, three sections");
  cr_assert(eq(int, check_frame(dom, 0, 1, "compare"), 3));
  /* the finish times on top: a bar a run, in order, each as long as its time, the fastest's
   * marked */
  const char *bars = strstr(dom, "id=\"finish\""), *runs = strstr(dom, "id=\"runs\"");
  cr_assert(bars && runs && bars < runs, "the finish bars come before the runs");
  cr_assert(eq(int, count_tags(bars, runs, "<rect class=\"fin", "fin"), 3), "a bar a run");
  cr_assert(eq(int, count_tags(bars, runs, "<rect class=\"fin", "best"), 1), "one fastest");
  const char *bar = bars;
  double x0 = 0, w[3];
  char cls[64];
  for (int i = 0; i < 3; i++) { /* the bars, not the fills of what has run so far */
    do bar = strstr(bar + 1, "<rect class=\"fin");
    while (bar && !has_class(attr_text(bar, "class", cls, sizeof cls), "fin"));
    cr_assert(bar != NULL);
    x0 = attr(bar, "x"), w[i] = attr(bar, "width");
  }
  cr_assert(gt(dbl, x0, 0));
  for (int i = 0; i < 3; i++)
    cr_expect(fabs(w[i] / w[0] - T[i] / T[0]) < 1e-9, "bar %d is in proportion to its time", i);
  free(dom);
  char png[4096], shot[4200];
  page_path(png, sizeof png, "html_compare.png");
  unlink(png);
  snprintf(shot, sizeof shot, "--screenshot=%s", png);
  free(browse(page, "#step=7", shot, "1600,2400"));
  check_png(png);
}

/* ------------------------------------------------------------ bad input */

Test(html, too_many_ranks, .timeout = 60) {
  fails_with(CLI("run", "bcast", "binomial", "-n", "33", "--html", "/tmp/tutti_x.html"), 2,
             "too many");
  fails_with(CLI("compare", "bcast", "flat", "binomial", "-n", "64", "--html", "/tmp/tutti_x.html"),
             2, "-n 1..32");
  struct stat st;
  cr_assert(stat("/tmp/tutti_x.html", &st) != 0 || st.st_size == 0, "no page written");
}

Test(html, unwritable_file, .timeout = 60) {
  fails_with(CLI("run", "bcast", "binomial", "-n", "4", "--html", "/nonexistent/dir/p.html"), 2,
             "--html: cannot write '/nonexistent/dir/p.html'");
  fails_with(
      CLI("compare", "bcast", "flat", "binomial", "-n", "4", "--html", "/nonexistent/dir/p.html"),
      2, "cannot write");
  /* opened, but the writes fail: after the run, exit 3 */
  fails_with(CLI("run", "bcast", "binomial", "-n", "4", "--html", "/dev/full"), 3,
             "--html: writing '/dev/full' failed");
  fails_with(CLI("compare", "bcast", "flat", "binomial", "-n", "4", "--html", "/dev/full"), 3,
             "writing '/dev/full' failed");
}

Test(html, no_model, .timeout = 60) {
  fails_with(CLI("run", "bcast", "binomial", "-n", "4", "--model", "none", "--html", "/tmp/x.html"),
             2, "none model");
  fails_with(CLI("compare", "bcast", "flat", "binomial", "--model", "none"), 2, "none model");
}

Test(html, compare_usage, .timeout = 60) {
  fails_with(CLI("compare"), 2, "missing COLL");
  fails_with(CLI("compare", "bcast"), 2, "fewer than two");
  fails_with(CLI("compare", "bcast", "binomial"), 2, "fewer than two");
  fails_with(CLI("compare", "bcast", "binomial", "no-such"), 2, "no-such");
  fails_with(CLI("compare", "nocoll", "a", "b"), 2, "unknown collective");
  fails_with(CLI("compare", "bcast", "flat", "binomial", "--json", "--html", "/tmp/x.html"), 2,
             "--html: not with --json");
  fails_with(CLI("compare", "bcast", "flat", "binomial", "--param", "k=2"), 2, "--param");
  fails_with(CLI("compare", "bcast", "a", "b", "c", "d", "e", "f", "g", "h"), 2,
             "8 algorithms; accepted: tutti compare COLL ALGO1 ALGO2 ..., 2 to 7 algorithms");
  fails_with(CLI("compare", "barrier", "flat", "binomial", "-m", "8"), 2, "moves no data");
}

/* Without --html, compare's table: each time is its algorithm's run time,
 * the fastest's multiple is 1, and more than 32 ranks are fine. */
Test(html, compare_table, .timeout = 120) {
  struct cli r = CLI("compare", "reduce", "binomial", "flat", "-n", "40", "--json");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  json_ok(r.out);
  double a = nth_time(r.out, 0), b = nth_time(r.out, 1);
  struct cli ra = CLI("run", "reduce", "binomial", "-n", "40", "--json");
  struct cli rb = CLI("run", "reduce", "flat", "-n", "40", "--json");
  struct jp ja = json_ok(ra.out), jb = json_ok(rb.out);
  near(a, json_num(&ja, "modeled_time"), "binomial");
  near(b, json_num(&jb, "modeled_time"), "flat");
  cr_assert(lt(dbl, a, b), "a binomial reduce beats the flat one at 40 ranks");
  const char *ratio = strstr(r.out, "\"ratio\":");
  cr_assert(ratio != NULL, "no ratio in %s", r.out);
  near(strtod(ratio + 8, NULL), 1, "the fastest's multiple");
  near(strtod(strstr(ratio + 8, "\"ratio\":") + 8, NULL), b / a, "the other's multiple");
  cli_free(&r), cli_free(&ra), cli_free(&rb);
  r = CLI("compare", "reduce", "binomial", "flat", "-n", "40");
  cr_assert(eq(int, r.status, 0));
  HAS(r.out, "x fastest");
  HAS(r.out, "binomial");
  cli_free(&r);
}

/* ------------------------------------------------------------ the data */

/* tutti_world_explain's link passages, which the page's link lanes draw:
 * every message crosses exactly the links of its route, in path order;
 * a passage starts when its link is free (a link's passages never
 * overlap), after the message arrived; its queueing adds up to the
 * message's link_wait. Without a topology there are none. */
static int bcast_64k(tutti_rank_t *r, void *arg) {
  static char buf[8][65536];
  const tutti_algo_t *const *algo = arg;
  return tutti_bcast(r, buf[tutti_rank(r)], 65536, TUTTI_BYTE, 0, *algo);
}

static int by_head(const void *a, const void *b) {
  const tutti_hop_info_t *p = a, *q = b;
  if (p->link != q->link) return p->link < q->link ? -1 : 1;
  return p->head < q->head ? -1 : p->head > q->head;
}

Test(html, explain_hops, .timeout = 120) {
  for (int topo = 0; topo < 2; topo++) {
    tutti_machine_spec_t ms = tutti_machine_spec_default();
    tutti_machine_t mc;
    char err[512] = "";
    ms.topology = topo ? "tree:2x4" : NULL;
    ms.mapping = topo ? "roundrobin" : NULL;
    ms.nranks = topo ? 8 : 0;
    cr_assert(eq(int, tutti_machine_build(&ms, &mc, NULL, err, sizeof err), 0), "%s", err);
    tutti_config_t cfg = tutti_config_default(8);
    cfg.model = &mc.model;
    tutti_world_t *w;
    const tutti_algo_t *a;
    cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, &a, NULL, 0), 0));
    cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
    cr_assert(eq(int, tutti_world_run(w, bcast_64k, &a), 0));
    tutti_explain_t ex;
    cr_assert(eq(int, tutti_world_explain(w, &ex), 0));
    cr_assert(eq(sz, ex.nmsgs, 7));
    if (!topo) {
      cr_assert(eq(sz, ex.nhops, 0));
      cr_assert(ex.hops == NULL);
    }
    size_t k = 0, queued = 0;
    for (size_t i = 0; topo && i < ex.nmsgs; i++) {
      const tutti_msg_info_t *g = &ex.msgs[i];
      int la = tutti_topo_leaf_of_rank(mc.topo, g->src),
          lb = tutti_topo_leaf_of_rank(mc.topo, g->dst);
      int len = tutti_topo_path_len(mc.topo, la, lb), seen = 0;
      double wait = 0, prev = g->start;
      for (size_t h = 0; h < ex.nhops; h++) {
        const tutti_hop_info_t *p = &ex.hops[h];
        if (p->msg != i) continue;
        cr_assert(eq(int, p->link, tutti_topo_path_link(mc.topo, la, lb, seen)), "hop %d of %d->%d",
                  seen, g->src, g->dst);
        cr_assert(p->arrive >= prev && p->head >= p->arrive && p->end >= p->head);
        wait += p->head - p->arrive;
        prev = p->head; /* the next link: after this one started carrying it */
        seen++, k++;
        queued += p->head > p->arrive;
      }
      cr_assert(eq(int, seen, len), "%d->%d crosses %d links, its route has %d", g->src, g->dst,
                seen, len);
      cr_assert(fabs(wait - g->link_wait) <= 1e-12 * (1 + g->link_wait), "queueing %g vs %g", wait,
                g->link_wait);
    }
    cr_assert(eq(sz, k, ex.nhops), "every passage belongs to a message");
    if (topo) {
      cr_assert(gt(sz, queued, 0), "the round-robin mapping makes messages queue");
      tutti_hop_info_t *s = malloc(ex.nhops * sizeof *s);
      memcpy(s, ex.hops, ex.nhops * sizeof *s);
      qsort(s, ex.nhops, sizeof *s, by_head);
      for (size_t h = 1; h < ex.nhops; h++)
        if (s[h].link == s[h - 1].link)
          cr_assert(s[h].head >= s[h - 1].end, "link %d carries two messages at once", s[h].link);
      free(s);
    }
    tutti_explain_free(&ex);
    tutti_world_destroy(w);
    tutti_machine_free(&mc);
  }
}
