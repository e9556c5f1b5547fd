/*
 * test_e2e_tune_rules.c -- the MPI libraries' rules files of `tutti tune`
 * (bench/CLI.md "MPI libraries' rules files") by their form, and their
 * bad input; that the libraries run them: test_e2e_tune_mpi.c (Open MPI),
 * test_e2e_tune_mpich.c (MPICH).
 *
 * From one tune (3, 8 and 16 ranks on a tree of 4 x 4 leaves, where
 * allgather and reduce_scatter change algorithm with the size; 8 B,
 * 4 KiB, 64 KiB, 1 MiB; --no-data):
 * - Open MPI 4.1's classic file: provenance comments first; the twelve
 *   collectives its tuned component reads and tutti has, each from
 *   communicator size 1 (algorithm 0 below the smallest measured count)
 *   through the measured counts, rules from 0 up, algorithm numbers in
 *   Open MPI 4.1's range; the whole-buffer collectives' thresholds are
 *   the block x each communicator size; a pipelined bcast's segment is
 *   the bytes its run used (never 0 where the run cut segments);
 * - Open MPI 6.0's JSON: well-formed, only the schema's fields, the same
 *   rules as the classic file;
 * - MPICH 4.0's JSON: a comment, then well-formed JSON naming every
 *   collective MPICH 4.0 looks up, every chain of size tests ending in
 *   "=any", sizes within an int.
 * Bad input: an unwritable file (exit 3, the old file whole, nothing
 * beside it), a model without costs (exit 2, no file), an algorithm a
 * library lacks (the next best it has and a note), a collective MPICH has
 * one algorithm for (its rules name it, the file says so).
 * alltoall, scan and exscan where each library numbers them: Open MPI's
 * pairwise is tutti's ring (and pairwise off powers of two), its scans'
 * rules name linear with a note of tutti's best, MPICH's alltoall rules
 * are guarded against MPI_IN_PLACE and its scans are its own; a tie goes
 * to the library's first.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "json_reader.h"
#include "tune_mpi.h"

static char ompi_path[700], json_path[700], mpich_path[700];
static const long measured[] = {8, 4096, 65536, 1048576};

static void setup_tuned(void) {
  setup();
  snprintf(ompi_path, sizeof ompi_path, "%s/ompi.rules", dir);
  snprintf(json_path, sizeof json_path, "%s/ompi.json", dir);
  snprintf(mpich_path, sizeof mpich_path, "%s/mpich.json", dir);
  struct cli c = CLI("tune", "--ranks", "3,8,16", "--sizes", "8,4KiB,64KiB,1MiB", "--no-data",
                     "--topology", "tree:4x4", "--ompi-rules", ompi_path, "--ompi-rules-json",
                     json_path, "--mpich-rules", mpich_path);
  cr_assert(eq(int, c.status, 0), "tune: %s", c.err);
  cli_free(&c);
}

/* The numbers of the classic file, '#' to the end of a line skipped. */
static int numbers(const char *text, long *v, int max) {
  int n = 0;
  for (const char *p = text; *p;) {
    if (*p == '#') {
      p += strcspn(p, "\n");
    } else if (isdigit((unsigned char)*p)) {
      char *e;
      cr_assert(n < max);
      v[n++] = strtol(p, &e, 10);
      p = e;
    } else {
      cr_assert(ne(int, isspace((unsigned char)*p), 0), "not a number or comment at '%.20s'", p);
      p++;
    }
  }
  return n;
}

static int max_alg(long id) { /* ompi_info --param coll tuned --level 9, Open MPI 4.1 */
  switch (id) {
  case 0:
    return 6;
  case 2:
    return 6;
  case 3:
    return 5;
  case 8:
    return 2;
  case 14:
    return 2;
  case 6:
    return 6;
  case 7:
    return 9;
  case 9:
    return 3;
  case 11:
    return 7;
  case 12:
    return 4;
  case 13:
    return 4;
  case 15:
    return 3;
  default:
    return -1;
  }
}

