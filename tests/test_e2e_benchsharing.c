/*
 * test_e2e_benchsharing.c -- `tutti bench sharing` against bench/CLI.md
 * and tutti's own API:
 * - bad input (an unknown collective or option, an option twice, a rank
 *   count beyond the built-in machine's 64 hosts, a bad size) is exit 2
 *   with one line on stderr, before anything runs;
 * - its claims hold: on a profile (the built-in machine's, from a file),
 *   every (collective, P, size) is timed here through the public API
 *   under each sharing, every algorithm but auto; the winners a summary
 *   line names are the fastest under each sharing, a line is there
 *   exactly where the ranks differ, a winner line exactly where the
 *   winners differ, and the last line counts them.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "coll_helpers.h"

Test(bench_sharing, bad_input_is_exit_2, .timeout = 60) {
  fails_with(CLI("bench", "sharing", "gatherall"), 2, "unknown collective 'gatherall'");
  fails_with(CLI("bench", "sharing", "--rounds", "3"), 2, "unknown option '--rounds'");
  fails_with(CLI("bench", "sharing", "-n", "4", "--ranks", "8"), 2, "given twice");
  fails_with(CLI("bench", "sharing", "-n", "65"), 2, "--ranks");
  fails_with(CLI("bench", "sharing", "-m", "lots"), 2, "'lots' is not a size");
  fails_with(CLI("bench", "sharing", "--profile"), 2, "--profile");
}

/* The built-in machine of bench/bench_sharing.c, as a profile file. */
static const char profile[] = "[model]\n"
                              "preset = loggp\n"
                              "L = 0\n"
                              "o = 2us\n"
                              "g = 0\n"
                              "G = 8ns\n"
                              "eager_limit = 64KiB\n"
                              "[topology]\n"
                              "spec = tree:4x16\n"
                              "links = 10us/1Gbps, 10us/1Gbps\n"
                              "mapping = roundrobin\n";

#define MAXA 32

/* Every algorithm of coll (but auto) under sharing `share`: its time, or
 * -1 if it refused the call. */
static int times_of(const char *path, int coll, int P, size_t bytes, int share, double *t,
                    const char **names) {
  tutti_machine_spec_t sp = tutti_machine_spec_default();
  tutti_machine_t mach;
  char err[512];
  sp.profile = path, sp.nranks = P;
  cr_assert(eq(int, tutti_machine_build(&sp, &mach, NULL, err, sizeof err), 0), "%s", err);
  tutti_model_t m = mach.model;
  m.sharing = share;
  int n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != coll || tutti_algo_is_auto(d)) continue;
    const tutti_algo_t *a = pick(coll, d->name, NULL);
    tutti_config_t c = tutti_config_default(P);
    c.model = &m;
    c.flags |= TUTTI_NO_DATA;
    tutti_world_t *w = NULL;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    struct one o = {coll, a, (long)(bytes / 4), TUTTI_INT32, 0};
    t[n] = -1;
    if (tutti_world_run(w, one_call, &o) == 0) {
      tutti_report_t rep;
      cr_assert(eq(int, tutti_world_report(w, &rep), 0));
      t[n] = rep.calls[0].time;
    }
    names[n++] = d->name;
    tutti_world_destroy(w);
  }
  tutti_machine_free(&mach);
  return n;
}

/* Rank: 1 + those strictly faster; 0 for one that did not run. */
static int rank_of(const double *t, int n, int i) {
  if (t[i] < 0) return 0;
  int r = 1;
  for (int j = 0; j < n; j++) r += t[j] >= 0 && t[j] < t[i];
  return r;
}

static void winners(const double *t, int n, const char **names, char *buf, size_t cap) {
  buf[0] = '\0';
  for (int i = 0; i < n; i++)
    if (rank_of(t, n, i) == 1)
      snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? " = " : "", names[i]);
}

Test(bench_sharing, claims_hold_against_the_api, .timeout = 300) {
  char path[] = "/tmp/tutti-sharing-XXXXXX.ini";
  int fd = mkstemps(path, 4);
  cr_assert(ge(int, fd, 0));
  cr_assert(eq(sz, (size_t)write(fd, profile, sizeof profile - 1), sizeof profile - 1));
  close(fd);
  struct cli r = CLI("bench", "sharing", "bcast", "alltoall", "-n", "16", "-m", "1KiB,64KiB",
                     "--profile", path);
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  static const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_ALLTOALL};
  static const size_t sizes[] = {1024, 64 << 10};
  int winner = 0, order = 0, points = 0;
  for (int c = 0; c < 2; c++)
    for (int z = 0; z < 2; z++) {
      double tf[MAXA], tr[MAXA];
      const char *names[MAXA];
      int n = times_of(path, colls[c], 16, sizes[z], TUTTI_SHARING_FIFO, tf, names);
      cr_assert(eq(int, times_of(path, colls[c], 16, sizes[z], TUTTI_SHARING_FAIR, tr, names), n));
      int differ = 0;
      for (int i = 0; i < n; i++) differ |= rank_of(tf, n, i) != rank_of(tr, n, i);
      char wf[512], wr[512], sz[32], head[128], want[1200];
      winners(tf, n, names, wf, sizeof wf);
      winners(tr, n, names, wr, sizeof wr);
      tutti_format_bytes(sizes[z], sz, sizeof sz);
      snprintf(head, sizeof head, "\n%s P=16 m=%s: ", tutti_coll_name(colls[c]), sz);
      const char *line = strstr(r.out, head);
      points++;
      if (strcmp(wf, wr)) {
        winner++;
        snprintf(want, sizeof want, "%swinner %s (fifo) -> %s (fair)\n", head, wf, wr);
        cr_assert(ne(ptr, strstr(r.out, want), NULL), "missing: %s\n%s", want + 1, r.out);
      } else if (differ) {
        order++;
        snprintf(want, sizeof want, "%sorder changes; winner %s under both\n", head, wf);
        cr_assert(ne(ptr, strstr(r.out, want), NULL), "missing: %s\n%s", want + 1, r.out);
      } else {
        cr_assert(eq(ptr, (void *)line, NULL), "a line where nothing changes: %s", head + 1);
      }
    }
  char last[256];
  snprintf(last, sizeof last,
           "sharing changes the winner at %d and only the order at %d of %d (collective, P, "
           "size)",
           winner, order, points);
  cr_assert(ne(ptr, strstr(r.out, last), NULL), "missing: %s\n%s", last, r.out);
  cr_assert(gt(int, winner + order, 0), "sharing changed nothing here:\n%s", r.out);
  cli_free(&r);
  unlink(path);
}
