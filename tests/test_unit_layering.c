/*
 * test_unit_layering.c -- each folder sees what lies beneath it, and no
 * more. Every quoted #include of every .c and .h file of a folder must name
 * a header of that folder, or one of the folder's allowed headers below:
 *
 *   topo/          the network model: the public headers of its level
 *                  (p2p.h's types and errors, units.h, ini.h, model.h,
 *                  topo.h, machine.h); nothing of runtime/ (world.h,
 *                  report.h) or collectives/ (coll.h, plugin.h, tree.h)
 *   runtime/       the emulated machine: every public header but the
 *                  collectives' (coll.h, plugin.h, tree.h, and tutti.h,
 *                  which includes them) and mpi.h; topo/'s private headers
 *   runtime/mpi/   the MPI backend: the contract (p2p.h) and its own
 *                  public header (mpi.h), nothing else of tutti
 *   collectives/   the contract (p2p.h), the registry's types (coll.h,
 *                  plugin.h), the pure tree builders (tree.h) and text
 *                  readers (units.h, ini.h): what an MPI backend provides
 *
 * The build enforces the private-header part (each folder's include path,
 * CMakeLists.txt); this also keeps out public headers of a higher layer.
 * And include/tutti/: no sub-header includes tutti.h (the umbrella), the
 * sub-headers include each other without a circle, and each compiles on
 * its own.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *source_dir(void) {
  const char *src = getenv("TUTTI_SOURCE_DIR");
  cr_assert(src && *src, "TUTTI_SOURCE_DIR is not set (ctest sets it)");
  return src;
}

/* A header beside the file (a plain name that exists in dir). */
static int beside(const char *dir, const char *inc) {
  char path[8192];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, inc);
  return !strchr(inc, '/') && stat(path, &st) == 0;
}

static int listed(const char *inc, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(inc, *list)) return 1;
  return 0;
}

/* Every quoted include of every .c/.h file of folder (relative to the
 * source dir) must be beside it or in `allowed` (or, with `also`, in that
 * folder). Returns the number of includes checked. */
static int check_folder(const char *folder, const char *const *allowed, const char *also,
                        const char *accepted) {
  char dir[4096], other[4096];
  snprintf(dir, sizeof dir, "%s/%s", source_dir(), folder);
  snprintf(other, sizeof other, "%s/%s", source_dir(), also ? also : folder);
  DIR *d = opendir(dir);
  cr_assert(ne(ptr, d, NULL), "cannot open %s", dir);
  int files = 0, includes = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || (strcmp(e->d_name + n - 2, ".c") && strcmp(e->d_name + n - 2, ".h"))) continue;
    char path[8192], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    cr_assert(ne(ptr, f, NULL), "cannot open %s", path);
    files++;
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
      char inc[512];
      if (sscanf(line, " # include \"%511[^\"]\"", inc) != 1) continue;
      includes++;
      cr_expect(
          eq(int, beside(dir, inc) || (also && beside(other, inc)) || listed(inc, allowed), 1),
          "%s/%s:%d includes \"%s\"; accepted: %s", folder, e->d_name, ln, inc, accepted);
    }
    fclose(f);
  }
  closedir(d);
  cr_assert(gt(int, files, 1), "%s: too few files (%d)", folder, files);
  return includes;
}

Test(layering, topo_sees_neither_runtime_nor_collectives, .timeout = 30) {
  static const char *const ok[] = {
      "tutti/export.h", "tutti/p2p.h",  "tutti/units.h",   "tutti/ini.h",
      "tutti/model.h",  "tutti/topo.h", "tutti/machine.h", NULL};
  cr_assert(gt(int,
               check_folder("topo", ok, NULL,
                            "a header of topo/, tutti/p2p.h, units.h, ini.h, model.h, topo.h, "
                            "machine.h"),
               20));
}

Test(layering, runtime_sees_neither_collectives_nor_bench, .timeout = 30) {
  static const char *const ok[] = {
      "tutti/export.h", "tutti/p2p.h",     "tutti/units.h", "tutti/ini.h",    "tutti/model.h",
      "tutti/topo.h",   "tutti/machine.h", "tutti/world.h", "tutti/report.h", NULL};
  cr_assert(gt(int,
               check_folder("runtime", ok, "topo",
                            "a header of runtime/ or topo/, or a public header but coll.h, "
                            "plugin.h, tree.h, tutti.h and mpi.h"),
               20));
}

Test(layering, mpi_backend_sees_only_the_contract, .timeout = 30) {
  static const char *const ok[] = {"tutti/export.h", "tutti/p2p.h", "tutti/mpi.h", NULL};
  cr_assert(gt(
      int,
      check_folder("runtime/mpi", ok, NULL, "a header of runtime/mpi/, tutti/p2p.h or tutti/mpi.h"),
      1));
}

