/*
 * test_e2e_budget.c -- what a run holds, and what a rank leaves behind:
 * the memory budget (tutti_config_t.max_memory, runtime/budget.h) stops a
 * run that would grow past it with TUTTI_EMEMORY naming what grew, with an
 * explicit budget and with the automatic one under an RLIMIT_AS (ulimit
 * -v) that would otherwise make malloc fail; a rank that returns with
 * requests pending fails the run with TUTTI_EPENDING naming the rank and
 * the request, in every run, and no pending request touches its memory
 * again; a rank thread that overflows its stack ends with TUTTI_ESTACK
 * naming it, as a fiber does, and worlds run fine after it. Each in both
 * modes, threads and fibers.
 * TUTTI_TSAN_TEST
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "tutti/tutti.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#endif

static tutti_world_t *world(int n, int ranks_as, uint64_t max_memory) {
  tutti_config_t c = tutti_config_default(n);
  c.ranks_as = ranks_as;
  c.max_memory = max_memory;
  tutti_world_t *w = NULL;
  int rc = tutti_world_create(&w, &c);
  cr_assert(eq(int, rc, 0), "create %d ranks: %s", n, tutti_strerror(rc));
  return w;
}

static bool has(const char *s, const char *part) {
  return strstr(s, part) != NULL;
}

/* ------------------------------------------------------------ the budget */

#define FLOOD_BYTES 1024 /* eager (none model: below 64 KiB), too big for a fastbox */

/* Rank 1 posts its receives and lets rank 0 go; rank 0 then sends eager
 * messages that rank 1 never takes (it waits for tag 7), each a buffer of
 * rank 0's held in flight, until `*arg` messages or the budget's refusal.
 * Only rank 0 allocates once the flood starts, so what grows is always its
 * messages in flight. */
static int flood(tutti_rank_t *r, void *arg) {
  long n = *(const long *)arg;
  static char buf[FLOOD_BYTES];
  if (tutti_rank(r) == 1) {
    tutti_request_t q;
    int rc = tutti_irecv(r, buf, 1, TUTTI_BYTE, 0, 7, &q);
    if (!rc) rc = tutti_send(r, NULL, 0, TUTTI_BYTE, 0, 1);
    if (!rc) rc = tutti_wait(r, &q, NULL);
    return rc;
  }
  int rc = tutti_recv(r, NULL, 0, TUTTI_BYTE, 1, 1, NULL);
  for (long i = 0; !rc && i < n; i++) rc = tutti_send(r, buf, FLOOD_BYTES, TUTTI_BYTE, 1, 3);
  if (!rc) rc = tutti_send(r, buf, 1, TUTTI_BYTE, 1, 7);
  return rc;
}