Test(rules, ompi_classic_form, .init = setup_tuned, .fini = teardown, .timeout = 120) {
  char *text = read_text(ompi_path);
  cr_assert(text != NULL);
  const char *head = "# written by tutti " TUTTI_VERSION_STRING " (tutti tune) on ";
  cr_assert(eq(int, strncmp(text, head, strlen(head)), 0), "%.80s", text);
  HAS(text, "UTC");
  HAS(text, "profile teaching-hockney");
  HAS(text, "--no-data");
  HAS(text, "# topology tree:4x4\n");
  long *v = malloc(sizeof *v * 200000);
  cr_assert(v != NULL);
  int n = numbers(text, v, 200000), k = 0, seen = 0, segmented = 0, scaled = 0;
  long ncoll = v[k++];
  cr_assert(eq(long, ncoll, 12));
  for (long c = 0; c < ncoll; c++) {
    long id = v[k++], ncs = v[k++], prev = 0;
    int whole = id == 0 || id == 3 || id == 9 || id == 12 || id == 13 || id == 15;
    cr_assert(max_alg(id) >= 1, "collective id %ld", id);
    cr_assert(eq(int, seen &(1 << id), 0), "id %ld twice", id);
    seen |= 1 << id;
    for (long s = 0; s < ncs; s++) {
      long cs = v[k++], nms = v[k++];
      cr_assert(cs > prev, "id %ld: sizes not ascending", id);
      cr_assert(s || cs == 1, "id %ld: the first communicator size is %ld, not 1", id, cs);
      if (cs == 1) cr_assert(nms == 1 && v[k] == 0 && v[k + 1] == 0, "below 3 ranks: Open MPI's");
      prev = cs;
      for (long r = 0, last = -1; r < nms; r++) {
        long lo = v[k++], alg = v[k++], fan = v[k++], seg = v[k++];
        cr_assert(r || lo == 0, "id %ld size %ld: the first rule from %ld", id, cs, lo);
        cr_assert(lo > last);
        last = lo;
        cr_assert(alg >= 0 && alg <= max_alg(id) && fan >= 0 && seg >= 0);
        cr_assert(cs == 1 || alg > 0, "id %ld size %ld: algorithm 0 at a measured count", id, cs);
        /* the whole buffer: the block (a measured size) x this size */
        if (whole && nms > 1 && lo) {
          int ok = 0;
          for (int q = 0; q < 4; q++) ok |= lo == measured[q] * cs;
          cr_assert(ok, "id %ld size %ld: threshold %ld is no block x %ld", id, cs, lo, cs);
          scaled++;
        }
        if (id == 7 && alg == 3 && lo >= 65536) {
          cr_assert(seg > 0, "a pipelined bcast from %ld B without a segment", lo);
          segmented++;
        }
      }
    }
  }
  cr_assert(eq(int, k, n), "trailing numbers");
  cr_assert(scaled > 8, "%d whole-buffer thresholds checked", scaled); /* 8..15 ranks at least */
  cr_log_info("pipelined bcast rules with a segment: %d; whole-buffer thresholds: %d", segmented,
              scaled);
  free(v), free(text);
}

/* Open MPI 6.0's JSON: the schema's fields and nothing else; the rules of
 * the classic file (comm and message sizes, algorithms). */
Test(rules, ompi_json_form, .init = setup_tuned, .fini = teardown, .timeout = 120) {
  char *js = read_text(json_path), *classic = read_text(ompi_path);
  cr_assert(js && classic);
  struct jp j = json_ok(js);
  cr_assert(eq(dbl, json_num(&j, "rule_file_version"), 3.0));
  HAS(json_get(&j, "module"), "\"tuned\"");
  static const char *const fields[] = {"rule_file_version",
                                       "module",
                                       "collectives",
                                       "comm_size_min",
                                       "comm_size_max",
                                       "rules",
                                       "msg_size_min",
                                       "msg_size_max",
                                       "alg",
                                       "faninout",
                                       "seg_size",
                                       "allgather",
                                       "allreduce",
                                       "alltoall",
                                       "exscan",
                                       "scan",
                                       "barrier",
                                       "bcast",
                                       "gather",
                                       "reduce",
                                       "reduce_scatter",
                                       "reduce_scatter_block",
                                       "scatter"};
  int nalg = 0;
  for (const char *p = js; (p = strchr(p, '"')); p++) {
    size_t len = strcspn(p + 1, "\"");
    int ok = 0;
    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
      ok |= strlen(fields[f]) == len && !strncmp(p + 1, fields[f], len);
    cr_assert(ok || !strncmp(p + 1, "tuned", 5), "field %.*s is not the schema's", (int)len, p + 1);
    nalg += len == 3 && !strncmp(p + 1, "alg", 3);
    p += len + 1;
  }
  /* every classic rule of a measured count is one JSON rule */
  int nclassic = 0;
  for (const char *p = classic; (p = strstr(p, "\n")); p++)
    if (isdigit((unsigned char)p[1])) {
      long a, b, c, d;
      char rest[8];
      if (sscanf(p + 1, "%ld %ld %ld %ld %7s", &a, &b, &c, &d, rest) == 5 && !strcmp(rest, "#") &&
          b > 0)
        nclassic++;
    }
  cr_assert(eq(int, nalg, nclassic), "JSON rules %d, classic rules %d", nalg, nclassic);
  free(js), free(classic);
}

