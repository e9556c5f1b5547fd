/*
 * test_e2e_registry_times.c -- the built-ins, registered through the
 * public path (tutti_algo_register) and run through the rank's call plans,
 * keep the modeled times they had before either existed: tests/data/
 * registry_times.tsv holds, for every built-in algorithm at its defaults,
 * the modeled time, messages and bytes of `tutti sweep` on 1, 2, 3, 5, 7,
 * 16, 17 and 64 ranks, 0, 8, 1000 and 65536 bytes (a barrier: none), under three profiles
 * (Hockney, postal, gige's LogGP-like eager/rendezvous mix), as the build
 * before them wrote it (alltoall, scan and exscan, added after, as the
 * build that added them wrote it). Every row must come back to the bit,
 * and no row may be missing or new.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "tutti/tutti.h"

#define MAX_ROWS 8192

struct row {
  char key[256];   /* profile, collective, algorithm_spec, ranks, bytes (tab-separated) */
  char value[128]; /* modeled_time, messages, bytes_moved */
};

static int by_key(const void *a, const void *b) {
  return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

/* The golden file's rows (comments skipped). */
static int load_golden(struct row *v) {
  char path[4096], line[1024];
  snprintf(path, sizeof path, "%s/tests/data/registry_times.tsv", getenv("TUTTI_SOURCE_DIR"));
  FILE *f = fopen(path, "r");
  cr_assert(ne(ptr, f, NULL), "cannot open %s", path);
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    line[strcspn(line, "\n")] = '\0';
    char *p = line;
    for (int tabs = 0; *p && tabs < 5; p++) tabs += *p == '\t';
    cr_assert(lt(int, n, MAX_ROWS));
    snprintf(v[n].key, sizeof v[n].key, "%.*s", (int)(p - line - 1), line);
    snprintf(v[n].value, sizeof v[n].value, "%.127s", p);
    n++;
  }
  fclose(f);
  return n;
}

/* Cut a CSV line into fields in place (a field may be quoted, with
 * commas inside): up to n of them into f; how many. */
static int csv_fields(char *s, char **f, int n) {
  int k = 0;
  while (k < n) {
    if (*s == '"') {
      f[k++] = ++s;
      s = strchr(s, '"');
      if (!s) break;
      *s++ = '\0';
    } else {
      f[k++] = s;
      s += strcspn(s, ",");
    }
    if (*s != ',') break;
    *s++ = '\0';
  }
  return k;
}

/* The same sweep now: every collective under each profile, as CSV rows
 * (collective,algorithm,algorithm_spec,ranks,bytes,dtype,modeled_time,
 * wall_time,messages,bytes_moved,...) turned into the golden's fields. */
static int sweep_now(struct row *v) {
  static const char *const profiles[] = {"teaching-hockney", "postal-2", "gige"};
  int n = 0;
  for (int c = 0; c < TUTTI_COLL_N; c++)
    for (int p = 0; p < 3; p++) {
      int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0;
      struct cli r =
          CLI("sweep", tutti_coll_name(c), "--ranks", "1,2,3,5,7,16,17,64", "--profile",
              profiles[p], "--no-data", "--csv", "-", data ? "--sizes" : NULL, "0,8,1000,65536");
      cr_assert(eq(int, r.status, 0), "sweep %s %s: %s", tutti_coll_name(c), profiles[p], r.err);
      char *save = NULL;
      for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "collective,", 11)) continue;
        char *f[11];
        cr_assert(ge(int, csv_fields(line, f, 11), 10), "a short row: %s", line);
        cr_assert(lt(int, n, MAX_ROWS));
        snprintf(v[n].key, sizeof v[n].key, "%s\t%s\t%s\t%s\t%s", profiles[p], f[0], f[2], f[3],
                 f[4]);
        snprintf(v[n].value, sizeof v[n].value, "%s\t%s\t%s", f[6], f[8], f[9]);
        n++;
      }
      cli_free(&r);
    }
  return n;
}

Test(registry_times, every_builtin_times_as_before, .timeout = 600) {
  static struct row want[MAX_ROWS], got[MAX_ROWS];
  int nw = load_golden(want), ng = sweep_now(got);
  cr_assert(gt(int, nw, 3000), "the golden file has only %d rows", nw);
  qsort(want, (size_t)nw, sizeof *want, by_key);
  qsort(got, (size_t)ng, sizeof *got, by_key);
  int i = 0, j = 0, differ = 0;
  while (i < nw || j < ng) {
    int c = i == nw ? 1 : j == ng ? -1 : strcmp(want[i].key, got[j].key);
    if (c < 0) {
      cr_expect(0, "missing now: %s", want[i].key);
      i++, differ++;
    } else if (c > 0) {
      cr_expect(0, "new now: %s", got[j].key);
      j++, differ++;
    } else {
      cr_expect(eq(str, got[j].value, want[i].value), "%s", want[i].key);
      differ += strcmp(got[j].value, want[i].value) != 0;
      i++, j++;
    }
    if (differ > 20) break; /* enough to see */
  }
  cr_assert(eq(int, differ, 0));
}
