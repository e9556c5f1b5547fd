/*
 * tree.c -- the API of the pure tree builders (include/tutti/tree.h): the
 * kinds (TUTTI_TREE_KIND_MAP) and their checks; a rank's parent, children
 * and subtree in absolute ranks; whole trees -- a tree's postal time, the
 * drawing of `tutti tree` as text or Graphviz DOT. Every answer comes
 * from tutti__tree_node_rel, the builders of tree_build.c (whose header
 * comment draws each kind), which work on ranks relative to the root;
 * apart so that the constructions read without the API around them.
 */
#include <tutti/tutti.h>
#include <tutti/tree.h>

#include <stdlib.h>
#include <string.h>

#include "tree_build.h"

/* ------------------------------------------------------------------ kinds */

static const struct {
  const char *name;
  int contiguous;
  const char *help;
} kinds[TUTTI_TREE_NKINDS] = {
#define X(NAME, str, contig, help) {str, contig, help},
    TUTTI_TREE_KIND_MAP(X)
#undef X
};

tutti_treespec_t tutti_treespec_default(int kind) {
  tutti_treespec_t s = {kind, TUTTI_TREE_DEFAULT_K, TUTTI_TREE_DEFAULT_LAMBDA,
                        TUTTI_TREE_DEFAULT_L};
  return s;
}

const char *tutti_tree_kind_name(int kind) {
  return kind >= 0 && kind < TUTTI_TREE_NKINDS ? kinds[kind].name : "invalid";
}

const char *tutti_tree_kind_help(int kind) {
  return kind >= 0 && kind < TUTTI_TREE_NKINDS ? kinds[kind].help : "invalid";
}

int tutti_tree_kind_find(const char *name, int *kind) {
  if (!name || !kind) return TUTTI_EINVAL;
  for (int i = 0; i < TUTTI_TREE_NKINDS; i++) {
    if (strcmp(name, kinds[i].name) == 0) {
      *kind = i;
      return 0;
    }
  }
  return TUTTI_ENOTFOUND;
}

int tutti_tree_contiguous(int kind) {
  return kind >= 0 && kind < TUTTI_TREE_NKINDS ? kinds[kind].contiguous : TUTTI_EINVAL;
}

int tutti_tree_check(const tutti_treespec_t *spec) {
  if (!spec) return TUTTI_EINVAL;
  switch (spec->kind) {
  case TUTTI_TREE_FLAT:
  case TUTTI_TREE_CHAIN:
  case TUTTI_TREE_BINARY:
  case TUTTI_TREE_BINOMIAL:
    return 0;
  case TUTTI_TREE_KNOMIAL:
    return spec->k >= 2 ? 0 : TUTTI_EINVAL;
  /* Written so that NaN fails. */
  case TUTTI_TREE_LAMBDA:
    return spec->lambda >= 0.5 && spec->lambda < 1.0 ? 0 : TUTTI_EINVAL;
  case TUTTI_TREE_POSTAL:
    return spec->L >= 1 ? 0 : TUTTI_EINVAL;
  default:
    return TUTTI_EINVAL;
  }
}

static int check_args(const tutti_treespec_t *spec, int rank, int size, int root) {
  int err = tutti_tree_check(spec);
  if (err) return err;
  if (size < 1) return TUTTI_EINVAL;
  if (rank < 0 || rank >= size || root < 0 || root >= size) return TUTTI_ERANK;
  return 0;
}

/* (rank - root) mod size and back, without overflowing near INT_MAX. */
static int to_rel(int rank, int root, int size) {
  return rank >= root ? rank - root : rank + (size - root);
}
static int to_abs(int v, int root, int size) {
  return v < size - root ? v + root : v - (size - root);
}

