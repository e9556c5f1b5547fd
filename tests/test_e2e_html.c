/*
 * test_e2e_html.c -- the step-through page of `tutti run --html` and
 * `tutti compare --html` (bench/html.c, bench/html_page.html), loaded in a
 * real browser: Debian's chromium, headless. The page opened at #end steps
 * to its last event on load and leaves its counters in data-* attributes;
 * chromium --dump-dom prints the DOM after the script ran. Checked against
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

#include "cli_helpers.h"
#include "json_reader.h"
#include "tutti/tutti.h"

/* ------------------------------------------------------------ the browser */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1 /* the pages are not loaded (the header comment) */
#else
#define SANITIZED 0
#endif

static const char *chromium(void) {
  static char found[4096];
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin"; p && *p;) {
    const char *colon = strchr(p, ':');
    int len = colon ? (int)(colon - p) : (int)strlen(p);
    snprintf(found, sizeof found, "%.*s/chromium", len, p);
    if (access(found, X_OK) == 0) return found;
    p = colon ? colon + 1 : NULL;
  }
  return NULL;
}

/* Skip without a browser, or fail when CI said it must be there. */
static const char *need_chromium(void) {
  const char *c = chromium();
  const char *req = getenv("TUTTI_REQUIRE_CHROMIUM");
  if (!c && req && !strcmp(req, "1"))
    cr_fatal("chromium is not installed but TUTTI_REQUIRE_CHROMIUM=1 (apt-get install chromium)");
  if (!c) cr_skip("chromium is not installed (apt-get install chromium); the page is not loaded");
  return c;
}

/* Run chromium headless on file://page#frag with `mode` (--dump-dom, or
 * --screenshot=FILE); its stdout. A profile directory of its own: tests
 * run two at a time. */
static char *browse(const char *page, const char *frag, const char *mode, const char *size) {
  const char *bin = need_chromium();
  char dir[] = "/tmp/tutti_chromium_XXXXXX", prof[64], url[4200], win[64];
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  snprintf(prof, sizeof prof, "--user-data-dir=%s", dir);
  snprintf(url, sizeof url, "file://%s%s", page, frag);
  snprintf(win, sizeof win, "--window-size=%s", size);
  const char *argv[] = {"timeout",
                        "120",
                        bin,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--hide-scrollbars",
                        prof,
                        win,
                        mode,
                        url,
                        NULL};
  int ofd = tmpfile_fd(), nul = open("/dev/null", O_WRONLY);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, ofd, 1);
  posix_spawn_file_actions_adddup2(&fa, nul, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, "timeout", &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert(eq(int, rc, 0), "cannot run chromium: %s", strerror(rc));
  int ws;
  cr_assert(eq(int, waitpid(pid, &ws, 0), pid));
  close(nul);
  const char *rm[] = {"rm", "-rf", dir, NULL};
  if (!posix_spawnp(&pid, "rm", NULL, NULL, (char *const *)rm, environ)) waitpid(pid, NULL, 0);
  int ok = WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
  cr_assert(ok, "chromium failed on %s (status %d)", url, ws);
  return slurp(ofd);
}

/* ------------------------------------------------------------ the DOM */

/* The value of attribute `name` in the tag that starts at `tag`. */
static double attr(const char *tag, const char *name) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=\"", name);
  const char *end = strchr(tag, '>'), *a = strstr(tag, pat);
  cr_assert(a && end && a < end, "no %s in %.200s", name, tag);
  return strtod(a + strlen(pat), NULL);
}

/* The n-th (from 0) <section class="run"> of the DOM, or NULL. */
static const char *section(const char *dom, int n) {
  const char *p = dom;
  for (int i = 0; (p = strstr(p, "<section class=\"run\"")) != NULL; i++, p++)
    if (i == n) return p;
  return NULL;
}

static void near(double got, double want, const char *what) {
  cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-18, "%s: the page shows %.17g, want %.17g",
            what, got, want);
}

