/*
 * topo.h -- the network model of runtime/MODEL.md "Topology (links and contention)":
 * trees of switches with directed, full-duplex links, routing between
 * leaves, rank -> leaf mappings, the contention-free chain order of
 * Patarasuk, Faraj & Yuan, the per-link cut-through step the replay
 * applies once per hop, and per-link statistics.
 *
 * A topology is a rooted tree. Inner nodes are switches (a multicore host
 * is one more switch level: its cores are leaves, its links are faster);
 * leaves are numbered 0..nleaves-1 and hold at most one rank each. Every
 * edge is two directed links with their own latency and per-byte cost:
 * the up link (child -> parent) and the down link (parent -> child).
 *
 * Ids. Switches are numbered 0..nswitches-1 breadth first from the root
 * (0), children in their listed order. Links are numbered 0..nlinks-1:
 * an edge whose lower end is node v has up link 2(v-1) and down link
 * 2(v-1)+1, where nodes are the switches followed by the leaves
 * (leaf l is node nswitches + l). So tutti_topo_link_up(t, leaf) names a
 * leaf's own link toward its switch, and every link id is < 2 * (nswitches
 * + nleaves - 1).
 *
 * Building. tutti_topo_from_spec reads the compact form "tree:4x8";
 * tutti_topo_parse_ini / tutti_topo_load an explicit INI description
 * (topo/README.md has both formats); tutti_topo_open picks by the text.
 * Each takes an optional per-level link list, "1us/10Gbps, 2us/40Gbps",
 * leaf links first. A topology is then bound to a world of N ranks with a
 * mapping (tutti_topo_bind); after that it is read-only.
 *
 * Errors are p2p.h's negative codes: TUTTI_EINVAL (NULL or out-of-range
 * argument), TUTTI_EPARSE (bad text; the message names FILE:LINE for a
 * file, and what is accepted), TUTTI_ENOTFOUND, TUTTI_EIO, TUTTI_ENOMEM.
 * Functions with (err, errlen) write a one-line message there on failure
 * (err may be NULL). On failure outputs are left unchanged.
 *
 * Threads: a topology has no hidden state. Building, binding, setting
 * default links and freeing need exclusive access; every const function
 * may run concurrently with every other const function. A linkset belongs
 * to one thread (the replay's).
 *
 * Memory: O(nswitches + nleaves) for the tree (about 24 bytes a leaf) and
 * 8 bytes a rank for a binding. Routing is O(depth) and allocates nothing.
 *
 * This header is self-contained: tutti.h includes it.
 */
#ifndef TUTTI_TOPO_H
#define TUTTI_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tutti/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tutti_topo tutti_topo_t;

/* Limits, checked when a topology is read (spec or file), before the tree
 * is built, with a TUTTI_EPARSE message naming the limit:
 *   TUTTI_TOPO_MAX_LEAVES  leaves of one topology: the most ranks a world
 *                          can have (2^20), so a small text cannot ask for
 *                          gigabytes of leaves no run can use
 *   TUTTI_TOPO_MAX_DEPTH   edges from the root to the deepest leaf: what
 *                          the replay supports (its per-message hop counter
 *                          is 16 bits, paths are at most 2 * depth links);
 *                          a spec has at most TUTTI_TOPO_SPEC_MAX_LEVELS
 *                          numbers, so only files come near it
 *   TUTTI_TOPO_NAME_MAX    bytes of a switch name, NUL included
 * The ASCII drawing (tutti_topo_print) stops at TUTTI_TOPO_PRINT_DEPTH
 * levels and says how much it left out. */
#define TUTTI_TOPO_MAX_LEAVES (1 << 20)
#define TUTTI_TOPO_MAX_DEPTH 32767
#define TUTTI_TOPO_SPEC_MAX_LEVELS 64
#define TUTTI_TOPO_NAME_MAX 64
#define TUTTI_TOPO_PRINT_DEPTH 64

/* One directed link: latency in seconds and per-byte cost in seconds per
 * byte (1 / bandwidth; 0 is an infinitely fast link). */
typedef struct tutti_topo_link {
  double lat;
  double beta;
} tutti_topo_link_t;

/* ---------------------------------------------------------------- build */

/* A tree from the compact spec "tree:A[xB[xC...]]": a root switch over A
 * switches of B switches ... of the last number's leaves; "tree:8" is one
 * switch of 8 leaves, "tree:4x8" a root over 4 switches of 8 leaves (32
 * leaves), "tree:2x4x8" three levels. Leaves are numbered left to right.
 * links (NULL or "": not set) is "LAT/BW, LAT/BW, ..." per level, leaf
 * links first; a shorter list repeats its last entry upward, a longer one
 * than the tree's levels is an error. Switches are named s0, s1, ... at
 * the level above the leaves, sw<depth>.<i> above that, and "root" (a
 * single switch is "s0"). */
