/*
 * chan.c -- a rank's table of channels (chan.h): an open-addressed hash
 * table keyed by peer, grown by doubling at half load. Creating a channel
 * happens once per peer a rank talks to, so it stays out of the inline
 * lookup on the message path. Owner only.
 */
#include "chan.h"

struct chan *tutti__chan_add(struct tutti_rank *r, int peer) {
  if ((r->nchans + 1) * 2 > r->chancap) {
    uint32_t cap = r->chancap ? r->chancap * 2 : CHAN_FIRST;
    struct chan *t = r->chan0; /* the first table is the rank's own, not charged */
    if (r->chancap) {
      /* the budget counts what the table grows by (the old one is freed) */
      uint32_t held = r->chans == r->chan0 ? 0 : r->chancap;
      if (!tutti__rank_charge(r, TUTTI__MEM_CHANNELS, (uint64_t)(cap - held) * sizeof *t))
        return NULL;
      if (!(t = line_alloc(cap * sizeof *t))) return NULL;
    }
    for (uint32_t i = 0; i < cap; i++) t[i] = (struct chan){.peer = -1};
    for (uint32_t j = 0; j < r->chancap; j++) {
      if (r->chans[j].peer < 0) continue;
      uint32_t i = hash_peer(r->chans[j].peer) & (cap - 1);
      while (t[i].peer >= 0) i = (i + 1) & (cap - 1);
      t[i] = r->chans[j];
    }
    if (r->chans != r->chan0) free(r->chans);
    r->chans = t;
    r->lastchan = NULL; /* pointed into the old table */
    r->chancap = cap;
  }
  uint32_t mask = r->chancap - 1, i = hash_peer(peer) & mask;
  while (r->chans[i].peer >= 0) i = (i + 1) & mask;
  r->chans[i] = (struct chan){.peer = peer};
  r->nchans++;
  return r->lastchan = &r->chans[i];
}