/* The page holds nothing a browser would fetch. */
static void self_contained(const char *path) {
  FILE *f = fopen(path, "r");
  cr_assert(ne(ptr, f, NULL), "no page at %s", path);
  static char text[1 << 22];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  cr_assert(gt(sz, n, 1000));
  const char *bad[] = {"<script src", "<link", "@import", "url(http", "https:", "<img", "<iframe"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert(eq(ptr, strstr(text, bad[i]), NULL), "the page fetches something: %s", bad[i]);
}

static void page_path(char *buf, size_t n, const char *name) {
  const char *dir = getenv("TUTTI_BINARY_DIR");
  snprintf(buf, n, "%s/%s", dir && *dir ? dir : "/tmp", name);
}

static void check_png(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert(ne(ptr, f, NULL), "no screenshot at %s", path);
  unsigned char sig[8] = {0};
  cr_assert(eq(sz, fread(sig, 1, 8, f), 8));
  fclose(f);
  cr_assert(eq(int, memcmp(sig, "\x89PNG\r\n\x1a\n", 8), 0), "%s is not a PNG", path);
}

/* ------------------------------------------------------------ run --html */

struct page_case {
  const char *name; /* the page and screenshot: html_NAME.html, .png */
  const char *args[12];
};

static void check_run_page(const struct page_case *c, int screenshot) {
  char page[4096], opt[4200];
  page_path(page, sizeof page, c->name);
  strcat(page, ".html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  const char *argv[20] = {"run"};
  int n = 1;
  for (int i = 0; c->args[i]; i++) argv[n++] = c->args[i];
  argv[n++] = "--json";
  argv[n++] = opt;
  argv[n] = NULL;
  struct cli r = run_env(NULL, argv);
  cr_assert(eq(int, r.status, 0), "%s: %s", c->name, r.err);
  struct jp j = json_ok(r.out);
  double msgs = json_num(&j, "messages"), T = json_num(&j, "modeled_time");
  cr_assert(gt(dbl, msgs, 0));
  self_contained(page);
  if (SANITIZED) {
    cli_free(&r);
    return;
  }

  char *dom = browse(page, "#end", "--dump-dom", "1600,1200");
  const char *now = strstr(dom, "id=\"now\""), *s = section(dom, 0);
  cr_assert(now && s, "%s: the page drew nothing: %.300s", c->name, dom);
  cr_assert(section(dom, 1) == NULL, "one run, one section");
  cr_assert(eq(dbl, attr(now, "data-step"), attr(now, "data-steps")), "#end is the last event");
  near(attr(now, "data-t"), T, "the last time");
  near(attr(s, "data-t"), T, "the run's time");
  cr_assert(eq(dbl, attr(s, "data-messages"), msgs), "%s: messages in the data", c->name);
  cr_assert(eq(dbl, attr(s, "data-drawn"), msgs), "%s: arrows drawn", c->name);
  cr_assert(eq(dbl, attr(s, "data-delivered"), msgs), "%s: delivered at the end", c->name);
  cr_assert(eq(dbl, attr(s, "data-in-flight"), 0));
  cr_assert(eq(dbl, attr(s, "data-waiting"), 0), "nobody waits after the end");
  free(dom);

  if (!screenshot) { /* one browser load less where no picture is asked for */
    cli_free(&r);
    return;
  }
  /* the first event: time 0, when no message can have arrived yet */
  dom = browse(page, "#step=1", "--dump-dom", "1600,1200");
  s = section(dom, 0);
  now = strstr(dom, "id=\"now\"");
  cr_assert(s && now);
  cr_assert(eq(dbl, attr(now, "data-t"), 0));
  cr_assert(eq(dbl, attr(s, "data-delivered"), 0));
  cr_assert(ge(dbl, attr(s, "data-in-flight"), 1), "%s: a first message leaves at 0", c->name);
  free(dom);
  {
    char png[4096], shot[4200];
    page_path(png, sizeof png, c->name);
    strcat(png, ".png");
    unlink(png);
    snprintf(shot, sizeof shot, "--screenshot=%s", png);
    free(browse(page, "#step=3", shot, "1600,1700"));
    check_png(png);
  }
  cli_free(&r);
}

Test(html, run_binomial_16, .timeout = 300) {
  struct page_case c = {"html_run_binomial16", {"bcast", "binomial", "-n", "16", NULL}};
  check_run_page(&c, 1);
}

/* A tree edge carrying a message is styled in flight, whichever way the
 * edge was stored: at every early event of a broadcast (each message on
 * its own tree edge), the edges in flight are the messages in flight. */
Test(html, edges_in_flight_are_the_messages_in_flight, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char page[4096], opt[4200];
  page_path(page, sizeof page, "html_edges.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  struct cli r = CLI("run", "bcast", "binomial", "-n", "8", "-m", "1000", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  int flying = 0;
  for (int k = 2; k <= 5; k++) {
    char frag[32];
    snprintf(frag, sizeof frag, "#step=%d", k);
    char *dom = browse(page, frag, "--dump-dom", "1600,1200");
    const char *sec = section(dom, 0);
    cr_assert(sec != NULL, "%s: the page drew nothing", frag);
    double fly = attr(sec, "data-in-flight");
    cr_expect(eq(dbl, attr(sec, "data-edges-in-flight"), fly), "%s: %g messages in flight", frag,
              fly);
    flying += fly > 0;
    free(dom);
  }
  cr_assert(gt(int, flying, 0), "some event has a message in flight");
  cli_free(&r);
}

/* Four states, not one: a rank whose port is busy sends (the root of a
 * broadcast at time 0, not "waits to send"); one behind a receive or a
 * held-up send is blocked; one past its last event is done. In a
 * pipelined allreduce most ranks send at once. */
Test(html, ranks_that_send_are_not_waiting, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char page[4096], opt[4200];
  page_path(page, sizeof page, "html_states.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  struct cli r = CLI("run", "bcast", "binomial", "-n", "8", "-m", "1000", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  cli_free(&r);
  char *dom = browse(page, "#step=1", "--dump-dom", "1600,1200");
  const char *sec = section(dom, 0);
  cr_assert(sec != NULL);
  cr_expect(ne(ptr, strstr(dom, ">rank 0 sends to "), NULL), "the root sends at time 0");
  cr_expect(eq(ptr, strstr(dom, "rank 0 waits"), NULL), "the root waits for nobody");
  cr_expect(ge(dbl, attr(sec, "data-sending"), 1));
  cr_expect(eq(dbl, attr(sec, "data-waiting") + attr(sec, "data-sending"), 8),
            "the other 7 wait for their message");
  free(dom);
  dom = browse(page, "#end", "--dump-dom", "1600,1200");
  sec = section(dom, 0);
  cr_assert(sec != NULL);
  cr_expect(eq(dbl, attr(sec, "data-done"), 8), "every rank is done at the end");
  cr_expect(eq(dbl, attr(sec, "data-waiting"), 0));
  free(dom);

  r = CLI("run", "allreduce", "dual-root:blocks=4", "-n", "14", "-m", "64KiB", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  cli_free(&r);
  int most = 0;
  for (int k = 5; k <= 41; k += 12) {
    char frag[32];
    snprintf(frag, sizeof frag, "#step=%d", k);
    dom = browse(page, frag, "--dump-dom", "1600,1200");
    sec = section(dom, 0);
    cr_assert(sec != NULL);
    double sending = attr(sec, "data-sending");
    cr_expect(lt(dbl, attr(sec, "data-waiting"), 14), "%s: not all 14 blocked", frag);
    if (sending > most) most = (int)sending;
    free(dom);
  }
  cr_expect(ge(int, most, 4), "the pipeline keeps several ports busy at once");
}

/* #step=K opens event K, as the bar counts them; play reaches each event
 * at its modeled time in proportion (data-wall: the wall seconds into a
 * 1x play, 10 for the whole run); a postal axis counts "1 step", and the
 * label at the axis' end ends there instead of past the picture. */
Test(html, steps_play_and_axes, .timeout = 300) {
  if (SANITIZED) cr_skip("the pages are not loaded under the sanitizers");
  char page[4096], opt[4200];
  page_path(page, sizeof page, "html_steps.html");
  snprintf(opt, sizeof opt, "--html=%s", page);
  struct cli r = CLI("run", "bcast", "binomial", "-n", "8", "--model", "postal:L=2", opt);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  cli_free(&r);
  char *dom = browse(page, "#end", "--dump-dom", "1600,1200");
  const char *now = strstr(dom, "id=\"now\"");
  cr_assert(now != NULL);
  double T = attr(now, "data-t"), steps = attr(now, "data-steps");
  near(attr(now, "data-wall"), 10, "a whole run plays in 10 s at 1x");
  cr_expect(eq(ptr, strstr(dom, ">1 steps<"), NULL), "one step is '1 step'");
  cr_expect(ne(ptr, strstr(dom, ">1 step<"), NULL), "the axis has a tick at 1 step");
  const char *tick = NULL, *p = dom;
  while ((p = strstr(p, "class=\"tick\""))) tick = p++;
  cr_assert(tick != NULL);
  cr_expect(ne(ptr, strstr(tick, "text-anchor=\"end\""), NULL), "the last tick ends at the axis");
  free(dom);
  for (int k = 2; k < steps; k += 3) {
    char frag[32], want[32];
    snprintf(frag, sizeof frag, "#step=%d", k);
    dom = browse(page, frag, "--dump-dom", "1600,1200");
    now = strstr(dom, "id=\"now\"");
    cr_assert(now != NULL);
    cr_expect(eq(dbl, attr(now, "data-step"), k), "%s opens event %d", frag, k);
    snprintf(want, sizeof want, ">event %d of ", k);
    cr_expect(ne(ptr, strstr(dom, want), NULL), "%s: the bar says event %d", frag, k);
    near(attr(now, "data-wall"), attr(now, "data-t") / T * 10, "played in proportion");
    free(dom);
  }
}

/* a schedule (no tree), a non-power of two */
Test(html, run_allreduce_ring_5, .timeout = 300) {
  struct page_case c = {"html_run_ring5", {"allreduce", "ring", "-n", "5", "-m", "40", NULL}};
  check_run_page(&c, 0);
}

/* link lanes with queues: the lecture's bad mapping on two switches */
Test(html, run_topology, .timeout = 300) {
  struct page_case c = {"html_run_topo",
                        {"bcast", "binomial", "-n", "8", "-m", "64KiB", "--topology", "tree:2x4",
                         "--mapping", "roundrobin", NULL}};
  check_run_page(&c, 1);
  char page[4096];
  page_path(page, sizeof page, "html_run_topo.html");
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
  char *dom = browse(page, "#end", "--dump-dom", "1600,1200");
  near(attr(strstr(dom, "id=\"now\""), "data-t"), tmax, "the shared axis ends at the slowest");
  for (int i = 0; i < 3; i++) {
    const char *s = section(dom, i);
    cr_assert(s != NULL, "run %d not drawn", i);
    cr_assert(eq(dbl, attr(s, "data-drawn"), 15), "a broadcast to 15 ranks: 15 arrows");
    cr_assert(eq(dbl, attr(s, "data-delivered"), 15));
    near(attr(s, "data-t"), T[i], "each run's own end");
  }
  cr_assert(section(dom, 3) == NULL, "three runs, three sections");
  free(dom);
  char png[4096], shot[4200];
  page_path(png, sizeof png, "html_compare.png");
  unlink(png);
  snprintf(shot, sizeof shot, "--screenshot=%s", png);
  free(browse(page, "#step=7", shot, "1600,3300"));
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
