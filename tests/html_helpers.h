/*
 * html_helpers.h -- the --html page in a real browser, for the page tests
 * (test_e2e_html.c, test_e2e_html_page.c): Debian's chromium, headless.
 * browse() loads one page (--dump-dom prints the DOM after the script ran,
 * or --screenshot); browse_all() loads many in one chromium -- a wrapper
 * page holds each in an iframe of the given size and, once all have
 * loaded, copies each one's body (scripts dropped) into its own, so one
 * start of the browser (seconds on a slow machine) serves every page;
 * each <svg> gets data-box="left,top,right,bottom", where the browser laid
 * it out in its frame (unscrolled), measured by the wrapper, not the page.
 * Then: a page's attributes, its sections (one per run), what a tag says.
 * Without chromium the tests skip, unless TUTTI_REQUIRE_CHROMIUM=1 (CI),
 * which makes them fail. Needs Criterion and cli_helpers.h.
 */
#ifndef TUTTI_TESTS_HTML_HELPERS_H
#define TUTTI_TESTS_HTML_HELPERS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_helpers.h"
#include "sanitized.h"

/* ------------------------------------------------------------ the browser */

static inline const char *chromium(void) {
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
static inline const char *need_chromium(void) {
  const char *c = chromium();
  const char *req = getenv("TUTTI_REQUIRE_CHROMIUM");
  if (!c && req && !strcmp(req, "1"))
    cr_fatal("chromium is not installed but TUTTI_REQUIRE_CHROMIUM=1 (apt-get install chromium)");
  if (!c) cr_skip("chromium is not installed (apt-get install chromium); the page is not loaded");
  return c;
}

/* Run chromium headless on `url` with `mode` (--dump-dom, or
 * --screenshot=FILE) in a window of `size` ("W,H"); its stdout. A profile
 * directory of its own: tests run two at a time. */
static inline char *browse_url(const char *url, const char *mode, const char *size) {
  const char *bin = need_chromium();
  char dir[] = "/tmp/tutti_chromium_XXXXXX", prof[64], win[64];
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  snprintf(prof, sizeof prof, "--user-data-dir=%s", dir);
  snprintf(win, sizeof win, "--window-size=%s", size);
  const char *argv[] = {"timeout",
                        "150",
                        bin,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--hide-scrollbars",
                        "--allow-file-access-from-files", /* the wrapper reads its iframes */
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
  cr_assert(ok, "chromium failed on %.300s (status %d)", url, ws);
  return slurp(ofd);
}

/* One page, file://page#frag. */
static inline char *browse(const char *page, const char *frag, const char *mode, const char *size) {
  char url[4200];
  snprintf(url, sizeof url, "file://%s%s", page, frag);
  return browse_url(url, mode, size);
}

/* Pages urls[0..n) ("/path/page.html#frag") in one chromium, each in an
 * iframe of `w` x `h` pixels (the window the page sizes itself to); the
 * DOM has each one's body after a <div data-frame="i">, in order (frame()
 * finds them). */
static inline char *browse_all(const char *const *urls, int n, int w, int h) {
  char dir[] = "/tmp/tutti_frames_XXXXXX", path[128];
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  snprintf(path, sizeof path, "%s/all.html", dir);
  FILE *f = fopen(path, "w");
  cr_assert(ne(ptr, f, NULL));
  fputs("<!DOCTYPE html><html><body><div id=\"out\"></div>\n", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "<iframe src=\"file://%s\" width=\"%d\" height=\"%d\"></iframe>\n", urls[i], w, h);
  fputs("<script>\nwindow.addEventListener('load', () => {\n"
        "  const out = document.getElementById('out');\n"
        "  document.querySelectorAll('iframe').forEach((f, i) => {\n"
        "    const d = document.createElement('div');\n"
        "    d.dataset.frame = i;\n"
        "    const b = f.contentDocument.body;\n"
        "    b.querySelectorAll('svg').forEach(s => {\n"
        "      const r = s.getBoundingClientRect();\n"
        "      s.dataset.box = [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');\n"
        "    });\n"
        "    b.querySelectorAll('script').forEach(s => s.remove());\n"
        "    d.innerHTML = b.innerHTML;\n"
        "    out.appendChild(d);\n"
        "  });\n"
        "  document.querySelectorAll('iframe').forEach(f => f.remove());\n"
        "});\n</script></body></html>\n",
        f);
  cr_assert(eq(int, fclose(f), 0));
  char url[200];
  snprintf(url, sizeof url, "file://%s", path);
  char *dom = browse_url(url, "--dump-dom", "1200,900");
  unlink(path);
  rmdir(dir);
  return dom;
}

/* Frame i of browse_all's DOM, its end in *end (NULL: none). */
static inline const char *frame(const char *dom, int i, const char **end) {
  char mark[48];
  snprintf(mark, sizeof mark, "<div data-frame=\"%d\">", i);
  const char *p = strstr(dom, mark);
  cr_assert(ne(ptr, (void *)p, NULL), "frame %d was not loaded", i);
  snprintf(mark, sizeof mark, "<div data-frame=\"%d\">", i + 1);
  *end = strstr(p, mark);
  if (!*end) *end = p + strlen(p);
  return p;
}

/* ------------------------------------------------------------ the DOM */

/* The value of attribute `name` in the tag that starts at `tag`. */
static inline double attr(const char *tag, const char *name) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=\"", name);
  const char *end = strchr(tag, '>'), *a = strstr(tag, pat);
  cr_assert(a && end && a < end, "no %s in %.200s", name, tag);
  return strtod(a + strlen(pat), NULL);
}

