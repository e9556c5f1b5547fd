/*
 * bench_smpi.c -- `tutti bench smpi`: tutti's modeled time against SimGrid's
 * SMPI, the same algorithm on both sides, one call of each (runtime/MODEL.md
 * against SimGrid 3.32's simulation of the same cluster).
 *
 * The machine: P hosts, each with a private link of 1 Gbps and 10 us to one
 * switch, up and down apart. SimGrid simulates it with its CM02 network
 * model (smpi/cluster.xml; CM02's latency and bandwidth factors are 1, its
 * cross-traffic, which charges each flow's acknowledgements to the reverse
 * path, is off), tutti with a profile of the same links (smpi/cm02.ini:
 * tree:64, --links 10us/1Gbps, LogGP with no cost at the ends, SMPI's
 * protocol: its 16-byte header, every transfer from the receive's post,
 * sends detached below 64 KiB, links shared max-min fairly). Both files are compiled into the
 * command and written out with the SMPI program (smpi/coll.c) when the bench runs.
 *
 * The pairs. Each tutti algorithm is paired with the SMPI algorithm that
 * sends the same messages -- the same peers and sizes, in the same order
 * on every rank -- and every case checks it: SMPI's request log (at
 * verbose) names each send a rank posts between two markers around the
 * call, tutti's replay each message by sender in send order
 * (tutti_world_explain), and the row says whether the two lists agree. A
 * case whose lists differ is shown but not counted: its times compare two
 * patterns, not two models of one. What remains between agreeing lists is
 * how a message is sent, which is what the summary counts: within 2% and
 * within 0.64% (one 16-byte envelope on a 20 us message).
 *
 * One case: smpirun of the program with --cfg=smpi/COLL:ALGO, its time the
 * simulated seconds from a common start to the last rank's return (the
 * program's header says how the ranks start together), beside one call of
 * the tutti algorithm on a timing-only world (TUTTI_NO_DATA: the modeled
 * time of a data run, bit for bit) run by the commands' point runner.
 * Reductions sum int32 on both sides; root 0.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "mpijob.h"
#include "tutti/tutti.h"

#include "smpi_files.inc"

int tutti_bench_smpi(int argc, char **argv);

#define WHO "tutti bench smpi"
#define CMD "bench smpi" /* cli_fail's name of the command */
#define HOSTS 64         /* hosts of smpi/cluster.xml */
#define MARK_TAG "tag = 4242"
#define CLOSE 2.0     /* per cent: the target */
#define ENVELOPE 0.64 /* per cent: 16 B more on a 20 us message (8 ns a byte) */
#define TIMEOUT 900   /* seconds an smpirun may take */

/* How smpirun simulates the platform: CM02 alone (not SMPI's own model,
 * whose latency and bandwidth factors vary with the size), no
 * cross-traffic (tutti's links carry no acknowledgements), no time for
 * the program's own computation or clock reads. */
static const char *const smpi_cfg[] = {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                       "--cfg=smpi/simulate-computation:0", "--cfg=smpi/wtime:0"};
#define NCFG (sizeof smpi_cfg / sizeof *smpi_cfg)

/* A pair: the tutti algorithm (with parameters), the SMPI one, the further
 * --cfg flags SMPI needs (or NULL), and why they send the same messages
 * in the same way. */
struct pair {
  const char *coll, *tutti, *smpi, *cfg[2], *why;
};

