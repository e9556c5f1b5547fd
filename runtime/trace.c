/*
 * trace.c -- a replayed run shown to people: Chrome trace-event JSON (for
 * Perfetto / chrome://tracing) and an ASCII timeline for the terminal.
 *
 * Why: modeled times are easier to trust when one can see them -- which
 * rank sent what when, where a port serialized messages (runtime/MODEL.md rules 2
 * and 3), where a rank sat waiting.
 *
 * Both walk each rank's log again with the replay's results (replay.c): a
 * rank's clock advances only at a WAIT (rules 4, 5: to the completion of the
 * operation waited for), a COMPUTE or a REDUCE (rule 6), with the same
 * arithmetic as the replay, so the slices of a rank tile its time line
 * exactly and never overlap. A WAIT's slice is named by the operation it
 * waits for; a nonblocking operation that needed no waiting shows as a
 * zero-length slice. Calls (spans, rule 7) are slices enclosing theirs.
 *
 * Chrome format: {"traceEvents":[...],"displayTimeUnit":"ns"}, ts and dur in
 * microseconds (postal steps: 1 step = 1 us), one thread per rank (pid 0,
 * tid = rank) and below it one of its states ("rank R state", tid =
 * nranks + R: slices "sending", "queued", "blocked", "done", report.h's
 * enum tutti_rank_state, from explain.c), "X" complete events, and per
 * received message a flow pair
 * "s" (in the send's slice, at the transfer start) / "f" with "bp":"e" (in
 * the receive's slice, at its completion), both with the message's id.
 *
 * With a topology, a second process (pid 1, "links") has one thread per
 * link that carried a message (tid = link id, named as topo.h names it)
 * and a slice per message for the time it held that link, h_i .. e_i of
 * runtime/MODEL.md's step ("msg 3->5 1 KiB"; its queueing time h_i - arrival in
 * the args). A link carries one message at a time, so its slices never
 * overlap. The plain replay does not keep those passages: this file
 * replays the logs again asking for them (the same times, bit for bit).
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define NONE UINT32_MAX

static int steps(const struct tutti_replay *rp) {
  return rp->model.preset == TUTTI_MODEL_POSTAL;
}

/* "6 us", "1.5 ms", "2 steps" */
static char *fmt_time(const struct tutti_replay *rp, double t, char *buf, size_t n) {
  if (t == 0) {
    snprintf(buf, n, "0");
    return buf;
  }
  if (steps(rp)) {
    snprintf(buf, n, "%.6g %s", t, t == 1 ? "step" : "steps");
    return buf;
  }
  static const struct {
    double scale;
    const char *unit;
  } u[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}};
  size_t i = 0;
  double a = fabs(t);
  while (i + 1 < sizeof u / sizeof u[0] && a < u[i].scale) i++;
  snprintf(buf, n, "%.6g %s", t / u[i].scale, u[i].unit);
  return buf;
}

/* "8 B", "1000 B", "64 KiB", "1.5 MiB" */
static char *fmt_bytes(uint64_t b, char *buf, size_t n) {
  static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  double v = (double)b;
  while (i < 4 && v >= 1024) {
    v /= 1024;
    i++;
  }
  if (i == 0)
    snprintf(buf, n, "%llu B", (unsigned long long)b);
  else
    snprintf(buf, n, "%.4g %s", v, unit[i]);
  return buf;
}

/* One step of a rank's clock, exactly as replay.c's run_rank does it: in
 * the time base's units (timebase.h), converted to seconds only for output. */
static inline tutti__tu_t clock_step(const struct tutti_replay *rp, int r, const struct tutti_ev *e,
                                     tutti__tu_t C) {
  switch (e->kind) {
  case TUTTI_EV_WAIT: {
    tutti__tu_t done = tutti__replay_done_tu(rp, r, e->ref);
    if (done > C) C = done; /* TUTTI__TU_NONE (a failed receive) changes nothing */
    break;
  }
  case TUTTI_EV_COMPUTE:
    C = tutti__tu_add(C, tutti__tu_from_s(e->u.seconds));
    break;
  case TUTTI_EV_REDUCE:
    C = tutti__tu_add(C, tutti__tu_bytes(tutti__tu_rate(rp->model.gamma), (double)e->bytes));
    break;
  }
  return C;
}

