/*
 * print.c -- a topology for people: an ASCII tree with the ranks on the
 * leaves (tutti_topo_print) and a Graphviz graph (tutti_topo_dot).
 *
 * The ASCII form puts a switch's consecutive leaves with the same links on
 * one line, with runs of three or more consecutive numbers as ranges:
 *
 *   tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin
 *   root
 *   |-- s0  link 2 us, 5 GB/s
 *   |   `-- leaves 0-3: ranks 0 2 4 6  links 1 us, 1.25 GB/s
 *   `-- s1  link 2 us, 5 GB/s
 *       `-- leaves 4-7: ranks 1 3 5 7  links 1 us, 1.25 GB/s
 *
 * A link whose two directions differ shows both ("up ...; down ...");
 * links nothing set read "not set" (or the default given to
 * tutti_topo_default_links, marked "default"). Four or more empty leaves
 * in a row read "(N empty)".
 *
 * Depth: no recursion (a file may be TUTTI_TOPO_MAX_DEPTH deep), and the
 * drawing stops TUTTI_TOPO_PRINT_DEPTH levels down with one line counting
 * what it left out, so its size is O(nodes * TUTTI_TOPO_PRINT_DEPTH), not
 * O(nodes * depth) for the indentation of a deep chain.
 */
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h"
#include "tutti/model.h"

static void one_link(const tutti_topo_t *t, uint32_t idx, char *buf, size_t n) {
  const tutti_topo_link_t *p = &t->params[idx];
  if (idx == 0 && p->lat == 0 && p->beta == 0) {
    snprintf(buf, n, "not set");
    return;
  }
  char a[32], b[32];
  tutti_format_time(p->lat, a, sizeof a);
  if (p->beta > 0)
    tutti_format_bandwidth(1.0 / p->beta, b, sizeof b);
  else
    snprintf(b, sizeof b, "unlimited");
  snprintf(buf, n, "%s, %s%s", a, b, idx == 0 ? " (default)" : "");
}

/* The text of the edge whose up link is `up` (both directions). */
static void edge_text(const tutti_topo_t *t, int up, char *buf, size_t n) {
  uint32_t a = t->lp[up], b = t->lp[up + 1];
  const tutti_topo_link_t *pa = &t->params[a], *pb = &t->params[b];
  char x[96], y[96];
  one_link(t, a, x, sizeof x);
  if (a == b || (pa->lat == pb->lat && pa->beta == pb->beta && (a == 0) == (b == 0))) {
    snprintf(buf, n, "%s", x);
    return;
  }
  one_link(t, b, y, sizeof y);
  snprintf(buf, n, "up %s; down %s", x, y);
}

/* v[0..n) with runs of 3 or more consecutive numbers as a-b; -1 as "-",
 * four or more in a row as "(N empty)" (a big machine with a few ranks). */
static void put_list(FILE *f, const int *v, int n) {
  for (int i = 0; i < n;) {
    int j = i;
    if (v[i] < 0)
      while (j + 1 < n && v[j + 1] < 0) j++;
    else
      while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
    if (i) fputc(' ', f);
    if (v[i] < 0 && j - i >= 3)
      fprintf(f, "(%d empty)", j - i + 1);
    else if (v[i] < 0) {
      fputc('-', f);
      j = i;
    } else if (j - i >= 2)
      fprintf(f, "%d-%d", v[i], v[j]);
    else {
      fprintf(f, "%d", v[i]);
      j = i;
    }
    i = j + 1;
  }
}

/* A group: the leaves from node v on with v's links, on one line; returns
 * the item after the group. */
static int print_group(const tutti_topo_t *t, FILE *f, const char *prefix, size_t plen, int v,
                       int *leaves, int *ranks) {
  char text[256];
  int n = 0, nv;
  uint32_t up = t->lp[tutti__up_link(v)], down = t->lp[tutti__up_link(v) + 1];
  for (nv = v;
       nv >= t->nsw && t->lp[tutti__up_link(nv)] == up && t->lp[tutti__up_link(nv) + 1] == down;
       nv = t->next[nv]) {
    leaves[n] = nv - t->nsw;
    ranks[n++] = t->rank_of_leaf ? t->rank_of_leaf[nv - t->nsw] : -1;
  }
  edge_text(t, tutti__up_link(v), text, sizeof text);
  fwrite(prefix, 1, plen, f);
  fprintf(f, "%s lea%s ", nv >= 0 ? "|--" : "`--", n == 1 ? "f" : "ves");
  put_list(f, leaves, n);
  if (t->nranks) {
    fprintf(f, ": rank%s ", n == 1 ? "" : "s");
    put_list(f, ranks, n);
  }
  fprintf(f, "  link%s %s\n", n == 1 ? "" : "s", text);
  return nv;
}

/* Switches and leaves below each switch (ids are breadth first: a child's
 * id is above its parent's, so one pass from the end adds them up). */