int tutti_tree_node(const tutti_treespec_t *spec, int rank, int size, int root, int *parent,
                    int *children, int maxchildren, int *nchildren) {
  int err = check_args(spec, rank, size, root);
  if (err) return err;
  if (maxchildren < 0 || (maxchildren > 0 && !children)) return TUTTI_EINVAL;
  struct node nd = {.children = children, .max = maxchildren};
  err = tutti__tree_node_rel(spec, to_rel(rank, root, size), size, &nd);
  if (err) return err;
  if (parent) *parent = nd.parent < 0 ? -1 : to_abs(nd.parent, root, size);
  for (int i = 0; i < nd.n && i < maxchildren; i++) children[i] = to_abs(children[i], root, size);
  if (nchildren) *nchildren = nd.n;
  return 0;
}

int tutti_tree_subtree(const tutti_treespec_t *spec, int rank, int size, int root, int *lo,
                       int *count) {
  int err = check_args(spec, rank, size, root);
  if (err) return err;
  if (!lo || !count) return TUTTI_EINVAL;
  if (!kinds[spec->kind].contiguous) return TUTTI_ENOTSUP;
  struct node nd = {.no_children = 1};
  err = tutti__tree_node_rel(spec, to_rel(rank, root, size), size, &nd);
  if (err) return err;
  *lo = nd.lo;
  *count = nd.count;
  return 0;
}

int tutti_tree_subtree_size(const tutti_treespec_t *spec, int rank, int size, int root,
                            int *count) {
  int err = check_args(spec, rank, size, root);
  if (err) return err;
  if (!count) return TUTTI_EINVAL;
  struct node nd = {.no_children = 1};
  err = tutti__tree_node_rel(spec, to_rel(rank, root, size), size, &nd);
  if (!err) *count = nd.count;
  return err;
}

/* ------------------------------------------------------- whole-tree tools */

int tutti_tree_postal_time(const tutti_treespec_t *spec, int size, int L, long *steps) {
  int err = tutti_tree_check(spec);
  if (err) return err;
  if (size < 1 || L < 1 || !steps) return TUTTI_EINVAL;
  long *arrive = malloc((size_t)size * sizeof *arrive);
  int *ch = malloc((size_t)size * sizeof *ch);
  if (!arrive || !ch) {
    err = TUTTI_ENOMEM;
    goto out;
  }
  /* Parents precede children in relative order, so one pass in that order
   * sees every arrival time before it is needed. */
  long total = 0;
  arrive[0] = 0;
  for (int v = 0; v < size && !err; v++) {
    struct node nd = {.children = ch, .max = size};
    err = tutti__tree_node_rel(spec, v, size, &nd);
    for (int i = 0; !err && i < nd.n; i++) {
      arrive[ch[i]] = arrive[v] + i + L;
      if (arrive[ch[i]] > total) total = arrive[ch[i]];
    }
  }
  if (!err) *steps = total;
out:
  free(arrive);
  free(ch);
  return err;
}

/* The whole tree in relative ranks: children of v are kid[first[v] ..
 * first[v+1]), in send order. */
struct whole {
  int *first, *kid;
};

static int whole_build(const tutti_treespec_t *spec, int n, struct whole *t) {
  t->first = malloc(((size_t)n + 1) * sizeof *t->first);
  t->kid = malloc((size_t)n * sizeof *t->kid);
  if (!t->first || !t->kid) return TUTTI_ENOMEM;
  t->first[0] = 0;
  for (int v = 0; v < n; v++) {
    /* n - 1 edges in all, so the remaining room always suffices. */
    struct node nd = {.children = t->kid + t->first[v], .max = n - t->first[v]};
    int err = tutti__tree_node_rel(spec, v, n, &nd);
    if (err) return err;
    t->first[v + 1] = t->first[v] + nd.n;
  }
  return 0;
}

static void whole_free(struct whole *t) {
  free(t->first);
  free(t->kid);
}

static void describe(const tutti_treespec_t *spec, FILE *out) {
  fputs(kinds[spec->kind].name, out);
  if (spec->kind == TUTTI_TREE_KNOMIAL) fprintf(out, " (k=%d)", spec->k);
  if (spec->kind == TUTTI_TREE_LAMBDA) fprintf(out, " (lambda=%g)", spec->lambda);
  if (spec->kind == TUTTI_TREE_POSTAL) fprintf(out, " (L=%d)", spec->L);
}

