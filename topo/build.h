/*
 * build.h -- the builder of a topology, private to topo/: the two front
 * ends (spec.c: "tree:4x8"; description.c: an INI file) fill one builder
 * -- switches with their children in order, leaves, link parameters per
 * level, per switch and per leaf -- and tutti__build_finalize (topo.c)
 * lays it out as topo_impl.h describes. Plus the small text helpers the
 * front ends share.
 *
 * Functions returning int return 0 or a negative TUTTI_E* code (an index
 * for tutti__build_param and tutti__build_switch).
 */
#ifndef TUTTI_TOPO_BUILD_H
#define TUTTI_TOPO_BUILD_H

#include <stddef.h>

#include "topo_impl.h"

#define TUTTI__TOPO_SPEC_ACCEPTED                                                                  \
  "tree:A[xB[xC...]] with whole numbers >= 1 (e.g. tree:4x8: a root switch over 4 switches of 8 "  \
  "leaves)"

struct bsw {
  char name[TUTTI_TOPO_NAME_MAX];
  int kind;
  int nk, capk;
  int *kids;   /* >= 0: a builder switch; < 0: leaf -(l + 1) */
  int up[2];   /* uplink parameter (up, down), -1 unset */
  int leaf[2]; /* its leaves' links, -1 unset */
};

struct bov {
  int leaf, p[2];
};

struct build {
  int nsw, capsw;
  struct bsw *sw;
  int root;
  int nleaves;
  tutti_topo_link_t *params;
  int np, capp;
  int *phash; /* open addressing over params[1..np): index or 0; phcap slots */
  int phcap;
  int nlev;
  int *lev; /* parameter per level, leaf links first */
  int nov, capov;
  struct bov *ov; /* per-leaf overrides */
};

/* Grow the array *p of *cap elements of `size` bytes to hold `need`
 * (doubling). */
int tutti__grow(void **p, int *cap, int need, size_t size);

int tutti__build_init(struct build *b);
void tutti__build_free(struct build *b);
/* The index of a link parameter, added if new (never 0: "not set"). */
int tutti__build_param(struct build *b, tutti_topo_link_t l);
/* A new switch (or host: kind TUTTI__SW_*); its index. */
int tutti__build_switch(struct build *b, const char *name, int kind);
/* Append a child: >= 0 a builder switch, < 0 leaf -(l + 1). */
int tutti__build_kid(struct bsw *s, int kid);
/* A per-level list "LAT/BW, LAT/BW, ..." into b->lev; on error a message
 * without a prefix in msg. */
int tutti__build_levels(struct build *b, const char *v, char *msg, size_t n);
/* The builder's tree as a topology (every switch reachable from b->root
 * exactly once: the front ends check it). where_levels prefixes the
 * message when the level list is longer than the tree is high. */
int tutti__build_finalize(struct build *b, const char *origin, int from_file, int root_line,
                          const char *where_levels, tutti_topo_t **out, char *err, size_t errlen);

/* "LAT/BW" -> a link; on error a message (without a prefix) in msg. */
int tutti__topo_parse_link(const char *s, tutti_topo_link_t *out, char *msg, size_t n);
/* Copy s[0..len) trimmed into buf (cut to n). */
void tutti__trim_copy(char *buf, size_t n, const char *s, size_t len);
/* A whole number in [0, hi] at *p, advancing *p; -1 if none or too big. */
long long tutti__whole(const char **p, long long hi);
/* Letters, digits and _ . : + - (switch and host names). */
int tutti__is_name_char(char c);

#endif /* TUTTI_TOPO_BUILD_H */