TUTTI_API int tutti_topo_from_spec(const char *spec, const char *links, tutti_topo_t **out,
                                   char *err, size_t errlen);

/* A tree from an explicit INI description (topo/README.md): [switch NAME]
 * and [host NAME] sections with children, leaves, uplink, leaf_links and
 * leaf_link.N keys, and an optional [topology] with per-level links.
 * filename is used in messages (NULL: "<string>"). links, if not NULL or
 * "", replaces the file's [topology] links; explicit per-switch links win
 * over either. Every error is "FILE:LINE: ...; accepted: ...": syntax,
 * unknown section or key, a section or key given twice, a bad
 * latency/bandwidth, an unknown switch name, a switch listed as a child
 * twice, a cycle, more than one root, a switch with neither children nor
 * leaves, a leaf listed twice, leaves not numbered 0..N-1, a leaf number
 * of TUTTI_TOPO_MAX_LEAVES or more, a tree deeper than
 * TUTTI_TOPO_MAX_DEPTH (at the 'children' line that goes too deep). */
TUTTI_API int tutti_topo_parse_ini(const char *text, const char *filename, const char *links,
                                   tutti_topo_t **out, char *err, size_t errlen);
/* tutti_topo_parse_ini on a file's contents. TUTTI_ENOTFOUND: no such
 * file; TUTTI_EIO: unreadable. */
TUTTI_API int tutti_topo_load(const char *path, const char *links, tutti_topo_t **out, char *err,
                              size_t errlen);
/* --topology's argument: a spec if it starts with "tree:", else a file. */
TUTTI_API int tutti_topo_open(const char *spec_or_path, const char *links, tutti_topo_t **out,
                              char *err, size_t errlen);

TUTTI_API void tutti_topo_free(tutti_topo_t *t);

/* Give every link that neither a level list nor the file set this latency
 * and per-byte cost (they start at 0, 0). The replay's natural default is
 * (0, the model's latency per-byte cost b): one message on an idle path
 * then costs exactly what it costs with no topology, and contention is
 * what the topology adds. Returns 0 or TUTTI_EINVAL (negative, NaN, or
 * above units.h's TUTTI_TIME_MAX / TUTTI_PER_BYTE_MAX). */
TUTTI_API int tutti_topo_default_links(tutti_topo_t *t, double lat, double beta);
/* Links that no list or file set (those tutti_topo_default_links sets). */
TUTTI_API int tutti_topo_unset_links(const tutti_topo_t *t);

/* -------------------------------------------------------------- queries */

TUTTI_API int tutti_topo_nleaves(const tutti_topo_t *t);
TUTTI_API int tutti_topo_nswitches(const tutti_topo_t *t);
TUTTI_API int tutti_topo_nlinks(const tutti_topo_t *t);
/* Edges from the root to the deepest leaf (tree:4x8: 2). */
TUTTI_API int tutti_topo_depth(const tutti_topo_t *t);
/* Link levels: the root's height (tree:4x8: 2). */
TUTTI_API int tutti_topo_levels(const tutti_topo_t *t);
/* The switch a leaf hangs from; TUTTI_EINVAL for a bad leaf. */
TUTTI_API int tutti_topo_leaf_switch(const tutti_topo_t *t, int leaf);
/* A switch's parent switch (-1 for the root), or TUTTI_EINVAL. */
TUTTI_API int tutti_topo_switch_parent(const tutti_topo_t *t, int sw);
/* A switch's name ("s0", or the INI section's); NULL for a bad id. */
TUTTI_API const char *tutti_topo_switch_name(const tutti_topo_t *t, int sw);
/* A switch id by name, or TUTTI_ENOTFOUND. */
TUTTI_API int tutti_topo_switch_find(const tutti_topo_t *t, const char *name);
/* The up link of a leaf toward its switch (its down link is this + 1). */
TUTTI_API int tutti_topo_leaf_link(const tutti_topo_t *t, int leaf);
/* The up link from switch sw to its parent (+1: down), or TUTTI_EINVAL
 * (also for the root, which has none). */
TUTTI_API int tutti_topo_switch_link(const tutti_topo_t *t, int sw);
/* A link's latency and per-byte cost. */
TUTTI_API int tutti_topo_link_get(const tutti_topo_t *t, int link, tutti_topo_link_t *out);
/* "s0 -> root", "root -> s1", "leaf 3 -> s0", "s0 -> leaf 3" (with a
 * binding: "leaf 3 (rank 6) -> s0"). Returns 0 or TUTTI_EINVAL. */
