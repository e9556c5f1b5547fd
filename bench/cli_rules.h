/*
 * cli_rules.h -- what `tutti tune` measured (cli_tune.c) and the rules
 * files it writes for MPI libraries from it (bench/CLI.md "MPI libraries'
 * rules files"): Open MPI 4.1's classic coll/tuned file and Open MPI
 * 6.0's JSON one (cli_rules_ompi.c), MPICH 4.0's collective-selection
 * JSON (cli_rules_mpich.c), both through the library-neutral part here
 * (cli_rules.c): per (collective, rank count, size) the fastest
 * algorithm the library has, adjacent sizes with the same choice merged,
 * a library whose size key is the whole buffer (block x communicator
 * size) given one rule set per communicator size.
 *
 * A library names its own algorithms, so the mapping from tutti's is a
 * list by hand in each library's file (the registry cannot know them);
 * collectives/REFERENCE.md "Open MPI and MPICH" is the same table for
 * people.
 */
#ifndef TUTTI_CLI_RULES_H
#define TUTTI_CLI_RULES_H

#include <stddef.h>
#include <stdio.h>

#include "tutti/tutti.h"

#define TUNE_MAX_CANDIDATES 64

/* One (collective, P, m) of a tune: every candidate's time. */
struct tune_cell {
  int coll, P, ok; /* ok: some candidate ran and was verified */
  size_t m;
  double *times; /* per candidate of coll; INFINITY: skipped or not verified */
  long *seg;     /* per candidate: the bytes per segment its run used, 0: one message */
  int best;      /* the winner's index (ties: the first enumerated); -1 if !ok */
  double t, t2;  /* the winner's time and the runner-up's (INFINITY: none) */
  char spec[256], spec2[256];
};

/* A whole tune, and what the files say of where it came from. */
struct tune_result {
  struct tune_cell *cells;
  int ncells;
  int *ranks, nranks; /* ascending */
  size_t *sizes;      /* ascending */
  int nsizes;
  int first[TUTTI_COLL_N]; /* each collective's first cell */
  int per[TUTTI_COLL_N];   /* cells per rank count: nsizes, or 1 for barrier */
  const tutti_algo_t *cand[TUTTI_COLL_N][TUNE_MAX_CANDIDATES];
  int ncand[TUTTI_COLL_N];
  const char *profile;        /* the profile's name, NULL under --model */
  const char *model_spec;     /* --model as given, NULL under a profile */
  const char *topology;       /* --topology as given, NULL without */
  const tutti_model_t *model; /* the model of the smallest rank count (times in notes) */
  char model_desc[512];
  const char *ranks_text, *sizes_text;
  int no_data;
};

/* The cell of (coll, rank index i, size index s; 0 for barrier). */
const struct tune_cell *tune_cell_at(const struct tune_result *t, int coll, int i, int s);

/* ------------------------------------------------------------ libraries */

/* What a library runs for one rule: its algorithm number (0: its own
 * choice, the rule says nothing) and name, and the parameters it takes. */
struct rules_pick {
  int alg;
  const char *name; /* the library's name of alg ("binomial", "MPIR_Bcast_intra_binomial") */
  long fan;         /* fan-out (Open MPI's faninout; the k-nomial radix), 0: none */
  long seg;         /* segment bytes, 0: none */
};

/* A collective of a library: the tutti collective it is tuned from. map
 * gives the library's algorithm for candidate a of that collective run on
 * P ranks whose run cut its messages in seg-byte segments: 0 with *out
 * filled and *pref its rank among the library's algorithms on a tie
 * (lower first: the library's default first), or -1 when the library has
 * no such algorithm. */
struct rules_target {
  int coll;          /* enum tutti_coll */
  int id;            /* the library's number of the collective (-1: none) */
  const char *name;  /* the library's name of it */
  int key_per_block; /* the library's size key is m x the communicator size */
  int (*map)(const struct rules_target *tg, const tutti_algo_t *a, int P, long seg,
             struct rules_pick *out, int *pref);
};

/* One rule: the library's size key lo..hi (hi SIZE_MAX: no end). */
struct rules_rule {
  size_t lo, hi;
  struct rules_pick pick;
  char note[768]; /* "" or why the library runs other than tutti's best */
};

/* The rules of the communicator sizes cmin..cmax (cmax INT32_MAX: no end). */
struct rules_comm {
  int cmin, cmax;
  int measured; /* the rank count the rules were measured at; 0: none (below every one) */
  int n;
  struct rules_rule *r;
};

/* Target tg's rules from t, by communicator size from 1 up: below the
 * smallest measured rank count one rule of alg 0 (the library's own
 * choice); from each measured count to the next, its sizes' picks with
 * adjacent equal ones merged; a per-block key gets one rules_comm per
 * communicator size (its thresholds are block x that size), but where a
 * count has a single rule. lib names the library in notes ("Open MPI").
 * 0, or TUTTI_ENOMEM. Free with rules_free. */
int rules_build(const struct tune_result *t, const struct rules_target *tg, const char *lib,
                struct rules_comm **out, int *n);
void rules_free(struct rules_comm *c, int n);

/* The file's first comment lines: tutti's version, the profile or model,
 * the date (UTC; $SOURCE_DATE_EPOCH when set), the grid and --no-data,
 * each line starting with `lead` ("# ", " * "). */
void rules_provenance(FILE *f, const struct tune_result *t, const char *lead);

/* The writers: each writes the whole file on f; errors are f's (its
 * writer, cli_out.c, checks them). 0, or TUTTI_ENOMEM. */
int rules_write_ompi(FILE *f, const struct tune_result *t);
int rules_write_ompi_json(FILE *f, const struct tune_result *t);
int rules_write_mpich(FILE *f, const struct tune_result *t);

#endif