static void messages_in_flight(int ranks_as) {
  long n = 100000; /* 100 MiB of messages against a budget of 4 MiB */
  tutti_world_t *w = world(2, ranks_as, (uint64_t)4 << 20);
  for (int rep = 0; rep < 3; rep++) { /* the same error every run */
    int rc = tutti_world_run(w, flood, &n);
    const char *e = tutti_world_error(w);
    cr_assert(eq(int, rc, TUTTI_EMEMORY), "%d: %s", rc, e);
    cr_assert(has(e, "rank 0: memory budget of 4.0 MiB (max_memory) spent: messages in flight "
                     "would take"),
              "%s", e);
    cr_assert(has(e, "max_memory"), "%s", e);
    cr_assert(has(e, "rank stacks"), "%s", e);
  }
  /* the budget covers what a run holds, not what runs held: a flood that
   * fits runs to the end in the same world */
  long fits = 64;
  cr_assert(eq(int, tutti_world_run(w, flood, &fits), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

Test(budget, messages_in_flight_are_named_threads, .timeout = 60) {
  messages_in_flight(TUTTI_RANKS_AS_THREADS);
}

Test(budget, messages_in_flight_are_named_fibers, .timeout = 60) {
  messages_in_flight(TUTTI_RANKS_AS_FIBERS);
}

/* Event logs are charged as they grow: a modeled run whose logs alone
 * would pass the budget stops naming them, before its replay. */
static int many_computes(tutti_rank_t *r, void *arg) {
  int rc = 0;
  for (long i = 0; !rc && i < (1L << 20); i++) rc = tutti_compute(r, 1e-9);
  return rc;
}

Test(budget, event_logs_are_named, .timeout = 60) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_postal(&m, 2), 0));
  tutti_config_t c = tutti_config_default(2);
  c.model = &m;
  c.max_memory = (uint64_t)8 << 20; /* 2^21 events are 48 MiB */
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  int rc = tutti_world_run(w, many_computes, NULL);
  cr_assert(eq(int, rc, TUTTI_EMEMORY), "%d: %s", rc, tutti_world_error(w));
  cr_assert(has(tutti_world_error(w), "event logs would take"), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* A budget the stacks alone pass fails the run before any rank starts. */
Test(budget, stacks_past_the_budget_fail_before_the_run, .timeout = 60) {
  tutti_world_t *w = world(64, TUTTI_RANKS_AS_THREADS, 64 << 10);
  long n = 0;
  int rc = tutti_world_run(w, flood, &n);
  cr_assert(eq(int, rc, TUTTI_EMEMORY), "%d: %s", rc, tutti_world_error(w));
  cr_assert(has(tutti_world_error(w), "rank stacks would take"), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* A fiber's stack is charged at the pages a collective touches, not its
 * reservation: 4096 fibers of 32 KiB stacks (128 MiB reserved, which
 * the budget would refuse) run a barrier in 64 MiB, a thread's stacks
 * are charged whole and 4096 threads are refused; the text names them. */
static int barrier(tutti_rank_t *r, void *arg) {
  (void)arg;
  return tutti_barrier(r, NULL);
}

Test(budget, fiber_stacks_are_charged_as_touched, .timeout = 120) {
  tutti_config_t c = tutti_config_default(4096);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  c.stack_size = (size_t)32 << 10;
  c.max_memory = (uint64_t)64 << 20;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, barrier, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, barrier, NULL), TUTTI_EMEMORY));
  cr_assert(has(tutti_world_error(w), "rank stacks would take"), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* A fiber's stack is charged when its worker first hands it out. On one
 * worker, 16384 fibers run a binomial broadcast depth first on at most
 * P/16 stacks (test_e2e_fibers: eager sends): the run fits a budget of the
 * ranks' state and P/16 stacks, where charging each rank's 8 KiB
 * (128 MiB) would not. 4096 fibers run
 * breadth first (fiber.c) start all at once, and the first rank whose
 * stack passes the same kind of budget is named. */
static int bcast_one(tutti_rank_t *r, void *arg) {
  int v = tutti_rank(r) ? 0 : 42;
  int rc = tutti_bcast(r, &v, 1, TUTTI_INT32, 0, NULL);
  return rc ? rc : v == 42 ? 0 : TUTTI_EINVAL;
}

static uint64_t state_and(int P, int stacks) {
  uint64_t state = (uint64_t)P * (sizeof(struct tutti_rank) + sizeof(void *));
  uint64_t worker = ((uint64_t)1 << 20) + ((uint64_t)64 << 10);
  return state + worker + (uint64_t)stacks * TUTTI__FIBER_STACK_TOUCH;
}

Test(budget, fiber_stacks_are_charged_as_handed_out, .timeout = 120) {
  tutti_config_t c = tutti_config_default(16384);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  c.workers = 1;
  c.max_memory = state_and(16384, 1024) + ((uint64_t)4 << 20); /* 4 MiB: channels, requests */
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, bcast_one, NULL), 0), "%s", tutti_world_error(w));
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  cr_assert(le(u64, st.stacks, 1024));
  tutti_world_destroy(w);

  c = tutti_config_default(4096);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  c.workers = 1;
  c.max_memory = state_and(4096, 200);
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, barrier, NULL), TUTTI_EMEMORY), "%s", tutti_world_error(w));
  const char *e = tutti_world_error(w);
  cr_assert(eq(int, strncmp(e, "rank ", 5), 0), "names the rank: %s", e);
  cr_assert(has(e, "rank stacks would take 8.0 KiB more"), "%s", e);
  tutti_world_destroy(w);
}

/* In a child whose address space RLIMIT_AS (ulimit -v) holds to 1 GiB more
 * than it has: the automatic budget is half of that and names it, and a
 * run that would hold 4 GiB stops at it with TUTTI_EMEMORY -- as it does
 * with an explicit budget of a quarter of the limit -- instead of malloc
 * failing or the process dying. Exit status: 0, or the line that failed. */