/* Every chain of size tests ends in =any; every size is an int. */
static void chains(const struct jn *v, int n) {
  const char *fam[] = {"comm_size", "avg_msg_size", "total_msg_size"};
  for (int f = 0; f < 3; f++) {
    int has = 0, ends = 0;
    for (int i = 0; i < n; i++)
      if (!strncmp(v[i].key, fam[f], strlen(fam[f]))) {
        has = 1;
        ends = !strcmp(v[i].key + strlen(fam[f]), "=any");
        long x;
        if (sscanf(v[i].key + strlen(fam[f]), "<=%ld", &x) == 1)
          cr_assert(x >= 0 && x <= 2147483647L, "%s: not an int", v[i].key);
      }
    cr_assert(has == 0 || ends, "a chain of %s tests does not end in =any (%s...)", fam[f],
              v[0].key);
  }
  for (int i = 0; i < n; i++) chains(v[i].kid, v[i].n);
}

Test(rules, mpich_form, .init = setup_tuned, .fini = teardown, .timeout = 120) {
  char *text = read_text(mpich_path);
  cr_assert(text != NULL);
  cr_assert(eq(int, strncmp(text, "/*\n * written by tutti", 22), 0));
  const char *end = strstr(text, "*/");
  cr_assert(end != NULL);
  json_ok(end + 2); /* plain JSON after the comment */
  const char *p = text;
  int n;
  struct jn *top = jobject(&p, &n);
  static const char *const all[] = {"bcast",
                                    "allreduce",
                                    "allgather",
                                    "allgatherv",
                                    "reduce",
                                    "reduce_scatter",
                                    "reduce_scatter_block",
                                    "gather",
                                    "scatter",
                                    "gatherv",
                                    "scatterv",
                                    "scan",
                                    "exscan",
                                    "barrier",
                                    "alltoall",
                                    "alltoallv",
                                    "alltoallw",
                                    "neighbor_allgather",
                                    "neighbor_allgatherv",
                                    "neighbor_alltoall",
                                    "neighbor_alltoallv",
                                    "neighbor_alltoallw",
                                    "ibarrier",
                                    "iallreduce",
                                    "iallgather",
                                    "iallgatherv",
                                    "ibcast",
                                    "ireduce",
                                    "ireduce_scatter",
                                    "ireduce_scatter_block",
                                    "igather",
                                    "iscatter",
                                    "igatherv",
                                    "iscatterv",
                                    "iexscan",
                                    "ialltoall",
                                    "ialltoallv",
                                    "ialltoallw",
                                    "iscan",
                                    "ineighbor_allgather",
                                    "ineighbor_allgatherv",
                                    "ineighbor_alltoall",
                                    "ineighbor_alltoallv",
                                    "ineighbor_alltoallw"};
  for (size_t a = 0; a < sizeof all / sizeof *all; a++) {
    char key[64];
    int found = 0;
    snprintf(key, sizeof key, "collective=%s", all[a]);
    for (int i = 0; i < n; i++) found += !strcmp(top[i].key, key);
    cr_assert(eq(int, found, 1), "%s: %d times", key, found);
  }
  cr_assert(eq(int, n, (int)(sizeof all / sizeof *all)));
  chains(top, n);
  jfree(top, n);
  free(text);
}

/* ------------------------------------------------------------ bad input */

/* A write that fails: exit 3, one line, the old file as it was, nothing
 * beside it (a 1 KiB file-size limit in the shell; SIGXFSZ ignored, so
 * the write fails with EFBIG). */