static const struct pair pairs[] = {
    {"bcast", "flat", "flattree", {NULL}, "the root posts its sends to 1, 2, .., P-1 at once"},
    {"bcast",
     "binomial",
     "binomial_tree",
     {NULL},
     "MPICH's binomial tree: from rank - 2^k (its lowest set bit), then to rank + 2^j, j < k, "
     "farthest first, each send done before the next"},
    {"bcast",
     "pipelined-chain:segment=8KiB,window=0",
     "NTSL",
     {NULL},
     "a chain in rank order, 8 KiB segments (SMPI's NTSL segment), every receive and the root's "
     "sends posted at once, each segment forwarded once received (window=0)"},
    {"bcast",
     "pipelined-chain:segment=128KiB",
     "ompi_pipeline",
     {NULL},
     "Open MPI's pipeline: a chain in rank order, 128 KiB segments (SMPI's choice for these "
     "sizes)"},
    {"bcast",
     "scatter-allgather:allgather=ring",
     "scatter_LR_allgather",
     {NULL},
     "a binomial scatter of P blocks, then a ring allgather; SMPI's blocks are ceil(m/P) bytes, "
     "the last shorter, tutti's differ by one byte at most: the same when P divides m"},
    {"bcast",
     "scatter-allgather:allgather=recursive-doubling",
     "scatter_rdb_allgather",
     {NULL},
     "a binomial scatter, then recursive doubling of the blocks (P a power of two; tutti runs "
     "the ring on other P)"},
    {"reduce", "flat", "flat_tree", {NULL}, "every rank sends its vector to the root"},
    {"reduce",
     "binomial",
     "binomial",
     {NULL},
     "MPICH's binomial tree: from rank + 2^j, nearest first, then to rank - 2^k"},
    {"allreduce",
     "reduce-bcast",
     "redbcast",
     {"--cfg=smpi/reduce:binomial", "--cfg=smpi/bcast:binomial_tree"},
     "SMPI's redbcast is its reduce to rank 0, then its bcast: set to binomial and "
     "binomial_tree (--cfg), tutti's binomial reduce, then binomial bcast"},
    {"allreduce",
     "recursive-doubling",
     "rdb",
     {NULL},
     "MPICH's recursive doubling: the P - p' extra ranks fold in and get the result back, whole "
     "vectors exchanged with rank XOR 2^k"},
    {"allreduce",
     "ring",
     "lr",
     {NULL},
     "a ring reduce-scatter of P blocks, then a ring allgather; SMPI's lr does the count mod P "
     "elements left over by another allreduce: the same when P divides the count"},
    {"allgather",
     "ring",
     "NTSLR",
     {NULL},
     "each rank sends to rank + 1 the block it received last, P - 1 steps"},
    {"allgather",
     "recursive-doubling",
     "rdb",
     {NULL},
     "exchanges with rank XOR 2^k of 2^k blocks (P a power of two; tutti refuses others)"},
    {"allgather",
     "bruck",
     "bruck",
     {NULL},
     "Bruck's: to rank - 2^k the first min(2^k, P - 2^k) blocks, ceil(log2 P) rounds"},
    {"reduce_scatter",
     "ring",
     "ompi_ring",
     {NULL},
     "Open MPI's ring: each rank sends its partial block to rank + 1, P - 1 steps"},
    {"reduce_scatter",
     "recursive-halving",
     "ompi_basic_recursivehalving",
     {NULL},
     "Open MPI's recursive halving: the extra ranks fold in, halves exchanged with rank XOR "
     "p'/2, .., 1, the blocks sent back"},
    {"barrier",
     "flat",
     "ompi_basic_linear",
     {NULL},
     "every rank sends to rank 0, which posts every receive at once, then sends to every rank"},
    {"barrier",
     "binomial",
     "ompi_tree",
     {NULL},
     "empty messages up a binomial tree to rank 0, received one after the other, nearest "
     "first, and down it (tutti's tournament sends the same)"},
    {"barrier",
     "dissemination",
     "ompi_bruck",
     {NULL},
     "round k: to rank + 2^k, from rank - 2^k (SMPI's mpich barrier is the same)"},
    {"barrier",
     "recursive-doubling",
     "ompi_recursivedoubling",
     {NULL},
     "exchanges with rank XOR 2^k, the extra ranks folded in (SMPI's mvapich2_pair is the "
     "same)"},
};
#define NPAIRS (sizeof pairs / sizeof *pairs)

/* What has no pair, and why (SMPI 3.32's src/smpi/colls against
 * collectives/REFERENCE.md). */
static const char *const unpaired[] = {
    "bcast binary: SMPI has no heap-ordered binary tree (ompi_split_bintree halves the message "
    "over two trees, SMP_binary is per node)",
    "reduce binary / ompi_binary: Open MPI's binary tree is numbered otherwise (rank 4's parent "
    "is 2, in heap order 1) and sends 32 KiB segments",
    "allreduce rabenseifner / rab_rdb, rab, mvapich2_rs: their halving starts with the nearest "
    "partner (rank XOR 1), tutti's with the farthest (rank XOR p'/2); rab1, rab2: other "
    "schedules",
    "allgather ring / ring, pair: SMPI's exchange with rank + i at step i, not the neighbours",
    "reduce_scatter ring / mpich_pair: pairwise shifts; recursive-halving / mpich_rdb: whole "
    "vectors by recursive doubling",
    "lambda-tree, postal-optimal, fibonacci, tournament (binomial's messages), dual-root, "
    "single-tree, binary-reduce-bcast, two-tree, k-way dissemination, hierarchical: SMPI has "
    "none of them",
};
#define NUNPAIRED (sizeof unpaired / sizeof *unpaired)

