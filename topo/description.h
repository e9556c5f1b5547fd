/*
 * description.h -- the reading state of an INI topology description,
 * private to its two files: description.c reads the sections and keys
 * into it (and the builder, build.h) line by line; description_check.c
 * checks the whole tree once the file is read -- names resolved, one
 * parent each, no cycle, one root, the depth limit, leaves 0..N-1 -- and
 * gives the builder its children. One state serves one parse, on one
 * thread.
 */
#ifndef TUTTI_TOPO_DESCRIPTION_H
#define TUTTI_TOPO_DESCRIPTION_H

#include "build.h"
#include "tutti/ini.h"

/* A name in a 'children' list, and its line. */
struct ich {
  char name[TUTTI_TOPO_NAME_MAX];
  int line;
};

/* A leaf_link.N key: its leaf and line. */
struct iov {
  int leaf, line;
};

/* What a [switch NAME] or [host NAME] section gave, with the lines to
 * name in errors; parent is set by the check. */
struct isw {
  int line, kind;
  struct ich *ch;
  int nch, capch;
  int *lv;
  int nlv, caplv;
  int up_line, lf_line;
  struct iov *ov; /* lines and leaves of the leaf_link.N keys (b->ov has the values) */
  int nov, capov;
  int parent, parent_line; /* resolved */
};

/* The whole parse; sw[s] is the builder's switch s (b->sw[s]). */
struct istate {
  tutti_ini_t ini; /* the reader, the line, the first error */
  int cur;         /* current section: >= 0 a switch, -2 [topology], -1 none */
  int topo_line, links_line;
  int links_given; /* the caller's links replace the file's */
  struct build *b;
  struct isw *sw;
  int nsw, capsw;
  int *hash; /* open addressing over names: switch index or -1 */
  int hcap;
  int *leaf_owner, *leaf_line;
  int leafcap;
  int *ov_sec, *ov_line; /* per leaf: the section (+1) and line of its last leaf_link.N */
  int ovcap;
  int maxleaf, maxleaf_line;
};

/* The switch named `name`, or -1 (description.c). */
int tutti__desc_name_find(const struct istate *st, const char *name);
/* The checks that need the whole file, then the builder's children
 * (leaves first, then child switches), root and leaf count
 * (description_check.c): 0, or -1 with the first failure recorded in
 * st->ini (tutti_ini_report gives its text). */
int tutti__desc_check_tree(struct istate *st);

#endif