TUTTI_API int tutti_topo_link_name(const tutti_topo_t *t, int link, char *buf, size_t n);
/* One line: "tree:4x8: 5 switches, 32 leaves, depth 2; 32 ranks, mapping
 * roundrobin:2". Returns 0 or TUTTI_EINVAL. */
TUTTI_API int tutti_topo_describe(const tutti_topo_t *t, char *buf, size_t n);

/* -------------------------------------------------------------- routing */

/* The unique path from leaf a to leaf b: up links from a to the lowest
 * switch above both, then down links to b, written to links[0..k) (k <=
 * 2 * depth; k = 0 when a == b). Returns k, TUTTI_EINVAL for a bad leaf,
 * or TUTTI_ENOMEM if cap < k (nothing written). O(depth). */
TUTTI_API int tutti_topo_route(const tutti_topo_t *t, int a, int b, int *links, int cap);
/* The i-th link (from 0) of that path, or -1 past its end; TUTTI_EINVAL
 * for a bad leaf or i < 0. O(depth), no storage: the replay can keep a
 * hop counter per message instead of the path. */
TUTTI_API int tutti_topo_path_link(const tutti_topo_t *t, int a, int b, int i);
/* The number of links on the path from leaf a to leaf b. */
TUTTI_API int tutti_topo_path_len(const tutti_topo_t *t, int a, int b);

/* ------------------------------------------------------------- mappings */

/* Where rank r sits (leaf_of_rank[r]):
 *   identity      leaf r
 *   dfs           the r-th leaf in depth-first order of the tree (children
 *                 in their listed order; the same as identity for a spec)
 *   roundrobin:B  blocks of B consecutive ranks dealt in turn to the
 *                 switches that hold leaves, in depth-first (left to
 *                 right) order, each filling its leaves in order
 *                 ("roundrobin" is B = 1); a full switch is skipped and
 *                 the rest of its block goes on to the next
 *   random:SEED   a uniformly random placement, reproducible from SEED
 *                 (splitmix64 + Fisher-Yates, the same on every platform)
 *   list:a,b,...  rank 0 on leaf a, rank 1 on leaf b, ... (distinct); ranges
 *                 a-b as in order=list: (tutti_parse_rank_list): list:0-3,7-4 */
enum tutti_topo_mapping_kind {
  TUTTI_MAP_IDENTITY = 0,
  TUTTI_MAP_DFS,
  TUTTI_MAP_ROUNDROBIN,
  TUTTI_MAP_RANDOM,
  TUTTI_MAP_LIST,
};

typedef struct tutti_topo_mapping {
  int kind;      /* enum tutti_topo_mapping_kind */
  int block;     /* roundrobin: ranks per block, >= 1 */
  uint64_t seed; /* random */
  int n;         /* list: its length */
  int *list;     /* list: its leaves (owned; tutti_topo_mapping_clear frees) */
} tutti_topo_mapping_t;

#define TUTTI_TOPO_MAPPING_ACCEPTED                                                                \
  "identity, dfs, roundrobin, roundrobin:BLOCK, random:SEED or list:a,b,... (rank i on leaf a_i; " \
  "ranges a-b)"

/* Parse a mapping text (NULL or "": identity). Errors name the form and
 * list the accepted ones: TUTTI_EPARSE, TUTTI_ENOMEM. */
TUTTI_API int tutti_topo_mapping_parse(const char *text, tutti_topo_mapping_t *out, char *err,
                                       size_t errlen);
/* Free a parsed list and reset to identity. */
TUTTI_API void tutti_topo_mapping_clear(tutti_topo_mapping_t *m);
/* The text form: "roundrobin:2", "list:3,0,2,1" (cut to n). Returns buf. */
TUTTI_API char *tutti_topo_mapping_format(const tutti_topo_mapping_t *m, char *buf, size_t n);

/* tutti_topo_bind flags */
enum {
  /* Allow fewer ranks than leaves; the leaves no rank is mapped to stay
   * empty. Without it the counts must match. */
  TUTTI_TOPO_PARTIAL = 1u << 0,
};

/* Compute leaf_of_rank[0..nranks) for a mapping (m NULL: identity).
 * Errors: TUTTI_EINVAL with "the tree has L leaves but the world has N
 * ranks" (naming FILE:LINE of the root switch for an INI tree), a list
 * whose length is not nranks, or naming a leaf that does not exist. */
