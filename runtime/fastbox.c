/*
 * fastbox.c -- offering and accepting a fastbox (fastbox.h), once per pair
 * that keeps talking: off the inline message path.
 */
#include "fastbox.h"

void tutti__box_accept(struct tutti_rank *r, struct msg *offer) {
  struct msg *box;
  memcpy(&box, msg_data(offer), sizeof box);
  struct chan *c = chan_get(r, offer->src, true);
  uint32_t verdict = BOX_REFUSED;
  if (c && r->nboxes < BOX_MAX) {
    r->boxes[r->nboxes] = (struct boxref){box, offer->src, offer->seq};
    c->boxi1 = ++r->nboxes;
    verdict = BOX_OPEN;
  }
  __atomic_store_n(&box->arrival, verdict, __ATOMIC_RELEASE);
}

void tutti__box_offer(struct tutti_rank *r, struct tutti_rank *d, struct chan *o, uint32_t seq) {
  /* A box is optional: one the budget refuses is not offered, and the
   * pair goes on through the inbox. */
  if (!tutti__mem_charge(&r->world->mem, TUTTI__MEM_MESSAGES, BOX_BYTES)) return;
  struct msg *b = line_alloc(BOX_BYTES), *m = pool_get(r, sizeof b);
  if (!b || !m) {
    free(b);
    if (m) pool_put(r, m);
    tutti__mem_uncharge(&r->world->mem, TUTTI__MEM_MESSAGES, BOX_BYTES);
    return;
  }
  b->seq = 0;
  b->arrival = BOX_OFFERED;
  o->box = b;
  m->kind = MSG_BOXOFFER;
  m->local = 0;
  m->src = r->rank, m->tag = 0, m->bytes = sizeof b, m->seq = seq, m->send_ev = UINT32_MAX;
  memcpy(msg_data(m), &b, sizeof b);
  tsan_release(b);
  tsan_release(m);
  inbox_push(r->world, d, &m->qnode);
}
