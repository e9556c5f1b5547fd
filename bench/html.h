/*
 * html.h -- the step-through page of `tutti run --html FILE` and `tutti
 * compare --html FILE` (html.c): one self-contained HTML file (inline SVG,
 * CSS and script; nothing fetched) that draws a run's tree or schedule, its
 * ranks' timeline in modeled time with every message an arrow from its send
 * to its receive, a lane per link of its topology with the link's queue,
 * and walks through the run event by event (buttons, a slider, the arrow
 * keys). Several runs share one time axis, one above the other.
 *
 * The data is what `tutti explain` reads: tutti_world_explain's messages
 * (the critical path's marked) and link passages, the world's report (each
 * rank's end, each link's load), the algorithm's tree, the topology's
 * switches over the ranks, and explain's own "cost" and "why" text.
 */
#ifndef TUTTI_HTML_H
#define TUTTI_HTML_H

#include <stdio.h>

#include "tutti/tutti.h"

/* Ranks a page draws at most: beyond that the lanes and labels stop being
 * readable (explain's limit). */
#define HTML_MAX_RANKS 32

/* Switches a topology drawing holds at most: a deeper or wider tree above
 * the ranks is left out of the page (its link lanes stay). */
#define HTML_MAX_SWITCHES 64

/* One run on the page. Every pointer is the caller's, read during html_write
 * (cli_html.c's struct cli_page owns text and loads). */
struct html_run {
  const char *title;            /* "bcast binomial" */
  const char *sub;              /* a line under it: ranks, bytes, model */
  const char *coll;             /* the collective's name: the page orients
                                   shapes it finds in the messages by it */
  int nranks;                   /* <= HTML_MAX_RANKS */
  const tutti_explain_t *ex;    /* its messages (and link passages) */
  double modeled_time;          /* the report's: the page's last time */
  const double *rank_end;       /* nranks: each rank's end (NULL: none) */
  const tutti_model_t *model;   /* link names (model->topo), steps or seconds */
  const tutti_treespec_t *tree; /* the registry's tree, or NULL: the page
                                   finds the shape in the messages */
  int root;                     /* the collective's root (the tree's) */
  char *text;                   /* explain's "== cost" and "== why", or NULL */
  tutti_link_load_t *loads;     /* per link that carried a message: its
                                   messages and longest queue (nloads) */
  int nloads;
};

/* Write the page: heading, then runs[0..n) one above the other. Returns 0,
 * TUTTI_EINVAL (n < 1, a run of more than HTML_MAX_RANKS ranks),
 * TUTTI_ENOMEM, or TUTTI_EIO when the stream reports an error. */
int html_write(FILE *f, const char *heading, const struct html_run *runs, int n);

#endif
