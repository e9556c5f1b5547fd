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
 * tutti_topo_default_links, marked "default").
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

/* v[0..n) with runs of 3 or more consecutive numbers as a-b; -1 as "-". */
static void put_list(FILE *f, const int *v, int n) {
  for (int i = 0; i < n;) {
    int j = i;
    while (v[i] >= 0 && j + 1 < n && v[j + 1] == v[j] + 1) j++;
    if (i) fputc(' ', f);
    if (v[i] < 0)
      fputc('-', f);
    else if (j - i >= 2)
      fprintf(f, "%d-%d", v[i], v[j]);
    else {
      fprintf(f, "%d", v[i]);
      j = i;
    }
    i = j + 1;
  }
}

struct pctx {
  const tutti_topo_t *t;
  FILE *f;
  char *prefix;
  int *leaves, *ranks; /* scratch for one group */
};

static void print_children(struct pctx *c, int s, size_t plen) {
  const tutti_topo_t *t = c->t;
  char text[256];
  for (int v = t->first[s]; v >= 0;) {
    int nv; /* the item after this one */
    if (v < t->nsw) {
      nv = t->next[v];
      edge_text(t, tutti__up_link(v), text, sizeof text);
      fprintf(c->f, "%s%s %s%s  link %s\n", c->prefix, nv >= 0 ? "|--" : "`--",
              t->names + t->name_off[v], t->kind[v] == TUTTI__SW_HOST ? " (host)" : "", text);
      memcpy(c->prefix + plen, nv >= 0 ? "|   " : "    ", 5);
      print_children(c, v, plen + 4);
      c->prefix[plen] = '\0';
    } else {
      /* a group: consecutive leaves with the same links */
      int n = 0;
      uint32_t up = t->lp[tutti__up_link(v)], down = t->lp[tutti__up_link(v) + 1];
      for (nv = v;
           nv >= t->nsw && t->lp[tutti__up_link(nv)] == up && t->lp[tutti__up_link(nv) + 1] == down;
           nv = t->next[nv]) {
        c->leaves[n] = nv - t->nsw;
        c->ranks[n++] = t->rank_of_leaf ? t->rank_of_leaf[nv - t->nsw] : -1;
      }
      edge_text(t, tutti__up_link(v), text, sizeof text);
      fprintf(c->f, "%s%s lea%s ", c->prefix, nv >= 0 ? "|--" : "`--", n == 1 ? "f" : "ves");
      put_list(c->f, c->leaves, n);
      if (t->nranks) {
        fprintf(c->f, ": rank%s ", n == 1 ? "" : "s");
        put_list(c->f, c->ranks, n);
      }
      fprintf(c->f, "  link%s %s\n", n == 1 ? "" : "s", text);
    }
    v = nv;
  }
}

int tutti_topo_print(const tutti_topo_t *t, FILE *f) {
  if (!t || !f) return TUTTI_EINVAL;
  struct pctx c = {.t = t, .f = f};
  c.prefix = malloc((size_t)t->depth * 4 + 8);
  c.leaves = malloc((size_t)t->nleaves * sizeof *c.leaves);
  c.ranks = malloc((size_t)t->nleaves * sizeof *c.ranks);
  int rc = TUTTI_ENOMEM;
  if (c.prefix && c.leaves && c.ranks) {
    char line[4300];
    tutti_topo_describe(t, line, sizeof line);
    fprintf(f, "%s\n%s%s\n", line, t->names, t->kind[0] == TUTTI__SW_HOST ? " (host)" : "");
    c.prefix[0] = '\0';
    print_children(&c, 0, 0);
    rc = ferror(f) ? TUTTI_EIO : 0;
  }
  free(c.prefix);
  free(c.leaves);
  free(c.ranks);
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