static void print_dot(const struct whole *t, int n, int root, const tutti_treespec_t *spec,
                      FILE *out) {
  fputs("digraph tree {\n  // ", out);
  describe(spec, out);
  fprintf(out, ", %d ranks, root %d; edge labels: send order\n", n, root);
  fprintf(out, "  node [shape=circle];\n  %d [shape=doublecircle];\n", root);
  for (int v = 0; v < n; v++)
    for (int i = t->first[v]; i < t->first[v + 1]; i++)
      fprintf(out, "  %d -> %d [label=\"%d\"];\n", to_abs(v, root, n), to_abs(t->kid[i], root, n),
              i - t->first[v] + 1);
  fputs("}\n", out);
}

/* Depth-first with an explicit stack: a chain is n deep. The drawing stops
 * TUTTI_TREE_PRINT_DEPTH levels down (a chain of 4000 drew 32 MB of
 * indentation): a rank there with children gets one line counting them. */
static int print_ascii(const struct whole *t, int n, int root, FILE *out) {
  int cap = n < TUTTI_TREE_PRINT_DEPTH + 1 ? n : TUTTI_TREE_PRINT_DEPTH + 1;
  int *node = malloc((size_t)cap * sizeof *node), *next = malloc((size_t)cap * sizeof *next);
  int *size = NULL; /* subtree sizes, for a cut drawing */
  if (!node || !next) {
    free(node);
    free(next);
    return TUTTI_ENOMEM;
  }
  fprintf(out, "%d\n", root);
  int depth = 1;
  node[0] = 0;
  next[0] = t->first[0];
  while (depth > 0) {
    int v = node[depth - 1];
    if (next[depth - 1] == t->first[v + 1]) {
      depth--;
      continue;
    }
    int c = t->kid[next[depth - 1]++];
    /* An ancestor's column continues while it has children left. */
    for (int a = 1; a < depth; a++)
      fputs(next[a - 1] < t->first[node[a - 1] + 1] ? "│   " : "    ", out);
    fputs(next[depth - 1] < t->first[v + 1] ? "├── " : "└── ", out);
    fprintf(out, "%d\n", to_abs(c, root, n));
    if (t->first[c] == t->first[c + 1]) continue; /* a leaf */
    if (depth < TUTTI_TREE_PRINT_DEPTH) {
      node[depth] = c;
      next[depth] = t->first[c];
      depth++;
      continue;
    }
    if (!size) { /* children follow their parent in relative order */
      size = malloc((size_t)n * sizeof *size);
      if (!size) {
        free(node);
        free(next);
        return TUTTI_ENOMEM;
      }
      for (int u = n - 1; u >= 0; u--) {
        size[u] = 1;
        for (int i = t->first[u]; i < t->first[u + 1]; i++) size[u] += size[t->kid[i]];
      }
    }
    for (int a = 1; a <= depth; a++)
      fputs(next[a - 1] < t->first[node[a - 1] + 1] ? "│   " : "    ", out);
    fprintf(
        out,
        "└── ... %d more rank%s below, not drawn (deeper than %d levels; the DOT form has them)\n",
        size[c] - 1, size[c] == 2 ? "" : "s", TUTTI_TREE_PRINT_DEPTH);
  }
  free(node);
  free(next);
  free(size);
  return 0;
}

int tutti_tree_print(const tutti_treespec_t *spec, int size, int root, FILE *out, int dot) {
  int err = check_args(spec, root, size, root);
  if (err) return err;
  if (!out) return TUTTI_EINVAL;
  struct whole t;
  err = whole_build(spec, size, &t);
  if (!err) {
    if (dot)
      print_dot(&t, size, root, spec, out);
    else
      err = print_ascii(&t, size, root, out);
  }
  whole_free(&t);
  if (!err && (fflush(out) != 0 || ferror(out))) err = TUTTI_EIO;
  return err;
}