static double sec(tutti__tu_t t) {
  return tutti__tu_to_s(t);
}

/* The message of a SEND or RECV event, NULL for a failed RECV. */
static const struct tutti_replay_msg *op_msg(const struct tutti_replay *rp, int r, uint32_t idx) {
  uint64_t op = rp->ops[rp->evoff[r] + idx];
  unsigned k = RPO_KIND(op);
  return k == RPO_SEND || k == RPO_RECV ? &rp->msgs[RPO_ID(op)] : NULL;
}

/* ------------------------------------------------------------- Chrome JSON */

struct jw {
  FILE *f;
  double scale; /* modeled units -> microseconds */
  int first;
};

/* A time in units, written in microseconds (null when unknown). */
static void jnum(struct jw *j, tutti__tu_t t) {
  if (t != TUTTI__TU_NONE)
    fprintf(j->f, "%.6f", sec(t) * j->scale);
  else
    fputs("null", j->f);
}

static void jstr(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void jsep(struct jw *j) {
  fputs(j->first ? "\n" : ",\n", j->f);
  j->first = 0;
}

/* Begin an "X" event of process pid; the caller may add ,"args":{...} and
 * must close with jx_end. */
static void jx_begin_pid(struct jw *j, const char *name, const char *cat, int pid, int tid,
                         tutti__tu_t t0, tutti__tu_t t1) {
  jsep(j);
  fputs("{\"name\":", j->f);
  jstr(j->f, name);
  fprintf(j->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, pid, tid);
  jnum(j, t0);
  fputs(",\"dur\":", j->f);
  jnum(j, t1 > t0 ? t1 - t0 : 0);
}

static void jx_begin(struct jw *j, const char *name, const char *cat, int tid, tutti__tu_t t0,
                     tutti__tu_t t1) {
  jx_begin_pid(j, name, cat, 0, tid, t0, t1);
}

static void jx_end(struct jw *j) {
  fputc('}', j->f);
}

static void jflow(struct jw *j, int start, uint32_t id, int tid, tutti__tu_t t) {
  jsep(j);
  fprintf(j->f,
          "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"%s\",\"id\":%u,\"pid\":0,"
          "\"tid\":%d,\"ts\":",
          start ? "s" : "f\",\"bp\":\"e", id, tid);
  jnum(j, t);
  fputc('}', j->f);
}

static tutti__tu_t clamp(tutti__tu_t t, tutti__tu_t lo, tutti__tu_t hi) {
  return t < lo ? lo : t > hi ? hi : t;
}

/* The slice of a send or receive (event idx of rank r, posted at `post`)
 * spanning [t0, t1]. */
static void trace_op(struct jw *j, const struct tutti_replay *rp, int r, uint32_t idx,
                     tutti__tu_t post, tutti__tu_t t0, tutti__tu_t t1) {
  const struct tutti_ev *e = &rp->logs[r]->ev[idx];
  const struct tutti_replay_msg *msg = op_msg(rp, r, idx);
  char name[160], b[32];
  int send = e->kind == TUTTI_EV_SEND;
  /* a collective's reserved tag (above TUTTI_TAG_UB) says nothing to a
   * reader: only user tags are named; "args" keeps every tag */
  char tag[32] = "";
  if (e->tag <= TUTTI_TAG_UB) snprintf(tag, sizeof tag, ", tag %d", (int)e->tag);
  if (!msg)
    snprintf(name, sizeof name, "recv from %d%s (failed)", (int)e->peer, tag);
  else
    snprintf(name, sizeof name, "%s %s %s %d%s", send ? "send" : "recv",
             fmt_bytes(e->bytes, b, sizeof b), send ? "to" : "from", (int)e->peer, tag);
  jx_begin(j, name, send ? "send" : "recv", r, t0, t1);
  if (msg) {
    fprintf(j->f, ",\"args\":{\"bytes\":%llu,\"peer\":%d,\"tag\":%d,\"mode\":\"%s\"",
            (unsigned long long)e->bytes, (int)e->peer, (int)e->tag,
            (msg->flags & RPM_EAGER) ? "eager" : "rendezvous");
    static const char *key[] = {"posted_us",    "start_us",       "data_complete_us", "served_us",
                                "send_done_us", "recv_posted_us", "recv_done_us"};
    const tutti__tu_t v[] = {post,       msg->start, msg->arrive, msg->ready,
                             msg->sdone, msg->rpost, msg->rdone};
    for (int i = 0; i < 7; i++) {
      fprintf(j->f, ",\"%s\":", key[i]);
      jnum(j, v[i]);
    }
    fputc('}', j->f);
  }
  jx_end(j);
  if (!msg || !(msg->flags & RPM_MATCHED) || msg->rdone == TUTTI__TU_NONE) return; /* no arrow */
  uint32_t id = (uint32_t)(msg - rp->msgs);
  if (send)
    jflow(j, 1, id, r, clamp(msg->start, t0, t1));
  else
    jflow(j, 0, id, r, clamp(msg->rdone, t0, t1));
}

/* The "links" process: a track per link that carried a message, a slice
 * per passage (see the header comment). */
static int trace_links(struct jw *j, const struct tutti_replay *rp) {
  struct tutti_replay *again = NULL;
  const struct tutti_replay *hr = rp;
  uint32_t *msgoff = NULL; /* rank r sent messages msgoff[r] .. msgoff[r+1]-1 */
  int rc = 0, nl = tutti_topo_nlinks(rp->model.topo);
  if (!rp->hops) {
    char err[256];
    rc = tutti__replay_run_ex(&rp->model, rp->nranks, rp->logs, TUTTI__REPLAY_HOPS, &again, err,
                              sizeof err);
    if (rc) return rc;
    if (again->modeled_time != rp->modeled_time) { /* a replay is a pure function */
      tutti__replay_free(again);
      return TUTTI_EINVAL;
    }
    hr = again;
  }
  msgoff = malloc(((size_t)rp->nranks + 1) * sizeof *msgoff);
  if (!msgoff) {
    tutti__replay_free(again);
    return TUTTI_ENOMEM;
  }
  uint32_t id = 0;
  for (int r = 0; r < rp->nranks; r++) {
    msgoff[r] = id;
    for (uint64_t e = rp->evoff[r]; e < rp->evoff[r + 1]; e++)
      id += RPO_KIND(rp->ops[e]) == RPO_SEND;
  }
  msgoff[rp->nranks] = id;

  FILE *f = j->f;
  jsep(j);
  fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"links\"}}", f);
  for (int l = 0; l < nl; l++) {
    tutti_link_stats_t st;
    char name[160];
    if (tutti_linkset_stats(hr->links, l, &st) || !st.messages) continue;
    tutti_topo_link_name(rp->model.topo, l, name, sizeof name);
    jsep(j);
    fprintf(f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":", l);
    jstr(f, name);
    fputs("}}", f);
    jsep(j);
    fprintf(f,
            "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{"
            "\"sort_index\":%d}}",
            l, l);
  }
  for (uint64_t i = 0; i < hr->nhops; i++) {
    const struct tutti_replay_hop *h = &hr->hops[i];
    const struct tutti_replay_msg *msg = &hr->msgs[h->msg];
    int lo = 0, hi = rp->nranks; /* the sender: msgoff[lo] <= id < msgoff[lo + 1] */
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (msgoff[mid] <= h->msg)
        lo = mid;
      else
        hi = mid;
    }
    char name[96], b[32];
    snprintf(name, sizeof name, "msg %d->%d %s", lo, (int)msg->dst,
             fmt_bytes(msg->bytes, b, sizeof b));
    jx_begin_pid(j, name, "link", 1, h->link, h->head, h->end);
    fprintf(f, ",\"args\":{\"msg\":%u,\"src\":%d,\"dst\":%d,\"bytes\":%llu,\"arrived_us\":", h->msg,
            lo, (int)msg->dst, (unsigned long long)msg->bytes);
    jnum(j, h->arrive);
    fputs(",\"queued_us\":", f);
    jnum(j, h->head - h->arrive);
    fputc('}', f);
    jx_end(j);
  }
  free(msgoff);
  tutti__replay_free(again);
  return rc;
}