TUTTI_API int tutti_topo_mapping_apply(const tutti_topo_t *t, const tutti_topo_mapping_t *m,
                                       int nranks, unsigned flags, int *leaf_of_rank, char *err,
                                       size_t errlen);

/* Bind the topology to a world of nranks ranks: apply the mapping and keep
 * it (and its inverse) in t, replacing an earlier binding. The replay then
 * needs only the const topology (tutti_model_t.topo). */
TUTTI_API int tutti_topo_bind(tutti_topo_t *t, int nranks, const tutti_topo_mapping_t *m,
                              unsigned flags, char *err, size_t errlen);
/* Parse the mapping text and bind. */
TUTTI_API int tutti_topo_bind_text(tutti_topo_t *t, int nranks, const char *mapping, unsigned flags,
                                   char *err, size_t errlen);
/* Ranks of the binding; 0 before tutti_topo_bind. */
TUTTI_API int tutti_topo_nranks(const tutti_topo_t *t);
/* A bound rank's leaf, or TUTTI_EINVAL. */
TUTTI_API int tutti_topo_leaf_of_rank(const tutti_topo_t *t, int rank);
/* The rank on a leaf, -1 for an empty leaf, TUTTI_EINVAL for a bad leaf. */
TUTTI_API int tutti_topo_rank_of_leaf(const tutti_topo_t *t, int leaf);
/* The binding's leaf_of_rank array (nranks entries), NULL if unbound. */
TUTTI_API const int *tutti_topo_leaf_map(const tutti_topo_t *t);
/* tutti_topo_route / path_link / path_len between bound ranks. */
TUTTI_API int tutti_topo_route_ranks(const tutti_topo_t *t, int src, int dst, int *links, int cap);
TUTTI_API int tutti_topo_path_link_ranks(const tutti_topo_t *t, int src, int dst, int i);

/* ------------------------------------------------- contention-free chain */

/* The chain order of Patarasuk, Faraj & Yuan (JPDC 2008): a depth-first
 * search over the switches from the switch of the root's leaf (at each
 * switch: its child switches in order, then its parent), and the chain
 * visits the ranks on each switch's leaves as the search reaches it -- the
 * root first, then the others in leaf order. Chaining order[0] -> order[1]
 * -> ... puts at most one flow on every directed link. leaf_of_rank NULL:
 * the binding's. Writes order[0..nranks) (order[0] = root). Returns 0,
 * TUTTI_EINVAL (a leaf out of range or used twice, bad root), TUTTI_ENOMEM.
 * O(nswitches + nleaves) time and temporary memory. */
TUTTI_API int tutti_topo_chain_order(const tutti_topo_t *t, const int *leaf_of_rank, int nranks,
                                     int root, int *order);

/* ------------------------------------------------------------- printing */

/* The tree in ASCII: one line per switch with its uplink, and each
 * switch's leaves on one line with their ranks when bound, e.g.
 *   root
 *   |-- s0  link 2 us, 5 GB/s
 *   |   `-- leaves 0-3: ranks 0 2 4 6  links 1 us, 1.25 GB/s
 * Four or more empty leaves in a row read "(N empty)". Switches deeper
 * than TUTTI_TOPO_PRINT_DEPTH are not drawn: the switch at that depth
 * gets one line counting the switches and leaves below it (the DOT form
 * has them all), so the output stays O(nodes * TUTTI_TOPO_PRINT_DEPTH).
 * No recursion: any depth up to TUTTI_TOPO_MAX_DEPTH prints.
 * Returns 0, TUTTI_EINVAL, TUTTI_ENOMEM, or TUTTI_EIO if the stream
 * reports an error. */
TUTTI_API int tutti_topo_print(const tutti_topo_t *t, FILE *f);
/* The tree as a Graphviz graph (one edge per full-duplex link pair,
 * labelled with its latency and bandwidth; leaves labelled with ranks). */
TUTTI_API int tutti_topo_dot(const tutti_topo_t *t, FILE *f);

/* ---------------------------------------------- links: cut-through step */

/* runtime/MODEL.md's rule for hop i of a message of m bytes over links l_1..l_k:
 *   h_i = max(h_{i-1} + lat_{i-1}, free_i)
 *   e_i = max(h_i + m * beta_i, e_{i-1} + lat_{i-1})
 *   free_i = e_i
 * with h_0 = e_0 = s + L(0) and lat_0 = 0; the data is complete at the
 * receiver at e_k + lat_k. Times are seconds, computed in whole
 * picoseconds as the replay does (runtime/MODEL.md "Time base"). */