/* ------------------------------------------------------------ messages */

/* A send: from rank src to rank dst, of `bytes`. */
struct send {
  int src, dst;
  uint64_t bytes;
};

struct sends {
  struct send *v;
  size_t n, cap;
};

static int sends_add(struct sends *s, int src, int dst, uint64_t bytes) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    struct send *v = realloc(s->v, cap * sizeof *v);
    if (!v) return -1;
    s->v = v, s->cap = cap;
  }
  s->v[s->n++] = (struct send){src, dst, bytes};
  return 0;
}

/* By sender, each sender's sends in the order it posted them (a stable
 * counting sort on src): the order tutti_explain_t.msgs has. */
static int sends_by_sender(struct sends *s, int P) {
  struct send *out = malloc((s->n ? s->n : 1) * sizeof *out);
  size_t *at = calloc((size_t)P + 1, sizeof *at);
  if (!out || !at) return free(out), free(at), -1;
  for (size_t i = 0; i < s->n; i++) at[s->v[i].src + 1]++;
  for (int r = 0; r < P; r++) at[r + 1] += at[r];
  for (size_t i = 0; i < s->n; i++) out[at[s->v[i].src]++] = s->v[i];
  free(at);
  free(s->v);
  s->v = out, s->cap = s->n;
  return 0;
}

/* ------------------------------------------------------------ SimGrid */

struct sim {
  char dir[512], smpirun[1024], prog[600], version[128];
  char why[512]; /* setup failed: why */
};

static int write_file(const char *dir, const char *name, const void *bytes, size_t len) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  int bad = !f || fwrite(bytes, 1, len, f) != len;
  if (f && fclose(f)) bad = 1;
  return bad ? -1 : 0;
}

/* Run argv to its end (TIMEOUT at most), stdout and stderr to the files
 * given: its exit status, or -1 (not started, killed, timed out). */
static int run_wait(char *const argv[], const char *out, const char *err) {
  unlink(out);
  if (err) unlink(err);
  pid_t pid = mpijob_spawn(argv, out, err);
  if (pid < 0) return -1;
  int ws;
  for (long i = 0; i < TIMEOUT * 20L; i++) {
    if (waitpid(pid, &ws, WNOHANG) == pid) return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &ws, 0);
  return -1;
}

/* SimGrid's smpicc and smpirun, a directory with the program built and
 * the platform, profile and host file written: 0, or -1 with sim->why. */
static int sim_setup(struct sim *s) {
  char smpicc[1024], path[700], log[700], line[256];
  s->dir[0] = '\0';
  if (!mpijob_which("smpirun", s->smpirun, sizeof s->smpirun) ||
      !mpijob_which("smpicc", smpicc, sizeof smpicc)) {
    snprintf(s->why, sizeof s->why,
             "SimGrid is not installed (no smpicc and smpirun on the PATH; Debian: apt-get "
             "install libsimgrid-dev)");
    return -1;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(s->dir, sizeof s->dir, "%s/tutti-bench-smpi.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(s->dir)) {
    snprintf(s->why, sizeof s->why, "cannot make a directory for SimGrid's files: %s",
             strerror(errno));
    s->dir[0] = '\0';
    return -1;
  }
  char hosts[HOSTS * 8] = "";
  for (int h = 0; h < HOSTS; h++)
    snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "h%d\n", h);
  int bad = write_file(s->dir, "hosts", hosts, strlen(hosts));
  for (size_t i = 0; i < sizeof smpi_files / sizeof *smpi_files; i++)
    bad |= write_file(s->dir, smpi_files[i].name, smpi_files[i].bytes, smpi_files[i].len);
  if (bad) {
    snprintf(s->why, sizeof s->why, "cannot write SimGrid's files into %.300s", s->dir);
    return -1;
  }
  snprintf(path, sizeof path, "%s/coll.c", s->dir);
  snprintf(s->prog, sizeof s->prog, "%s/coll", s->dir);
  snprintf(log, sizeof log, "%s/smpicc.log", s->dir);
  char *cc[] = {smpicc, "-O2", "-o", s->prog, path, NULL};
  if (run_wait(cc, log, NULL)) {
    mpijob_first_line(log, line, sizeof line);
    snprintf(s->why, sizeof s->why, "smpicc failed to build the SMPI program: %s",
             line[0] ? line : "no output");
    return -1;
  }
  char *ver[] = {s->smpirun, "-version", NULL};
  snprintf(log, sizeof log, "%s/version", s->dir);
  run_wait(ver, log, NULL);
  mpijob_first_line(log, s->version, sizeof s->version);
  return 0;
}