Test(layering, collectives_include_only_the_contract, .timeout = 30) {
  static const char *const ok[] = {"tutti/p2p.h",
                                   "tutti/coll.h",
                                   "tutti/tree.h",
                                   "tutti/units.h",
                                   "tutti/ini.h",
                                   "tutti/plugin.h",
                                   NULL};
  int n = check_folder("collectives", ok, NULL,
                       "tutti/p2p.h, tutti/coll.h, tutti/plugin.h, tutti/tree.h, tutti/units.h, "
                       "tutti/ini.h or a header of collectives/");
  cr_assert(gt(int, n, 30));
}

/* ------------------------------------------------------ the public headers */

#define MAX_HEADERS 32

struct headers {
  int n;
  char name[MAX_HEADERS][64];
  int inc[MAX_HEADERS][MAX_HEADERS]; /* inc[i][j]: header i includes header j */
};

static void read_headers(struct headers *h) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/include/tutti", source_dir());
  DIR *d = opendir(dir);
  cr_assert(ne(ptr, d, NULL), "cannot open %s", dir);
  memset(h, 0, sizeof *h);
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || strcmp(e->d_name + n - 2, ".h")) continue;
    cr_assert(lt(int, h->n, MAX_HEADERS));
    cr_assert(lt(sz, n, sizeof h->name[0]), "include/tutti/%s: a name that long", e->d_name);
    memcpy(h->name[h->n++], e->d_name, n + 1);
  }
  closedir(d);
  for (int i = 0; i < h->n; i++) {
    char path[8192], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir, h->name[i]);
    FILE *f = fopen(path, "r");
    cr_assert(ne(ptr, f, NULL), "cannot open %s", path);
    while (fgets(line, sizeof line, f)) {
      char inc[512];
      if (sscanf(line, " # include \"tutti/%511[^\"]\"", inc) != 1) continue;
      for (int j = 0; j < h->n; j++)
        if (!strcmp(inc, h->name[j])) h->inc[i][j] = 1;
    }
    fclose(f);
  }
}

static int index_of(const struct headers *h, const char *name) {
  for (int i = 0; i < h->n; i++)
    if (!strcmp(h->name[i], name)) return i;
  cr_assert(0, "include/tutti/%s is missing", name);
  return -1;
}

/* Depth-first: 1 if a path from i leads back to a header on the stack. */
static int circle_from(const struct headers *h, int i, int *state, char *path, size_t len) {
  state[i] = 1; /* on the stack */
  size_t at = strlen(path);
  snprintf(path + at, len - at, "%s%s", at ? " -> " : "", h->name[i]);
  for (int j = 0; j < h->n; j++) {
    if (!h->inc[i][j]) continue;
    if (state[j] == 1) {
      at = strlen(path);
      snprintf(path + at, len - at, " -> %s", h->name[j]);
      return 1;
    }
    if (!state[j] && circle_from(h, j, state, path, len)) return 1;
  }
  path[at] = '\0';
  state[i] = 2; /* done */
  return 0;
}

Test(layering, public_headers_form_no_circle, .timeout = 30) {
  struct headers h;
  read_headers(&h);
  int umbrella = index_of(&h, "tutti.h");
  for (int i = 0; i < h.n; i++)
    cr_expect(eq(int, h.inc[i][umbrella] && i != umbrella, 0),
              "include/tutti/%s includes tutti.h, the umbrella; accepted: the sub-headers "
              "beneath it",
              h.name[i]);
  /* the umbrella includes every sub-header but mpi.h (which needs <mpi.h>) */
  for (int j = 0; j < h.n; j++)
    if (j != umbrella && strcmp(h.name[j], "mpi.h") && strcmp(h.name[j], "export.h"))
      cr_expect(eq(int, h.inc[umbrella][j], 1), "tutti.h does not include %s", h.name[j]);
  int state[MAX_HEADERS] = {0};
  for (int i = 0; i < h.n; i++) {
    char path[2048] = "";
    if (!state[i])
      cr_assert(eq(int, circle_from(&h, i, state, path, sizeof path), 0),
                "the public headers include each other in a circle: %s", path);
  }
}

Test(layering, each_public_header_compiles_alone, .timeout = 120) {
  struct headers h;
  read_headers(&h);
  for (int i = 0; i < h.n; i++) {
    if (!strcmp(h.name[i], "mpi.h")) continue; /* needs <mpi.h>: the MPI tests build it */
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "printf '#include \"tutti/%s\"\\nint main(void) { return 0; }\\n' | "
             "cc -std=c11 -Wall -Werror -fsyntax-only -I'%s/include' -x c - 2>&1",
             h.name[i], source_dir());
    FILE *p = popen(cmd, "r");
    cr_assert(ne(ptr, p, NULL));
    char out[4096] = "";
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    cr_expect(eq(int, st, 0), "include/tutti/%s does not compile on its own:\n%s", h.name[i], out);
  }
}