int tutti__replay_trace(const struct tutti_replay *rp, FILE *out) {
  if (!rp || !out) return TUTTI_EINVAL;
  struct jw j = {out, steps(rp) ? 1.0 : 1e6, 1};
  uint32_t maxn = 0;
  for (int r = 0; r < rp->nranks; r++)
    if (rp->logs[r]->n > maxn) maxn = rp->logs[r]->n;
  /* per rank scratch: the first WAIT on each op; the clock at each event
   * (an op's post time); each call's end */
  uint32_t *first_wait = malloc((maxn ? maxn : 1) * sizeof *first_wait);
  tutti__tu_t *at = malloc((maxn ? maxn : 1) * sizeof *at);
  tutti__tu_t *span_end = malloc((rp->ncalls ? (size_t)rp->ncalls : 1) * sizeof *span_end);
  tutti_explain_t ex;
  int erc = first_wait && at && span_end ? tutti__replay_explain(rp, 0, &ex) : TUTTI_ENOMEM;
  if (erc) {
    free(first_wait);
    free(at);
    free(span_end);
    return erc;
  }

  fputs("{\"traceEvents\":[", out);
  jsep(&j);
  fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"tutti "
        "(modeled time)\"}}",
        out);
  for (int r = 0; r < rp->nranks; r++) { /* rank r's lane, then its states' */
    jsep(&j);
    fprintf(out,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":"
            "\"rank %d\"}}",
            r, r);
    jsep(&j);
    fprintf(out,
            "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{"
            "\"sort_index\":%d}}",
            r, 2 * r);
    jsep(&j);
    fprintf(out,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":"
            "\"rank %d state\"}}",
            rp->nranks + r, r);
    jsep(&j);
    fprintf(out,
            "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{"
            "\"sort_index\":%d}}",
            rp->nranks + r, 2 * r + 1);
  }
  for (size_t i = 0; i < ex.nspans; i++) { /* the four states, report.h */
    const tutti_state_span_t *sp = &ex.spans[i];
    jsep(&j);
    fputs("{\"name\":", out);
    jstr(out, tutti_rank_state_name(sp->state));
    fprintf(out, ",\"cat\":\"state\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f}",
            rp->nranks + sp->rank, sp->from * j.scale, (sp->to - sp->from) * j.scale);
  }
  tutti_explain_free(&ex);
  for (int r = 0; r < rp->nranks; r++) {
    const struct tutti_ev *ev = rp->logs[r]->ev;
    uint32_t n = rp->logs[r]->n;
    /* pass 1: which WAIT completes each op; when each call ends */
    tutti__tu_t C = 0;
    int k = 0;
    for (uint32_t i = 0; i < n; i++) {
      first_wait[i] = NONE;
      at[i] = C;
      if (ev[i].kind == TUTTI_EV_WAIT && first_wait[ev[i].ref] == NONE) first_wait[ev[i].ref] = i;
      C = clock_step(rp, r, &ev[i], C);
      if (ev[i].kind == TUTTI_EV_SPAN_END && k < rp->ncalls) span_end[k++] = C;
    }
    /* pass 2: the slices, calls first so that they enclose their parts */
    C = 0;
    k = 0;
    for (uint32_t i = 0; i < n; i++) {
      const struct tutti_ev *e = &ev[i];
      tutti__tu_t after = clock_step(rp, r, e, C);
      char name[96], b[32];
      switch (e->kind) {
      case TUTTI_EV_SPAN_BEGIN:
        if (k < rp->ncalls) {
          jx_begin(&j, e->u.name ? e->u.name : "(null)", "call", r, C, span_end[k]);
          fprintf(out, ",\"args\":{\"call\":%d}", k);
          jx_end(&j);
        }
        break;
      case TUTTI_EV_SPAN_END:
        k++;
        break;
      case TUTTI_EV_SEND:
      case TUTTI_EV_RECV:
        if (first_wait[i] == NONE) { /* never waited: a mark at its transfer start
                                        (a send) or its post (a receive) */
          const struct tutti_replay_msg *msg = op_msg(rp, r, i);
          tutti__tu_t t = C;
          if (msg && e->kind == TUTTI_EV_SEND && msg->start != TUTTI__TU_NONE) t = msg->start;
          trace_op(&j, rp, r, i, C, t, t);
        }
        break;
      case TUTTI_EV_WAIT:
        if (first_wait[e->ref] == i) trace_op(&j, rp, r, e->ref, at[e->ref], C, after);
        break;
      case TUTTI_EV_COMPUTE:
        snprintf(name, sizeof name, "compute %s", fmt_time(rp, e->u.seconds, b, sizeof b));
        jx_begin(&j, name, "compute", r, C, after);
        jx_end(&j);
        break;
      case TUTTI_EV_REDUCE:
        snprintf(name, sizeof name, "reduce %s", fmt_bytes(e->bytes, b, sizeof b));
        jx_begin(&j, name, "compute", r, C, after);
        jx_end(&j);
        break;
      }
      C = after;
    }
  }
  int rc = rp->links ? trace_links(&j, rp) : 0;
  fputs("\n],\"displayTimeUnit\":\"ns\"}\n", out);
  free(first_wait);
  free(at);
  free(span_end);
  return rc ? rc : ferror(out) ? TUTTI_EIO : 0;
}