static void sim_cleanup(struct sim *s) {
  static const char *const files[] = {"hosts", "coll", "smpicc.log", "version", "out", "log"};
  char path[700];
  if (!s->dir[0]) return;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(path, sizeof path, "%s/%s", s->dir, files[i]);
    unlink(path);
  }
  for (size_t i = 0; i < sizeof smpi_files / sizeof *smpi_files; i++) {
    snprintf(path, sizeof path, "%s/%s", s->dir, smpi_files[i].name);
    unlink(path);
  }
  rmdir(s->dir);
}

/* The sends of the call from SMPI's request log: each rank's between its
 * two markers (smpi/coll.c). A line opens "[HOST:RANK:(PID) TIME] "; a
 * send's names its size and the source's and destination's process ids,
 * which are the ranks plus one offset. */
static int read_log(const char *path, struct sends *out) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  unsigned char state[HOSTS] = {0};
  int rc = 0;
  while (getline(&line, &cap, f) > 0) {
    int rank, src, dst;
    unsigned long long size;
    const char *p;
    if (sscanf(line, "[%*[^:]:%d:", &rank) != 1 || rank < 0 || rank >= HOSTS) continue;
    if (strstr(line, "Destroying") && strstr(line, MARK_TAG)) {
      state[rank]++;
      continue;
    }
    if (state[rank] != 1 || !strstr(line, "New send  request") || !(p = strstr(line, "size = ")) ||
        sscanf(p, "size = %llu, src = %d, dst = %d", &size, &src, &dst) != 3)
      continue;
    if (sends_add(out, rank, dst - src + rank, size)) {
      rc = -1;
      break;
    }
  }
  free(line);
  fclose(f);
  return rc;
}

/* One SMPI case: its time in seconds into *t and its sends into *out; 0,
 * or -1 with why. */