Test(rules, unwritable_file_is_3_and_leaves_the_old_one, .init = setup, .fini = teardown,
     .timeout = 120) {
  const char *flags[] = {"--ompi-rules", "--ompi-rules-json", "--mpich-rules"};
  char path[700], *o;
  const char *bin = getenv("TUTTI_BINARY_DIR");
  cr_assert(bin && *bin, "TUTTI_BINARY_DIR is not set (ctest sets it)");
  snprintf(path, sizeof path, "%s/old.rules", dir);
  for (int f = 0; f < 3; f++) {
    FILE *w = fopen(path, "w");
    cr_assert(w != NULL);
    fputs("old\n", w);
    fclose(w);
    int rc = sh(&o,
                "trap '' XFSZ; ulimit -f 1; exec %s/tutti tune --ranks 3,8 --sizes 8,64KiB "
                "--no-data %s %s >/dev/null",
                bin, flags[f], path);
    cr_assert(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 3, "%s: status %d: %s", flags[f], rc,
              o);
    HAS(o, flags[f]);
    HAS(o, "writing");
    cr_assert(eq(ptr, strchr(o, '\n'), strrchr(o, '\n')), "more than one line: %s", o);
    free(o);
    char *old = read_text(path);
    cr_assert(eq(str, old, "old\n"), "%s: the old file changed", flags[f]);
    free(old);
    rc = sh(&o, "ls %s", dir);
    cr_assert(eq(str, o, "old.rules\nout.txt\n"), "left beside it: %s", o);
    free(o);
  }
  struct cli c = CLI("tune", "--ranks", "2", "--sizes", "8", "--mpich-rules", "/dev/full");
  fails_with(c, 3, "--mpich-rules");
  cli_free(&c);
}

/* A model without costs ranks nothing: exit 2 naming the flag and the
 * profile, and no file. */
Test(rules, profile_without_costs_is_2, .init = setup, .fini = teardown, .timeout = 60) {
  char prof[700], out[700];
  snprintf(prof, sizeof prof, "%s/flat.ini", dir);
  snprintf(out, sizeof out, "%s/x.rules", dir);
  FILE *w = fopen(prof, "w");
  cr_assert(w != NULL);
  fputs("[model]\npreset = none\n", w);
  fclose(w);
  struct cli c =
      CLI("tune", "--ranks", "2", "--sizes", "8", "--profile", prof, "--ompi-rules", out);
  fails_with(c, 2, "--ompi-rules");
  HAS(c.err, prof);
  HAS(c.err, "accepted");
  cli_free(&c);
  c = CLI("tune", "--ranks", "2", "--sizes", "8", "--model", "none", "--mpich-rules", out);
  fails_with(c, 2, "--mpich-rules: --model none has no latency or bandwidth");
  cli_free(&c);
  c = CLI("tune", "--ranks", "2", "--sizes", "8", "--model", "none", "--ompi-rules-json", out);
  fails_with(c, 2, "--ompi-rules-json");
  cli_free(&c);
  cr_assert(ne(int, access(out, F_OK), 0), "a file was written");
}

/* Where tutti's best is an algorithm the library lacks, the rule names the
 * next best it has and a note says so: under a postal model the
 * lambda-tree and postal-optimal trees win bcast, which neither library
 * has. MPICH 4.0 cannot select another gather, scatter or barrier than
 * its one (binomial, binomial, dissemination): the rules name that one,
 * the notes say what tutti's best was, the header says why. */
Test(rules, missing_algorithm_gets_the_next_best_and_a_note, .init = setup, .fini = teardown,
     .timeout = 120) {
  char op[700], mp[700];
  snprintf(op, sizeof op, "%s/o.rules", dir);
  snprintf(mp, sizeof mp, "%s/m.json", dir);
  struct cli c = CLI("tune", "--ranks", "16", "--sizes", "8", "--model", "postal:L=4",
                     "--ompi-rules", op, "--mpich-rules", mp);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  char *o = read_text(op), *m = read_text(mp);
  cr_assert(o && m);
  HAS(o, "# at 16 ranks, 8 B, tutti's best, lambda-tree");
  HAS(o, "is not in Open MPI: the next best it has is");
  /* the rule under the note names an algorithm, not Open MPI's own (0) */
  const char *note = strstr(o, "# at 16 ranks, 8 B, tutti's best, lambda-tree");
  const char *rule = strchr(note, '\n') + 1;
  long lo, alg;
  cr_assert(eq(int, sscanf(rule, "%ld %ld", &lo, &alg), 2), "no rule under the note: %.60s", rule);
  cr_assert(alg > 0);
  HAS(m, "note: bcast, 16.. ranks, message 0 B..no end: at 16 ranks, 8 B, tutti's best");
  HAS(m, "is not in MPICH 4.0: the next best it has is MPIR_Bcast_intra_binomial");
  HAS(m, "MPICH has one gather, one\n * scatter and one barrier algorithm");
  HAS(m, "note: gather, 16.. ranks, whole buffer 0 B..no end: at 16 ranks, 8 B, tutti's best, "
         "lambda-tree:lambda=auto (11), is not in MPICH 4.0: the next best it has is "
         "MPIR_Gather_intra_binomial (16, +45.5%)");
  HAS(m, "note: barrier, 16.. ranks: at 16 ranks, tutti's best, fibonacci");
  free(o), free(m);
}

