/*
 * rank.c -- a rank's life outside its thread: creation, the reset before
 * each run, teardown. Called by the world's owner thread (world.c) only
 * while no rank thread runs.
 */
#include "pool.h"

void tutti__rank_init(struct tutti_rank *r, struct tutti_world *w, int rank) {
  cds_wfcq_init(&r->inbox_head, &r->inbox_tail);
  __cds_lfs_init(&r->retbufs);
  r->world = w;
  r->rank = rank;
  r->size = w->nranks;
  r->log.lent = r->ev0;
}

static void free_msg_list(struct msg *m) {
  while (m) {
    struct msg *next = m->next;
    if (m->kind == MSG_EAGER) free(m);
    m = next;
  }
}

/* Teardown has two phases over all ranks, because a rendezvous envelope in
 * one rank's lists lives in another rank's request storage: first every
 * rank drops the messages it holds, then every rank frees its storage. */
void tutti__rank_drop_messages(struct tutti_rank *r) {
  struct cds_wfcq_node *node;
  while ((node = __cds_wfcq_dequeue_blocking(&r->inbox_head, &r->inbox_tail))) {
    struct msg *m = caa_container_of(node, struct msg, qnode);
    if (node != r->seen && m->kind != MSG_RTS) free(m); /* seen: held or in a channel */
  }
  r->seen = NULL;
  free(r->held);
  r->held = NULL;
  for (uint32_t i = 0; i < r->chancap; i++)
    if (r->chans[i].peer >= 0) {
      free_msg_list(r->chans[i].uq_head);
      free(r->chans[i].box); /* no rank runs: its receiver holds it no more */
    }
  for (uint32_t i = 0; i < r->nret; i++) free(r->ret[i]);
  r->nret = 0;
  r->nboxes = 0; /* the boxes are their senders' */
  if (r->chans != r->chan0) free(r->chans);
  r->chans = r->lastchan = NULL;
  r->chancap = r->nchans = 0;
  r->wq_head = r->wq_tail = NULL;
}

static void rank_free_storage(struct tutti_rank *r) {
  reclaim(r);
  for (int c = 0; c < POOL_CLASSES; c++) {
    struct pool_stack *ps = &r->pool[c];
    for (uint32_t i = 0; i < ps->n; i++) free(ps->slot[i]);
    free(ps->slot);
    *ps = (struct pool_stack){0};
  }
  while (r->reqchunks) {
    struct req_chunk *c = r->reqchunks;
    r->reqchunks = c->next;
    if (c != &r->req0) free(c);
  }
  r->freereqs = NULL;
  /* What the collectives derived in the last run (the algorithm a call
   * with algo NULL takes from the environment) is derived anew. */
  if (r->coll_cache != (void *)r->coll0) free(r->coll_cache);
  r->coll_cache = NULL;
}

void tutti__rank_reset(struct tutti_rank *r) {
  rank_free_storage(r); /* after tutti__rank_drop_messages on every rank */
  tutti__evlog_clear(&r->log);
  r->post_seq = r->arrival_seq = r->n_unexpected = 0;
  r->coll_seq = 0;
  r->coll_tags_all = false;
  r->grp = NULL; /* a view its last run left entered (the rank failed in it) */
  r->doing = NULL;
  r->vclock = r->vsport = 0;
  double zero = 0;
  __atomic_store(&r->vreached, &zero, __ATOMIC_RELAXED);
  r->n_msgs = r->n_bytes = r->n_eager = r->n_rdv = r->n_sleeps = r->n_wakeups = 0;
  r->n_posts = 0;
  r->in_span = false;
  r->waiting = (tutti_waitinfo_t){0};
  r->err = 0;
  r->mem_refused = false;
  r->doorbell = 0;
  r->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)r->world->seed << 32) ^ (uint64_t)(r->rank + 1);
}

void tutti__rank_fini(struct tutti_rank *r) {
  rank_free_storage(r); /* after tutti__rank_drop_messages on every rank */
  tutti__evlog_free(&r->log);
  cds_wfcq_destroy(&r->inbox_head, &r->inbox_tail);
}
