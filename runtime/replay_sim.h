/*
 * replay_sim.h -- the replay's working state, private to the two files
 * that share it: replay_prep.c checks and indexes the logs into it, and
 * replay.c runs the simulation on it. (replay_report.c reads only the
 * finished struct tutti_replay of replay.h.)
 */
#ifndef TUTTI_REPLAY_SIM_H
#define TUTTI_REPLAY_SIM_H

#include "internal.h" /* first: it sets _GNU_SOURCE */

#include "replay.h"

#define NONE UINT32_MAX

/* A queue entry (replay_queue.h): t is a time in units (>= 0, so
 * unsigned order is numeric order); k is the tie key: bit 63 the class
 * (0 RANK, 1 PORT), bits 62..32 the rank (RANK) or the sending rank
 * (PORT), bits 31..0 the message id (PORT; ids follow each sender's send
 * order). For RANK the low bits carry the rank's next event -- not part of
 * the order, since a rank is queued at most once -- so the next entry can
 * be prefetched. */
struct hent {
  uint64_t t, k;
};

#define HK_PORT (UINT64_C(1) << 63)

/* The key of a PORT activity on message id from src. */
static inline uint64_t hkey_port(int src, uint32_t id) {
  return HK_PORT | (uint64_t)(uint32_t)src << 32 | id;
}

struct heap { /* a binary heap */
  struct hent *a;
  size_t n, cap;
};

#define QDIGIT 4                                    /* bits a digit (replay_queue.h) */
#define QWAYS (1u << QDIGIT)                        /* values a digit */
#define QBUCKETS (1 + (128 / QDIGIT) * (QWAYS - 1)) /* 1 + 32 digits x 15 values */
#define QWORDS ((QBUCKETS + 63) / 64)               /* of the nonempty bitmap */
#define QCHUNK 127                                  /* entries a chunk: 2 KiB with its header */

struct qchunk {
  struct qchunk *next;
  uint32_t n; /* entries appended */
  struct hent e[QCHUNK];
};

struct qbucket {
  struct qchunk *head, *tail; /* NULL: empty */
  uint32_t first;             /* head->e[first] is its next entry */
  int sorted;                 /* appended in order: a run, taken as a FIFO */
  struct hent min;            /* its least entry */
};

/* The event queue (replay_queue.h): a radix heap of (t, k) over the
 * buckets b, and early for the entries below last. */
struct queue {
  struct hent last;          /* no entry of the buckets is below it */
  uint64_t nonempty[QWORDS]; /* bit i: b[i] holds entries */
  struct qbucket b[QBUCKETS];
  struct heap early;
  struct qchunk *spare; /* chunks free for any bucket */
  size_t n, peak;       /* entries, and the most at once */
  size_t bytes;         /* the chunks' memory */
};

/* sim.owner: per link, the one rank whose messages cross it, or these */
enum { OWNER_NONE = -1, OWNER_MANY = -2 };

struct rp_rank {
  tutti__tu_t clock, sp, rp; /* C, SP, RP */
  const uint64_t *op;        /* its ops */
  const struct tutti_ev *ev; /* its log (COMPUTE and REDUCE amounts) */
  uint32_t pos, n;           /* next event, number of events */
  uint32_t wait_msg;         /* blocked in a WAIT on this message, or NONE */
  uint32_t wait_recv;        /* ... for its receive (1) or its send (0) */
  uint32_t sp_pending;       /* its messages whose start is queued or waits
                                for the receiver (rendezvous) */
  int spans;                 /* spans completed */
};

/* One of the model's costs in units, with the last size it was asked for
 * and its value: most runs send many messages of one size. */
struct rp_cost {
  tutti__tu_cost_t c;
  uint64_t m;    /* the last size */
  tutti__tu_t v; /* c(m) */
};

static inline struct rp_cost rp_cost_init(const tutti_cost_t *c) {
  struct rp_cost k = {.c = tutti__tu_cost_init(c), .m = 0};
  k.v = tutti__tu_cost(&k.c, 0);
  return k;
}

static inline tutti__tu_t rp_cost(struct rp_cost *k, uint64_t bytes) {
  if (bytes != k->m) {
    k->m = bytes;
    k->v = tutti__tu_cost(&k->c, (double)bytes);
  }
  return k->v;
}

/* The bytes a message's costs are taken at: its payload and the model's
 * header (runtime/MODEL.md "Cost functions"), saturating. */
#define RP_WIRE(s, bytes) ((bytes) > UINT64_MAX - (s)->hdr ? UINT64_MAX : (bytes) + (s)->hdr)

/* A call's times in units (rule 7), converted to tutti_call_time_t at
 * the end. */
struct rp_call {
  tutti__tu_t entry_min, entry_max, finish_max;
};

struct sim {
  struct tutti_replay *rp;
  const tutti_model_t *m;
  /* the model in units (runtime/MODEL.md "Time base"), converted once */
  struct rp_cost send_cpu, send_port, latency, recv_port, recv_cpu;
  double gamma;           /* units per byte */
  struct rp_call *calls;  /* rp->ncalls */
  tutti__tu_t *last_call; /* per rank: the end of its last span */
  struct tutti_replay_msg *msgs;
  struct rp_rank *ranks;
  struct queue q;
  const tutti_topo_t *topo; /* NULL: no topology */
  tutti_linkset_t *links;   /* with a topology: every link's state */
  int32_t *owner;           /* per link: the one rank whose messages cross
                               it, or OWNER_NONE, OWNER_MANY */
  tutti__tu_t L0;           /* L(0): start to the head entering the path */
  uint64_t hdr;             /* the model's header: costs at bytes + hdr */
  int handshake;            /* rendezvous = handshake (rule 3) */
  tutti__tu_t ctl;          /* no topology: L(header), a control message */
  struct fair *fair;        /* sharing = fair: the flow engine (replay_fair.c);
                               NULL: fifo */
  int record;               /* TUTTI__REPLAY_HOPS: append to hops */
  int in_port;              /* handling a PORT activity (not a rank's run) */
  struct tutti_replay_hop *hops;
  size_t nhops, hopcap;
  uint64_t *recvd;   /* replay_prep.c: a bit a message, set once received
                        (in the block of ranks) */
  double helper_cpu; /* CPU seconds of the threads that helped the caller's */
  int err;
  char *errbuf;
  size_t errlen;
};

/* Record the first error: its code (returned) and its one-line message. */
int tutti__replay_fail(struct sim *s, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define fail(...) tutti__replay_fail(__VA_ARGS__)

/* Append one passage of message id over link to s->hops (s->record):
 * its head arrived at `arrive`, the link carried it over h. 0 or
 * TUTTI_ENOMEM. */
int tutti__replay_record_hop(struct sim *s, uint32_t id, int link, tutti__tu_t arrive,
                             const tutti__tu_hop_t *h);

/* replay_prep.c: check the model, the topology and the logs, and build
 * what the simulation reads: s->rp (its logs, ops, messages -- unknown
 * times but for size, destination and flags --, calls, and with a
 * topology its linkset), s->ranks, s->calls, the model in units, s->topo
 * and s->owner. Returns 0, or the error with
 * its message in s; whatever it allocated is then the caller's to free. */
int tutti__replay_prepare(struct sim *s, const tutti_model_t *m, int nranks,
                          const struct tutti_evlog *const logs[], unsigned flags);

#endif