/* bench/CLI.md's example of the classic file: its command run as written
 * (in the scratch folder), the lines it shows found in the file, in order. */
Test(rules, cli_md_example_is_true, .init = setup, .fini = teardown, .timeout = 60) {
  char path[700];
  snprintf(path, sizeof path, "%s/bench/CLI.md", src);
  char *md = read_text(path);
  cr_assert(md != NULL, "no %s", path);
  const char *cmd =
      "    $ tutti tune --ranks 8 --sizes 8,1MiB --profile gige --no-data --ompi-rules o.rules\n";
  const char *at = strstr(md, cmd);
  cr_assert(at != NULL, "CLI.md lacks the example '%s'", cmd);
  snprintf(path, sizeof path, "%s/o.rules", dir);
  struct cli c = CLI("tune", "--ranks", "8", "--sizes", "8,1MiB", "--profile", "gige", "--no-data",
                     "--ompi-rules", path);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  char *file = read_text(path);
  cr_assert(file != NULL);
  at = strchr(strchr(at, '\n') + 1, '\n') + 1; /* past the command and "(o.rules, ...)" */
  const char *from = file;
  int n = 0;
  for (; !strncmp(at, "    ", 4) && at[4] != '$'; at = strchr(at, '\n') + 1, n++) {
    char want[256];
    snprintf(want, sizeof want, "\n%.*s\n", (int)strcspn(at + 4, "\n"), at + 4);
    const char *hit = strstr(from, want);
    cr_assert(hit != NULL, "CLI.md shows '%s', which the file (from there on) lacks:\n%s", want + 1,
              from);
    from = hit + 1;
  }
  cr_assert(n >= 7, "%d lines of the example checked", n);
  free(md), free(file);
}

/* The new collectives where the libraries number them, from one tune at 2,
 * 6 and 8 ranks (gige): Open MPI's alltoall rules name modified_bruck (3)
 * for small blocks and pairwise (2) for large, which at 6 ranks is
 * tutti's pairwise itself and at 8 ranks, a power of two where tutti's
 * pairwise pairs rank XOR s, its ring's (a tie, noted); at 2 ranks every
 * alltoall ties and the rule is Open MPI's first, pairwise, MPICH's
 * scattered. Open MPI's scan and exscan rules name linear, with a note of
 * tutti's recursive-doubling; MPICH's scans stay its own. */