static int count_below(const tutti_topo_t *t, int **nsw_below, int **nleaf_below) {
  int *a = calloc((size_t)t->nsw, sizeof *a), *b = calloc((size_t)t->nsw, sizeof *b);
  if (!a || !b) {
    free(a);
    free(b);
    return TUTTI_ENOMEM;
  }
  for (int l = 0; l < t->nleaves; l++) b[t->parent[t->nsw + l]]++;
  for (int s = t->nsw - 1; s > 0; s--) {
    a[t->parent[s]] += a[s] + 1;
    b[t->parent[s]] += b[s];
  }
  *nsw_below = a;
  *nleaf_below = b;
  return 0;
}

int tutti_topo_print(const tutti_topo_t *t, FILE *f) {
  if (!t || !f) return TUTTI_EINVAL;
  /* Depth first with an explicit stack (a file may be TUTTI_TOPO_MAX_DEPTH
   * deep): next[k] is the next item of the switch k levels down; its items
   * print after a prefix of 4k characters. */
  int cap = t->depth < TUTTI_TOPO_PRINT_DEPTH ? t->depth : TUTTI_TOPO_PRINT_DEPTH;
  char *prefix = malloc((size_t)cap * 4 + 8);
  int *next = malloc(((size_t)cap + 1) * sizeof *next);
  int *leaves = malloc((size_t)t->nleaves * sizeof *leaves);
  int *ranks = malloc((size_t)t->nleaves * sizeof *ranks);
  int *swb = NULL, *lfb = NULL; /* counts below, for a cut drawing */
  int rc = TUTTI_ENOMEM;
  if (!prefix || !next || !leaves || !ranks ||
      (t->depth > TUTTI_TOPO_PRINT_DEPTH && count_below(t, &swb, &lfb)))
    goto done;
  char line[4300], text[256];
  tutti_topo_describe(t, line, sizeof line);
  fprintf(f, "%s\n%s%s\n", line, t->names, t->kind[0] == TUTTI__SW_HOST ? " (host)" : "");
  int top = 0;
  next[0] = t->first[0];
  while (top >= 0) {
    int v = next[top];
    size_t plen = 4 * (size_t)top;
    if (v < 0) {
      top--;
      continue;
    }
    if (v >= t->nsw) {
      next[top] = print_group(t, f, prefix, plen, v, leaves, ranks);
      continue;
    }
    int nv = t->next[v];
    next[top] = nv;
    edge_text(t, tutti__up_link(v), text, sizeof text);
    fwrite(prefix, 1, plen, f);
    fprintf(f, "%s %s%s  link %s\n", nv >= 0 ? "|--" : "`--", t->names + t->name_off[v],
            t->kind[v] == TUTTI__SW_HOST ? " (host)" : "", text);
    memcpy(prefix + plen, nv >= 0 ? "|   " : "    ", 4);
    if (top + 1 < TUTTI_TOPO_PRINT_DEPTH) {
      next[++top] = t->first[v];
      continue;
    }
    /* v is TUTTI_TOPO_PRINT_DEPTH levels down: count what is below it */
    fwrite(prefix, 1, plen + 4, f);
    fprintf(f,
            "`-- ... %d switch%s and %d lea%s below, not drawn (deeper than %d levels; the DOT "
            "form has them)\n",
            swb[v], swb[v] == 1 ? "" : "es", lfb[v], lfb[v] == 1 ? "f" : "ves",
            TUTTI_TOPO_PRINT_DEPTH);
  }
  rc = ferror(f) ? TUTTI_EIO : 0;
done:
  free(prefix);
  free(next);
  free(leaves);
  free(ranks);
  free(swb);
  free(lfb);
  return rc;
}

/* A DOT string: quotes and backslashes escaped. */
static void put_quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

int tutti_topo_dot(const tutti_topo_t *t, FILE *f) {
  if (!t || !f) return TUTTI_EINVAL;
  char line[4300];
  tutti_topo_describe(t, line, sizeof line);
  fprintf(f, "graph topology {\n  label=");
  put_quoted(f, line);
  fprintf(f, ";\n  labelloc=t;\n  node [shape=box];\n");
  for (int s = 0; s < t->nsw; s++) {
    fprintf(f, "  n%d [label=", s);
    put_quoted(f, t->names + t->name_off[s]);
    fprintf(f, "%s];\n", t->kind[s] == TUTTI__SW_HOST ? ", style=rounded" : "");
  }
  for (int l = 0; l < t->nleaves; l++) {
    int r = t->rank_of_leaf ? t->rank_of_leaf[l] : -1;
    if (r >= 0)
      fprintf(f, "  n%d [shape=ellipse, label=\"leaf %d\\nrank %d\"];\n", t->nsw + l, l, r);
    else
      fprintf(f, "  n%d [shape=ellipse, label=\"leaf %d\"];\n", t->nsw + l, l);
  }
  for (int v = 1; v < t->nnodes; v++) {
    char text[256];
    edge_text(t, tutti__up_link(v), text, sizeof text);
    fprintf(f, "  n%d -- n%d [label=", t->parent[v], v);
    put_quoted(f, text);
    fprintf(f, "];\n");
  }
  fprintf(f, "}\n");
  return ferror(f) ? TUTTI_EIO : 0;
}