static int sim_case(const struct sim *s, const struct pair *pr, int P, size_t bytes, double *t,
                    struct sends *out, char *why, size_t nwhy) {
  char np[16], algo[128], sz[32], outp[700], logp[700], line[256];
  char *argv[32];
  int a = 0;
  snprintf(np, sizeof np, "%d", P);
  snprintf(algo, sizeof algo, "--cfg=smpi/%s:%s", pr->coll, pr->smpi);
  snprintf(sz, sizeof sz, "%zu", bytes);
  snprintf(outp, sizeof outp, "%s/out", s->dir);
  snprintf(logp, sizeof logp, "%s/log", s->dir);
  char platform[700], hosts[700];
  snprintf(platform, sizeof platform, "%s/cluster.xml", s->dir);
  snprintf(hosts, sizeof hosts, "%s/hosts", s->dir);
  argv[a++] = (char *)s->smpirun;
  argv[a++] = "-np", argv[a++] = np;
  argv[a++] = "-platform", argv[a++] = platform, argv[a++] = "-hostfile", argv[a++] = hosts;
  for (size_t i = 0; i < NCFG; i++) argv[a++] = (char *)smpi_cfg[i];
  argv[a++] = algo;
  for (int i = 0; i < 2 && pr->cfg[i]; i++) argv[a++] = (char *)pr->cfg[i];
  argv[a++] = "--log=root.thres:warning";
  argv[a++] = "--log=smpi_request.thres:verbose";
  argv[a++] = (char *)s->prog, argv[a++] = (char *)pr->coll, argv[a++] = sz;
  argv[a] = NULL;
  int st = run_wait(argv, outp, logp);
  FILE *f = fopen(outp, "r");
  int got = f && fscanf(f, "%lf", t) == 1;
  if (f) fclose(f);
  if (st || !got) {
    mpijob_first_line(outp, line, sizeof line);
    snprintf(why, nwhy, "smpirun %s (status %d)%s%s", got ? "failed" : "printed no time", st,
             line[0] ? ": " : "", line);
    return -1;
  }
  out->n = 0;
  if (read_log(logp, out) || sends_by_sender(out, P)) {
    snprintf(why, nwhy, "cannot read SMPI's log %.300s", logp);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ a case */

/* Do SMPI's sends and tutti's messages agree, sender by sender and in each
 * sender's order? "same", or where they first differ, into buf. */
static int same_sends(const struct sends *s, const tutti_explain_t *ex, char *buf, size_t n) {
  char a[32], b[32];
  if (s->n != ex->nmsgs) {
    snprintf(buf, n, "differ: SMPI %zu messages, tutti %zu", s->n, ex->nmsgs);
    return 0;
  }
  for (size_t i = 0; i < s->n; i++) {
    const tutti_msg_info_t *m = &ex->msgs[i];
    if (s->v[i].src == m->src && s->v[i].dst == m->dst && s->v[i].bytes == m->bytes) continue;
    size_t k = 0; /* the sender's k-th send */
    while (k < i && s->v[i - k - 1].src == s->v[i].src) k++;
    snprintf(buf, n, "differ: send %zu of rank %d: SMPI %d->%d %s, tutti %d->%d %s", k + 1,
             s->v[i].src, s->v[i].src, s->v[i].dst,
             tutti_format_bytes((size_t)s->v[i].bytes, a, sizeof a), m->src, m->dst,
             tutti_format_bytes((size_t)m->bytes, b, sizeof b));
    return 0;
  }
  snprintf(buf, n, "same");
  return 1;
}

struct tally {
  int cases, same, close, envelope, failed;
  char far[4096]; /* the cases more than CLOSE apart */
};

/* One case on both sides, its row printed. 0, or 3 when a world fails. */
static int run_case(const struct sim *s, int pi, int P, size_t bytes, tutti_world_t **w,
                    const tutti_config_t *cfg, struct tally *t) {
  const struct pair *pr = &pairs[pi];
  char name[128], err[512], sz[32] = "-", note[600] = "", label[160];
  int coll;
  tutti_coll_find(pr->coll, &coll);
  int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
  if (data) tutti_format_bytes(bytes, sz, sizeof sz);
  snprintf(label, sizeof label, "%s / %s", pr->tutti, pr->smpi);
  printf("%-14s %-71s %3d %8s", pr->coll, label, P, sz);
  fflush(stdout);
  snprintf(name, sizeof name, "%.*s", (int)strcspn(pr->tutti, ":"), pr->tutti);
  const char *colon = strchr(pr->tutti, ':');
  struct cli_point pt = {0};
  if (tutti_algo_select(coll, name, colon ? colon + 1 : NULL, &pt.algo, err, sizeof err)) {
    printf("  failed: %s\n", err);
    t->failed++;
    return 0;
  }
  pt.desc = tutti_algo_desc(pt.algo), pt.coll = coll, pt.bytes = bytes;
  cli_point_run(w, cfg, P, &pt);
  if (pt.skipped || pt.failed) {
    printf("  tutti %s: %s\n", pt.skipped ? "skipped" : "failed", pt.note);
    pt.failed ? t->failed++ : 0;
    return *w ? 0 : 3;
  }
  tutti_explain_t ex = {0};
  struct sends snd = {0};
  double ts = 0;
  int rc = tutti_world_explain(*w, &ex);
  if (rc) snprintf(note, sizeof note, "tutti's messages: %s", tutti_strerror(rc));
  if (!rc && sim_case(s, pr, P, bytes, &ts, &snd, err, sizeof err)) {
    snprintf(note, sizeof note, "%.500s", err);
    rc = -1;
  }
  if (rc) {
    printf("  failed: %s\n", note);
    t->failed++;
  } else {
    int same = same_sends(&snd, &ex, note, sizeof note);
    double d = 100 * (pt.time - ts) / ts;
    printf(" %13.3f %13.3f %+8.2f%%  %zu %s\n", ts * 1e6, pt.time * 1e6, d, snd.n, note);
    t->cases++;
    if (same) {
      t->same++;
      t->close += fabs(d) <= CLOSE;
      t->envelope += fabs(d) <= ENVELOPE;
      if (fabs(d) > CLOSE) {
        size_t len = strlen(t->far);
        snprintf(t->far + len, sizeof t->far - len, "%s%s %s P=%d %s (%+.1f%%)", len ? ", " : "",
                 pr->coll, name, P, sz, d);
      }
    }
  }
  fflush(stdout);
  free(snd.v);
  tutti_explain_free(&ex);
  return 0;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f) {
  fprintf(f, "usage: tutti bench smpi [COLL ...] [options]\n\n"
             "tutti's modeled time against SimGrid SMPI 3.32's simulated time: one call of\n"
             "every pair of algorithms that send the same messages (the pairs are listed),\n"
             "on a cluster of private 1 Gbps / 10 us links to one switch under SimGrid's\n"
             "CM02 model and a tutti profile of the same links; each case checks that both\n"
             "sides sent the same messages. Needs SimGrid (smpicc, smpirun: Debian's\n"
             "libsimgrid-dev). COLL: bcast, reduce, allreduce, allgather, reduce_scatter,\n"
             "barrier (default all).\n\n"
             "  -n, --ranks LIST   rank counts, 2..64 (default 16,48,64)\n"
             "  -m, --bytes LIST   sizes per rank, as --bytes of tutti run (default\n"
             "                     64KiB,1MiB; the barrier has none)\n"
             "  --profile FILE     tutti's side: this profile (a model and a topology of\n"
             "                     at least the largest rank count's leaves) instead of\n"
             "                     bench/smpi/cm02.ini\n");
}

/* The pairs' collectives, each once, in order: "bcast, reduce, ..". */
static const char *coll_names(void) {
  static char buf[128];
  if (!buf[0])
    for (size_t i = 0; i < NPAIRS; i++)
      if (!i || strcmp(pairs[i].coll, pairs[i - 1].coll))
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", pairs[i].coll);
  return buf;
}

/* ------------------------------------------------------------ the bench */

static void print_head(const struct sim *s, const tutti_machine_t *mach, const char *profile) {
  char desc[256];
  tutti_model_describe(&mach->model, desc, sizeof desc);
  printf("SimGrid  %s: smpirun -platform bench/smpi/cluster.xml (%d hosts, each a private\n"
         "         link of 1 Gbps and 10 us, up and down apart, to one switch)\n         ",
         s->version[0] ? s->version : "SimGrid", HOSTS);
  for (size_t i = 0; i < NCFG; i++) printf("%s%s", i ? " " : "", smpi_cfg[i]);
  printf("\n         SMPI's defaults otherwise: smpi/send-is-detached-thresh 64 KiB,\n"
         "         smpi/async-small-thresh 0; each rank on its own host\n");
  printf("tutti    --profile %s\n         model %s\n", profile ? profile : "bench/smpi/cm02.ini",
         desc);
  cli_print_topology(stdout, mach, 9);
  printf("\nThe pairs: the same messages, the same peers and sizes in the same order on every\n"
         "rank (checked in every case below, `messages`):\n");
  for (size_t i = 0; i < NPAIRS; i++) {
    printf("  %-14s %s / %s", pairs[i].coll, pairs[i].tutti, pairs[i].smpi);
    for (int k = 0; k < 2 && pairs[i].cfg[k]; k++) printf(" %s", pairs[i].cfg[k]);
    printf(":\n      %s\n", pairs[i].why);
  }
  printf("Not paired:\n");
  for (size_t i = 0; i < NUNPAIRED; i++) printf("  %s\n", unpaired[i]);
}

static int run_all(const struct sim *s, const char *profile, const int *ranks, int nranks,
                   const size_t *sizes, int nsizes, const unsigned *want) {
  struct cli_opts o = {0};
  int maxP = 2;
  for (int k = 0; k < nranks; k++) maxP = ranks[k] > maxP ? ranks[k] : maxP;
  char path[700];
  snprintf(path, sizeof path, "%s/cm02.ini", s->dir);
  o.profile = profile ? profile : path, o.no_data = 1;
  tutti_machine_t mach;
  int st = cli_model(CMD, &o, maxP, &mach);
  if (st) return st;
  print_head(s, &mach, profile);
  printf("\nOne call each; times in us, SMPI's from a common start to the last rank's return,\n"
         "tutti's modeled (rule 7); diff: (tutti - SMPI) / SMPI; messages: SMPI's count, and\n"
         "whether tutti sent the same.\n\n");
  printf("%-14s %-71s %3s %8s %13s %13s %9s  %s\n", "collective", "algorithm (tutti / SMPI)", "P",
         "size", "SMPI", "tutti", "diff", "messages");
  struct tally t = {0};
  for (int k = 0; k < nranks && !st; k++) {
    int P = ranks[k];
    tutti_machine_t m;
    if ((st = cli_model(CMD, &o, P, &m))) break;
    tutti_config_t cfg = tutti_config_default(P);
    cfg.model = &m.model;
    cli_config(&o, &cfg, 0); /* --no-data */
    tutti_world_t *w = NULL;
    if (tutti_world_create(&w, &cfg)) {
      fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
      tutti_machine_free(&m);
      st = 3;
      break;
    }
    for (size_t pi = 0; pi < NPAIRS && !st; pi++) {
      if (!want[pi]) continue;
      int coll;
      tutti_coll_find(pairs[pi].coll, &coll);
      int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
      for (int z = 0; z < (data ? nsizes : 1) && !st; z++)
        st = run_case(s, (int)pi, P, data ? sizes[z] : 0, &w, &cfg, &t);
    }
    if (w) tutti_world_destroy(w);
    tutti_machine_free(&m);
  }
  tutti_machine_free(&mach);
  if (st) return st;
  printf("\nsummary: %d cases, %d with the same messages on both sides: %d within %.0f%%, %d "
         "within %.2f%%",
         t.cases, t.same, t.close, CLOSE, t.envelope, ENVELOPE);
  if (t.cases > t.same) printf("; %d with other messages, not counted", t.cases - t.same);
  if (t.failed) printf("; %d failed", t.failed);
  printf("\n");
  if (t.close < t.same) {
    printf("more than %.0f%% apart: %s\n", CLOSE, t.far);
  }
  return t.failed ? 3 : 0;
}

int tutti_bench_smpi(int argc, char **argv) {
  const char *ranks_text = "16,48,64", *sizes_text = "64KiB,1MiB", *profile = NULL;
  unsigned seen = 0, want[NPAIRS] = {0};
  int any = 0;
  for (int i = 0; i < argc; i++) {
    int o = bench_grid_opt(WHO, argc, argv, &i, &seen, &ranks_text, &sizes_text, &profile, "FILE");
    if (o == 1) {
      usage(stdout);
      return 0;
    } else if (o == 2) {
      return 2;
    } else if (o == 0) {
      int found = 0;
      for (size_t p = 0; p < NPAIRS; p++)
        if (!strcmp(argv[i], pairs[p].coll)) want[p] = 1, found = 1;
      if (!found) {
        fprintf(stderr, WHO ": unknown collective '%s'; accepted: %s\n", argv[i], coll_names());
        return 2;
      }
      any = 1;
    }
  }
  if (!any)
    for (size_t p = 0; p < NPAIRS; p++) want[p] = 1;
  int *ranks = NULL, nranks = 0, nsizes = 0, st;
  size_t *sizes = NULL;
  if ((st = cli_parse_ranks(CMD, ranks_text, HOSTS, &ranks, &nranks))) return st;
  for (int k = 0; k < nranks; k++)
    if (ranks[k] < 2) {
      fprintf(stderr, WHO ": --ranks: %d is too few; accepted: 2..%d (the platform's hosts)\n",
              ranks[k], HOSTS);
      free(ranks);
      return 2;
    }
  if ((st = cli_parse_sizes(CMD, sizes_text, &sizes, &nsizes))) return free(ranks), st;
  for (int k = 0; k < nsizes; k++)
    if (sizes[k] % 4 || sizes[k] > (size_t)INT32_MAX) {
      fprintf(stderr,
              WHO ": --bytes: %zu B is not a whole number of int32 elements below 2 GiB; "
                  "accepted: multiples of 4 B (the reductions sum int32)\n",
              sizes[k]);
      free(ranks), free(sizes);
      return 2;
    }
  struct sim s = {0};
  if (sim_setup(&s)) {
    fprintf(stderr, WHO ": %s\n", s.why);
    sim_cleanup(&s);
    free(ranks), free(sizes);
    return 3;
  }
  st = run_all(&s, profile, ranks, nranks, sizes, nsizes, want);
  sim_cleanup(&s);
  free(ranks), free(sizes);
  return st;
}
