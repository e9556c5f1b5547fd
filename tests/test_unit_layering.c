/*
 * test_unit_layering.c -- collectives/ sees only the backend contract: every
 * quoted #include of every file in collectives/ names tutti/p2p.h (the
 * contract), tutti/coll.h (the registry's types), tutti/plugin.h (its
 * plugins), tutti/tree.h (the pure tree builders), tutti/units.h (pure
 * unit parsing) or a header of
 * collectives/ itself. The build already refuses runtime/ and topo/
 * headers there (the folder's only include path is include/); this also
 * keeps out the emulator's own public API (tutti.h, model.h, topo.h, ...),
 * which an MPI backend does not implement.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const allowed[] = {"tutti/p2p.h", "tutti/coll.h", "tutti/tree.h",
                                      "tutti/units.h", "tutti/plugin.h"};

/* 1 if `inc` is allowed for a file in dir (a header beside it is). */
static int ok(const char *dir, const char *inc) {
  for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
    if (!strcmp(inc, allowed[i])) return 1;
  char path[8192];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, inc);
  return !strchr(inc, '/') && stat(path, &st) == 0;
}

Test(layering, collectives_include_only_the_contract) {
  const char *src = getenv("TUTTI_SOURCE_DIR");
  cr_assert(src && *src, "TUTTI_SOURCE_DIR is not set (ctest sets it)");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/collectives", src);
  DIR *d = opendir(dir);
  cr_assert(d != NULL, "cannot open %s", dir);
  int files = 0, includes = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || (strcmp(e->d_name + n - 2, ".c") && strcmp(e->d_name + n - 2, ".h"))) continue;
    char path[8192], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    cr_assert(f != NULL, "cannot open %s", path);
    files++;
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
      char inc[512];
      if (sscanf(line, " # include \"%511[^\"]\"", inc) != 1) continue;
      includes++;
      cr_expect(ok(dir, inc),
                "collectives/%s:%d includes \"%s\"; accepted: tutti/p2p.h, "
                "tutti/coll.h, tutti/plugin.h, tutti/tree.h, tutti/units.h or a header of "
                "collectives/",
                e->d_name, ln, inc);
    }
    fclose(f);
  }
  closedir(d);
  cr_assert(files > 5 && includes > files, "too few files (%d) or includes (%d)", files, includes);
}