typedef struct tutti_hop {
  double head; /* h_i: the head starts over link i */
  double end;  /* e_i: the tail has left link i */
  double free; /* free_i: the link is free again (= end) */
} tutti_hop_t;

/* One hop, pure: arrive = h_{i-1} + lat_{i-1} (the head reaches link i),
 * free = free_i before this message, prev_end = e_{i-1}, prev_lat =
 * lat_{i-1}, beta = beta_i, bytes = m. Callers must present the messages
 * of one link in order of arrive (ties: source rank, then send order). */
TUTTI_API tutti_hop_t tutti_link_step(double arrive, double free, double prev_end, double prev_lat,
                                      double beta, double bytes);

/* A message in flight, as the next link sees it: head = h_{i-1} +
 * lat_{i-1} (when its head arrives) and tail = e_{i-1} + lat_{i-1}. Start
 * it with head = tail = s + L(0); after the last hop, tail is the time the
 * data is complete at the receiver (an empty path: s + L(0)). */
typedef struct tutti_transit {
  double head;
  double tail;
} tutti_transit_t;

/* The state of every link of a topology (when each is free again) and its
 * statistics, for one replay. */
typedef struct tutti_linkset tutti_linkset_t;

/* Under sharing = fair no message queues (runtime/MODEL.md "Sharing"):
 * busy is the time one or more flows crossed the link, wait the time two
 * or more shared it, max_queue the most flows at once, free the time it
 * last became idle. */
typedef struct tutti_link_stats {
  uint64_t messages; /* messages carried */
  double bytes;      /* bytes carried */
  double busy;       /* sum of e_i - h_i: time the link was held */
  double wait;       /* sum of h_i - arrive: time heads queued for it */
  int max_queue;     /* most messages at the link at once (queued or being
                        sent), counting the arriving one */
  double free;       /* the link is free from this time on */
} tutti_link_stats_t;

/* A linkset for t's links, all free at time 0. The topology must outlive
 * it and keep its links. Returns 0, TUTTI_EINVAL, TUTTI_ENOMEM. */
TUTTI_API int tutti_linkset_create(const tutti_topo_t *t, tutti_linkset_t **out);
/* Every link free at 0 and its statistics zero (keeps the memory). */
TUTTI_API void tutti_linkset_reset(tutti_linkset_t *s);
TUTTI_API void tutti_linkset_free(tutti_linkset_t *s);

/* Move message tr (m bytes) over one link: tutti_link_step with the
 * link's own lat and beta, then tr becomes what the next link sees
 * (head = h_i + lat_i, tail = e_i + lat_i), the link's free time and
 * statistics are updated. hop (may be NULL) receives h_i, e_i, free_i.
 * Calls for one link must come in order of tr->head (the replay's event
 * order: time, then source rank, then send order); an earlier head than
 * the link's last is TUTTI_EINVAL and changes nothing. Returns 0,
 * TUTTI_EINVAL, TUTTI_ENOMEM (the queue statistics could not grow). */
TUTTI_API int tutti_linkset_hop(tutti_linkset_t *s, int link, tutti_transit_t *tr, double bytes,
                                tutti_hop_t *hop);
/* A whole path at once, for a message alone on it or for tests: every hop
 * of links[0..k) in turn. Not for the replay with concurrent messages,
 * which must interleave hops of different messages by head time. */
TUTTI_API int tutti_linkset_path(tutti_linkset_t *s, const int *links, int k, tutti_transit_t *tr,
                                 double bytes);
TUTTI_API int tutti_linkset_stats(const tutti_linkset_t *s, int link, tutti_link_stats_t *out);

/* tutti_linkset_top ordering */
enum tutti_link_order {
  TUTTI_LINKS_BY_BUSY = 0, /* busy time, then bytes, then id */
  TUTTI_LINKS_BY_BYTES,    /* bytes, then busy, then id */
  TUTTI_LINKS_BY_QUEUE,    /* max_queue, then busy, then id */
};
/* The k most loaded links that carried anything, most loaded first, into
 * links[0..); returns how many (<= k), or TUTTI_EINVAL / TUTTI_ENOMEM. */
TUTTI_API int tutti_linkset_top(const tutti_linkset_t *s, int by, int k, int *links);
/* The k busiest links as a table (name, messages, bytes, busy, wait, max
 * queue); horizon > 0 adds each link's busy share of it. Returns 0,
 * TUTTI_EINVAL, TUTTI_ENOMEM, TUTTI_EIO. */
TUTTI_API int tutti_linkset_report(const tutti_linkset_t *s, int k, double horizon, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_TOPO_H */