Test(rules, alltoall_and_scans_where_the_libraries_number_them, .init = setup, .fini = teardown,
     .timeout = 120) {
  char op[700], jp[700], mp[700];
  snprintf(op, sizeof op, "%s/o.rules", dir);
  snprintf(jp, sizeof jp, "%s/o.json", dir);
  snprintf(mp, sizeof mp, "%s/m.json", dir);
  struct cli c = CLI("tune", "--ranks", "2,6,8", "--sizes", "8,1MiB", "--profile", "gige",
                     "--no-data", "--ompi-rules", op, "--ompi-rules-json", jp, "--mpich-rules", mp);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  char *o = read_text(op), *j = read_text(jp), *m = read_text(mp);
  cr_assert(o && j && m);
  /* Open MPI 4.1: alltoall (3) keyed by the whole buffer */
  const char *a = strstr(o, "\n3 # alltoall\n");
  cr_assert(a != NULL, "no alltoall in the classic file");
  const char *a_end = strstr(a, "\n6 # barrier\n");
  cr_assert(a_end != NULL);
  char *sec = strndup(a, (size_t)(a_end - a));
  cr_assert(sec != NULL);
  HAS(sec, "\n2 1 # 2..5 ranks: the rules measured at 2\n");
  HAS(sec, "# at 2 ranks, 8 B, tutti's best, pairwise, and Open MPI's pairwise tie");
  HAS(sec, "\n0 2 0 0 # 0 B..no end: pairwise\n");
  HAS(sec, "\n6 2 # 6 ranks: the rules measured at 6\n0 3 0 0 # 0 B..6291455 B: modified_bruck\n"
           "6291456 2 0 0 # 6 MiB..no end: pairwise\n");
  HAS(sec, "\n8 2 # 8 ranks and up: the rules measured at 8\n0 3 0 0 # 0 B..8388607 B: "
           "modified_bruck\n# at 8 ranks, 1 MiB, tutti's best, pairwise, and Open MPI's pairwise "
           "tie");
  cr_assert(eq(ptr, strstr(sec, "at 6 ranks, 1 MiB"), NULL),
            "a note at 6 ranks, where tutti's pairwise is Open MPI's: %s", sec);
  free(sec);
  /* scan (14) and exscan (8): linear, tutti's best noted */
  static const char *const scans[] = {"\n14 # scan\n", "\n8 # exscan\n"};
  for (int i = 0; i < 2; i++) {
    const char *sc = strstr(o, scans[i]);
    cr_assert(sc != NULL, "no%s", scans[i]);
    HAS(sc, "# at 8 ranks, 8 B, tutti's best, recursive-doubling");
    HAS(sc, "is not in Open MPI: the next best it has is linear");
    const char *r8 = strstr(sc, "\n8 1 # 8 ranks and up: the rules measured at 8\n");
    cr_assert(r8 != NULL, "%s at 8 ranks: not one rule", scans[i] + 1);
    HAS(r8, "\n0 1 0 0 # 0 B..no end: linear\n");
  }
  HAS(o, "scan and exscan, whose BYTES Open\n# MPI takes as the datatype's size x the communicator "
         "size");
  /* Open MPI 6.0's JSON: the same three by the reader's names */
  HAS(j, "\n    \"alltoall\": [");
  HAS(j, "\n    \"scan\": [");
  HAS(j, "\n    \"exscan\": [");
  /* MPICH 4.0: alltoall by the block (avg_msg_size), separate buffers only */
  const char *ma = strstr(m, "\n\"collective=alltoall\":");
  cr_assert(ma != NULL);
  HAS(ma, "\n  \"comm_size<=5\":{\"is_sendbuf_inplace=yes\":{\"algorithm=MPIR_Alltoall_intra_"
          "pairwise_sendrecv_replace\":{}},\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Alltoall_"
          "intra_scattered\":{}}},");
  HAS(ma, "\n  \"comm_size=any\":{\"avg_msg_size<=1048575\":{\"is_sendbuf_inplace=yes\":{"
          "\"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\":{}},\"is_sendbuf_inplace="
          "no\":{\"algorithm=MPIR_Alltoall_intra_brucks\":{}}},\"avg_msg_size=any\":{\"is_"
          "sendbuf_inplace=yes\":{\"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\":{}},"
          "\"is_sendbuf_inplace=no\":{\"algorithm=MPIR_Alltoall_intra_pairwise\":{}}}}},");
  HAS(m, "note: alltoall, 2..5 ranks, message 0 B..no end: at 2 ranks, 8 B, tutti's best, "
         "pairwise, and MPICH 4.0's MPIR_Alltoall_intra_scattered tie");
  HAS(m,
      "\n\"collective=scan\":{\"comm_type=intra\":{\"is_node_consecutive=yes\":{\"algorithm="
      "MPIR_Scan_intra_smp\":{}},\"is_node_consecutive=no\":{\"algorithm=MPIR_Scan_intra_"
      "recursive_doubling\":{}}},\"comm_type=inter\":{\"algorithm=MPIR_Scan_intra_smp\":{}}},\n");
  HAS(m, "\n\"collective=exscan\":{\"algorithm=MPIR_Exscan_intra_recursive_doubling\":{}},\n");
  HAS(m, "and so do scan and exscan\n * (none of MPICH's is one of tutti's)");
  free(o), free(j), free(m);
}