/* Its text value, into buf (the tag's class, say). */
static inline const char *attr_text(const char *tag, const char *name, char *buf, size_t n) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=\"", name);
  const char *end = strchr(tag, '>'), *a = strstr(tag, pat);
  cr_assert(a && end && a < end, "no %s in %.200s", name, tag);
  a += strlen(pat);
  size_t k = strcspn(a, "\"");
  snprintf(buf, n, "%.*s", (int)(k < n ? k : n - 1), a);
  return buf;
}

/* Does the class list `cls` hold `word`? */
static inline int has_class(const char *cls, const char *word) {
  size_t n = strlen(word);
  for (const char *p = cls; (p = strstr(p, word)) != NULL; p++)
    if ((p == cls || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return 1;
  return 0;
}

/* The n-th (from 0) <section class="run"> in [dom, end), or NULL; its end
 * (the next one's start, or `end`) in *send. */
static inline const char *section_in(const char *dom, const char *end, int n, const char **send) {
  const char *p = dom, *s = NULL;
  *send = end;
  for (int i = 0; (p = strstr(p, "<section class=\"run\"")) != NULL && p < end; i++, p++)
    if (i == n)
      s = p;
    else if (i == n + 1)
      break;
  if (!s) return NULL;
  *send = p && p < end ? p : end;
  return s;
}
static inline const char *section(const char *dom, int n) {
  const char *e;
  return section_in(dom, dom + strlen(dom), n, &e);
}

/* Tags in [p, end) that start with `start` ("<line class=\"edge") and
 * whose class holds `word` (NULL: any). */
static inline int count_tags(const char *p, const char *end, const char *start, const char *word) {
  int n = 0;
  char cls[128];
  for (; (p = strstr(p, start)) != NULL && p < end; p++)
    n += !word || has_class(attr_text(p, "class", cls, sizeof cls), word);
  return n;
}

static inline void near(double got, double want, const char *what) {
  cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-18, "%s: the page shows %.17g, want %.17g",
            what, got, want);
}

/* ------------------------------------------------------------ files */

/* The page holds nothing a browser would fetch. */
static inline void self_contained(const char *path) {
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

/* BUILD/name (TUTTI_BINARY_DIR), or /tmp/name run by hand. */
static inline void page_path(char *buf, size_t n, const char *name) {
  const char *dir = getenv("TUTTI_BINARY_DIR");
  snprintf(buf, n, "%s/%s", dir && *dir ? dir : "/tmp", name);
}

static inline void check_png(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert(ne(ptr, f, NULL), "no screenshot at %s", path);
  unsigned char sig[8] = {0};
  cr_assert(eq(sz, fread(sig, 1, 8, f), 8));
  fclose(f);
  cr_assert(eq(int, memcmp(sig, "\x89PNG\r\n\x1a\n", 8), 0), "%s is not a PNG", path);
}

#endif