static int under_rlimit(int ranks_as) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (!f || fscanf(f, "%llu", &pages) != 1) return 10;
  fclose(f);
  uint64_t room = (uint64_t)1 << 30, vm = pages * (uint64_t)sysconf(_SC_PAGESIZE);
  struct rlimit rl = {.rlim_cur = vm + room, .rlim_max = vm + room};
  if (setrlimit(RLIMIT_AS, &rl)) return 11;
  long n = 4L << 20; /* 4 GiB of 1 KiB messages */
  uint64_t budgets[2] = {0, room / 4};
  for (int b = 0; b < 2; b++) {
    tutti_config_t c = tutti_config_default(2);
    c.ranks_as = ranks_as;
    c.max_memory = budgets[b];
    tutti_world_t *w = NULL;
    if (tutti_world_create(&w, &c)) return 12;
    if (!budgets[b] && (w->mem.limit > room / 2 || !has(w->mem.source, "RLIMIT_AS"))) return 13;
    int rc = tutti_world_run(w, flood, &n);
    if (rc != TUTTI_EMEMORY) {
      fprintf(stderr, "budget %d: %d: %s\n", b, rc, tutti_world_error(w));
      return 14;
    }
    if (!has(tutti_world_error(w), "messages in flight would take")) return 15;
    if (!budgets[b] && !has(tutti_world_error(w), "RLIMIT_AS")) return 16;
    tutti_world_destroy(w);
  }
  return 0;
}

static void rlimit_case(int ranks_as) {
#ifdef SANITIZED
  /* the sanitizers' shadow memory is most of the address space */
  cr_skip("RLIMIT_AS cannot be set under a sanitizer's shadow mappings");
#endif
  fflush(NULL);
  pid_t pid = fork();
  cr_assert(pid >= 0, "fork failed");
  if (pid == 0) _exit(under_rlimit(ranks_as));
  int st = 0;
  cr_assert(eq(int, waitpid(pid, &st, 0), pid));
  bool exited = WIFEXITED(st);
  int sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0, code = exited ? WEXITSTATUS(st) : -1;
  cr_assert(exited, "the child died of signal %d", sig);
  cr_assert(eq(int, code, 0), "the child's check %d failed", code);
}

Test(budget, stops_before_an_rlimit_as_threads, .timeout = 120) {
  rlimit_case(TUTTI_RANKS_AS_THREADS);
}

Test(budget, stops_before_an_rlimit_as_fibers, .timeout = 120) {
  rlimit_case(TUTTI_RANKS_AS_FIBERS);
}

/* ------------------------------------------------------ pending requests */

#define RDV_BYTES (128 << 10) /* rendezvous (none model: 64 KiB and up) */

/* Rank 0 returns with a request pending on a buffer its program could
 * free once it has returned (the test frees nothing, so that only the
 * runtime's accesses are in question): an isend (rendezvous: its receiver
 * would copy from the buffer) or an irecv (a message that came later would
 * be written into it). Whether the message came before the return or
 * after, the run fails the same way. */
static char sendbuf[RDV_BYTES], recvbuf[RDV_BYTES];

static int leave_isend(tutti_rank_t *r, void *arg) {
  static char in[RDV_BYTES];
  if (tutti_rank(r) == 1) return tutti_recv(r, in, RDV_BYTES, TUTTI_BYTE, 0, 5, NULL);
  tutti_request_t q;
  return tutti_isend(r, sendbuf, RDV_BYTES, TUTTI_BYTE, 1, 5, &q);
}

static int leave_irecv(tutti_rank_t *r, void *arg) {
  long bytes = *(const long *)arg;
  static char out[RDV_BYTES];
  if (tutti_rank(r) == 1) {
    memset(out, 0x55, sizeof out);
    return tutti_send(r, out, bytes, TUTTI_BYTE, 0, 5);
  }
  tutti_request_t q;
  return tutti_irecv(r, recvbuf, bytes, TUTTI_BYTE, 1, 5, &q);
}