/* ----------------------------------------------------------- ASCII timeline */

enum { TL_WAIT, TL_COMPUTE, TL_SEND, TL_RECV, TL_KINDS };

#define TL_MAX_ROWS 32

/* Add the time [a, b] (in units, within [0, T]) spends in each of the
 * `width` columns to that column's tally of `what`. Exact: times are
 * scaled by width, so column c is [c*T, (c+1)*T) and the tallies are in
 * those scaled units (a column holds T of them). */
static void tl_mark(double (*cov)[TL_KINDS], int width, tutti__tu_t T, tutti__tu_t a, tutti__tu_t b,
                    int what) {
  if (!(b > a) || !(T > 0) || a < 0) return;
  __int128 A = (__int128)a * width, B = (__int128)b * width;
  __int128 c0 = A / T, c1 = B / T;
  if (c1 > width - 1) c1 = width - 1;
  for (int c = (int)c0; c <= (int)c1; c++) {
    __int128 lo = (__int128)c * T, hi = lo + T;
    __int128 x = (B < hi ? B : hi) - (A > lo ? A : lo);
    if (x > 0) cov[c][what] += (double)x;
  }
}

/* A column shows what took most of it: S, R (# when sending and receiving
 * each took a quarter of it), C, or . for waiting; blank after the end. */
