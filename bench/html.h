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
 * and link passages, the world's report, the algorithm's tree.
 */
#ifndef TUTTI_HTML_H
#define TUTTI_HTML_H

#include <stdio.h>

#include "tutti/tutti.h"

/* Ranks a page draws at most: beyond that the lanes and labels stop being
 * readable (explain's limit). */
#define HTML_MAX_RANKS 32

/* One run on the page. Every pointer is the caller's, read during html_write. */
struct html_run {
  const char *title;            /* "bcast binomial" */
  const char *sub;              /* a line under it: ranks, bytes, model */
  int nranks;                   /* <= HTML_MAX_RANKS */
  const tutti_explain_t *ex;    /* its messages (and link passages) */
  double modeled_time;          /* the report's: the page's last time */
  const tutti_model_t *model;   /* link names (model->topo), steps or seconds */
  const tutti_treespec_t *tree; /* the tree drawn, or NULL: the schedule */
  int root;                     /* the tree's root */
};

/* Write the page: heading, then runs[0..n) one above the other. Returns 0,
 * TUTTI_EINVAL (n < 1, a run of more than HTML_MAX_RANKS ranks),
 * TUTTI_ENOMEM, or TUTTI_EIO when the stream reports an error. */
int html_write(FILE *f, const char *heading, const struct html_run *runs, int n);

#endif