static void pending(int ranks_as) {
  tutti_world_t *w = world(2, ranks_as, 0);
  for (int rep = 0; rep < 20; rep++) { /* whatever arrived first: the same error */
    int rc = tutti_world_run(w, leave_isend, NULL);
    const char *e = tutti_world_error(w);
    cr_assert(eq(int, rc, TUTTI_EPENDING), "run %d: %d: %s", rep, rc, e);
    cr_assert(eq(str, (char *)e,
                 "rank 0 returned with 1 request pending (isend to rank 1, tag 5); wait for each "
                 "(tutti_wait, tutti_waitall, tutti_test) before returning"));
    long sizes[2] = {8, RDV_BYTES};
    for (int s = 0; s < 2; s++) {
      rc = tutti_world_run(w, leave_irecv, &sizes[s]);
      e = tutti_world_error(w);
      cr_assert(eq(int, rc, TUTTI_EPENDING), "run %d: %d: %s", rep, rc, e);
      cr_assert(has(e, "rank 0 returned with 1 request pending (irecv from rank 1, tag 5)"), "%s",
                e);
    }
  }
  tutti_world_destroy(w);
}

Test(pending, a_rank_returning_with_requests_fails_threads, .timeout = 120) {
  pending(TUTTI_RANKS_AS_THREADS);
}

Test(pending, a_rank_returning_with_requests_fails_fibers, .timeout = 120) {
  pending(TUTTI_RANKS_AS_FIBERS);
}

/* --------------------------------------------------------- stack overflow */

static long deep(int n) {
  volatile char pad[512];
  pad[0] = (char)n;
  pad[511] = (char)(n >> 8);
  return n == 0 ? pad[0] : deep(n - 1) + pad[511] + pad[0];
}

/* A user op that recurses far past any stack. */
static void recursing_op(const void *in, void *inout, size_t count, tutti_datatype_t type,
                         void *ctx) {
  volatile long sink = deep(1 << 20); /* 512 MiB of frames */
  (void)sink, (void)in, (void)inout, (void)count, (void)type, (void)ctx;
}

static int recurse_at_2(tutti_rank_t *r, void *arg) {
  tutti_op_t op = (tutti_op_t)arg;
  int a = 1, b = 2;
  if (tutti_rank(r) == 2) {
    int rc = tutti_reduce_local_r(r, &a, &b, 1, TUTTI_INT32, op);
    if (rc) return rc;
  }
  return tutti_barrier(r, NULL);
}

static int just_barrier(tutti_rank_t *r, void *arg) {
  return tutti_barrier(r, NULL);
}

static void overflow(int ranks_as) {
#ifdef __SANITIZE_THREAD__
  /* ThreadSanitizer cannot follow the way out of the SIGSEGV handler (a
   * siglongjmp), and rank threads then have glibc's stacks. */
  cr_skip("the guard page's handler is not followed by ThreadSanitizer");
#endif
  tutti_op_t op;
  cr_assert(eq(int, tutti_op_create(recursing_op, 1, NULL, &op), 0));
  tutti_world_t *w = world(4, ranks_as, 0);
  for (int rep = 0; rep < 2; rep++) { /* the same stack, again */
    int rc = tutti_world_run(w, recurse_at_2, (void *)op);
    const char *e = tutti_world_error(w);
    cr_assert(eq(int, rc, TUTTI_ESTACK), "%d: %s", rc, e);
    cr_assert(has(e, "rank 2 overflowed its stack of"), "%s", e);
    cr_assert(has(e, "guard page"), "%s", e);
    cr_assert(has(e, "--stack"), "%s", e);
    cr_assert(eq(int, tutti_world_run(w, just_barrier, NULL), 0), "%s", tutti_world_error(w));
  }
  tutti_world_destroy(w);
  /* a second world in the same process */
  w = world(4, ranks_as, 0);
  cr_assert(eq(int, tutti_world_run(w, just_barrier, NULL), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, tutti_world_run(w, recurse_at_2, (void *)op), TUTTI_ESTACK), "%s",
            tutti_world_error(w));
  tutti_world_destroy(w);
  tutti_op_free(&op);
}

Test(stack, a_recursing_user_op_names_the_rank_threads, .timeout = 60) {
  overflow(TUTTI_RANKS_AS_THREADS);
}

Test(stack, a_recursing_user_op_names_the_rank_fibers, .timeout = 60) {
  overflow(TUTTI_RANKS_AS_FIBERS);
}