static char tl_char(const double *cov, double span) {
  static const char ch[TL_KINDS] = {'.', 'C', 'S', 'R'};
  if (cov[TL_SEND] >= span / 4 && cov[TL_RECV] >= span / 4) return '#';
  int best = -1;
  for (int k = 0; k < TL_KINDS; k++) /* ties: the later kind (S, R over C over .) */
    if (cov[k] > 0 && (best < 0 || cov[k] >= cov[best])) best = k;
  return best < 0 ? ' ' : ch[best];
}

int tutti__replay_timeline(const struct tutti_replay *rp, FILE *out, int width) {
  if (!rp || !out) return TUTTI_EINVAL;
  if (width <= 0) width = 64;
  if (width < 8) width = 8;
  if (width > 4096) width = 4096;
  double(*cov)[TL_KINDS] = malloc((size_t)width * sizeof *cov);
  char *line = malloc((size_t)width + 64);
  if (!cov || !line) {
    free(cov);
    free(line);
    return TUTTI_ENOMEM;
  }
  double T = rp->modeled_time;
  tutti__tu_t Tu = rp->modeled;
  int rows = rp->nranks < TL_MAX_ROWS ? rp->nranks : TL_MAX_ROWS;
  char a[32], b[32], c[32];

  fprintf(out, "modeled time %s over %d columns (one column = %s); %d rank%s\n",
          fmt_time(rp, T, a, sizeof a), width, fmt_time(rp, T / width, b, sizeof b), rp->nranks,
          rp->nranks == 1 ? "" : "s");
  if (rp->nranks > TL_MAX_ROWS)
    fprintf(out, "showing the first %d of %d ranks\n", TL_MAX_ROWS, rp->nranks);
  fputs("S send, R receive, # both, . wait, C compute/reduce\n", out);

  /* the axis: 0 at the left edge, the middle, the end at the right edge;
   * rows are "r12345|" + width columns + "|" */
  const int pre = 6, len = pre + width + 2;
  memset(line, ' ', (size_t)len);
  fmt_time(rp, 0, a, sizeof a);
  fmt_time(rp, T / 2, b, sizeof b);
  fmt_time(rp, T, c, sizeof c);
  int la = (int)strlen(a), lb = (int)strlen(b), lc = (int)strlen(c);
  int mid = pre + 1 + width / 2 - lb / 2, end = len - lc;
  memcpy(line + pre, a, (size_t)la);
  if (mid > pre + la && mid + lb < end) memcpy(line + mid, b, (size_t)lb);
  if (end > pre + la) memcpy(line + end, c, (size_t)lc);
  fprintf(out, "%.*s\n", len, line);
  memset(line, '-', (size_t)width + 2);
  line[0] = line[1 + width / 2] = line[width + 1] = '+';
  fprintf(out, "%*s%.*s\n", pre, "", width + 2, line);

  for (int r = 0; r < rows; r++) {
    memset(cov, 0, (size_t)width * sizeof *cov);
    const struct tutti_ev *ev = rp->logs[r]->ev;
    uint32_t n = rp->logs[r]->n;
    tutti__tu_t C = 0;
    for (uint32_t i = 0; i < n; i++) {
      const struct tutti_ev *e = &ev[i];
      tutti__tu_t after = clock_step(rp, r, e, C);
      if (e->kind == TUTTI_EV_COMPUTE || e->kind == TUTTI_EV_REDUCE) {
        tl_mark(cov, width, Tu, C, after, TL_COMPUTE);
      } else if (e->kind == TUTTI_EV_WAIT && after > C) {
        /* waiting until the transfer starts, then sending / receiving */
        const struct tutti_replay_msg *msg = op_msg(rp, r, e->ref);
        tutti__tu_t x = msg && msg->start != TUTTI__TU_NONE ? msg->start : C;
        if (x < C) x = C;
        if (x > after) x = after;
        tl_mark(cov, width, Tu, C, x, TL_WAIT);
        tl_mark(cov, width, Tu, x, after, ev[e->ref].kind == TUTTI_EV_SEND ? TL_SEND : TL_RECV);
      }
      C = after;
    }
    for (int i = 0; i < width; i++) line[i] = tl_char(cov[i], (double)Tu);
    fprintf(out, "r%-5d|%.*s|\n", r, width, line);
  }
  free(cov);
  free(line);
  return ferror(out) ? TUTTI_EIO : 0;
}

/* ------------------------------------------------------------------ API */

static int world_replay(const tutti_world_t *w, FILE *out, const struct tutti_replay **rp) {
  if (!w || !out) return TUTTI_EINVAL;
  if (w->running) return TUTTI_EBUSY;
  if (!w->replay) return TUTTI_ENOTSUP;
  *rp = w->replay;
  return 0;
}

int tutti_world_trace(const tutti_world_t *w, FILE *out) {
  const struct tutti_replay *rp;
  int rc = world_replay(w, out, &rp);
  return rc ? rc : tutti__replay_trace(rp, out);
}

int tutti_world_timeline(const tutti_world_t *w, FILE *out, int width) {
  const struct tutti_replay *rp;
  int rc = world_replay(w, out, &rp);
  return rc ? rc : tutti__replay_timeline(rp, out, width);
}
