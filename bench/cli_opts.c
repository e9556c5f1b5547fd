/*
 * cli_opts.c -- option parsing for the collective commands of `tutti`
 * (bench/CLI.md): one option table (CLI_OPTION_MAP in cli.h) feeds the
 * parser, its error texts and every --help; the machine of --model or
 * --profile and --topology, --links, --mapping (the library builds it:
 * tutti_machine_build; here the error names the flag); names of the
 * collectives for messages, chosen by their registry traits.
 *
 * Errors are one line on stderr naming the flag and what it accepts:
 *   tutti run: --ranks: 'x' is not a whole number; accepted: an integer >= 1
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct opt {
  char shrt;
  const char *lng, *meta, *help;
};

static const struct opt opts[CLI_NOPTS] = {
#define CLI_X_OPT(e, s, l, meta, help) {s, l, meta, help},
    CLI_OPTION_MAP(CLI_X_OPT)
#undef CLI_X_OPT
};

/* The length of the UTF-8 sequence at p when it is valid (shortest form,
 * no surrogate, at most U+10FFFF) and not a C1 control (U+0080..U+009F,
 * which terminals obey as controls), else 0. Stops at a NUL. */
static size_t utf8_printable(const unsigned char *p) {
  unsigned c = p[0], lo = 0x80, hi = 0xbf;
  size_t n;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, lo = c == 0xc2 ? 0xa0 : 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
  else
    return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xbf) return 0;
  return n;
}

int cli_line_shown;

int cli_fail(int status, const char *cmd, const char *fmt, ...) {
  if (cli_line_shown) { /* a progress line: the error goes on a line of its own */
    fflush(stdout);
    fputs("\r\033[K", stderr);
    cli_line_shown = 0;
  }
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* one line, whatever the message held: a control byte (C0, DEL, C1) or
   * a byte that is not part of valid UTF-8 (quoted from an argument or an
   * input file) is shown as \xNN, never sent to the terminal */
  char shown[sizeof msg * 4];
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
    size_t u = *p >= 0x80 ? utf8_printable(p) : 0;
    if (u) {
      memcpy(shown + k, p, u);
      k += u, p += u - 1;
    } else if (*p < 0x20 || *p >= 0x7f) {
      k += (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02x", *p);
    } else {
      shown[k++] = (char)*p;
    }
  }
  shown[k] = '\0';
  fprintf(stderr, "tutti%s%s: %s\n", cmd && *cmd ? " " : "", cmd && *cmd ? cmd : "", shown);
  return status;
}

void cli_print_options(FILE *f, uint64_t accepted) {
  int values = 0;
  for (int i = 0; i < CLI_NOPTS; i++) {
    if (!(accepted & (UINT64_C(1) << i))) continue;
    values |= opts[i].meta && i != CLI_OPT_PARAM && i != CLI_OPT_PLUGIN;
    char head[64];
    snprintf(head, sizeof head, "%c%c%s--%s%s%s", opts[i].shrt ? '-' : ' ',
             opts[i].shrt ? opts[i].shrt : ' ', opts[i].shrt ? ", " : "  ", opts[i].lng,
             opts[i].meta ? " " : "", opts[i].meta ? opts[i].meta : "");
    fprintf(f, "  %-26s %s\n", head, opts[i].help);
  }
  if (values)
    fprintf(f, "  %-26s %s\n", "",
            accepted & CLI_O(PARAM)    ? "(an option with a value may be given once; --param and "
                                         "--plugin repeat)"
            : accepted & CLI_O(PLUGIN) ? "(an option with a value may be given once; --plugin "
                                         "repeats)"
                                       : "(an option with a value may be given once)");
}

/* "-n/--ranks, --root, ..." of the accepted options. */
static const char *accepted_list(uint64_t accepted) {
  static char buf[1024];
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < CLI_NOPTS && len < sizeof buf; i++) {
    if (!(accepted & (UINT64_C(1) << i))) continue;
    char one[64];
    if (opts[i].shrt)
      snprintf(one, sizeof one, "-%c/--%s", opts[i].shrt, opts[i].lng);
    else
      snprintf(one, sizeof one, "--%s", opts[i].lng);
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", len ? ", " : "", one);
  }
  return buf;
}

static int parse_int(const char *cmd, const char *flag, const char *v, long lo, long hi,
                     const char *accepted, int *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (end == v || *end || errno == ERANGE)
    return cli_fail(CLI_EUSAGE, cmd, "--%s: '%s' is not a whole number; accepted: %s", flag, v,
                    accepted);
  if (x < lo || x > hi)
    return cli_fail(CLI_EUSAGE, cmd, "--%s: %ld is out of range; accepted: %s", flag, x, accepted);
  *out = (int)x;
  return 0;
}

int cli_plugins_env(const char *cmd) {
  static int done;
  char err[1024];
  if (done) return 0;
  done = 1;
  if (tutti_plugin_load_list(getenv("TUTTI_PLUGINS"), err, sizeof err))
    return cli_fail(CLI_EUSAGE, cmd, "TUTTI_PLUGINS: %s", err);
  return 0;
}

/* Apply option i with value v (NULL for flags). */
static int apply(const char *cmd, int i, const char *v, struct cli_opts *o) {
  char err[512] = "";
  switch (i) {
  case CLI_OPT_RANKS:
    return parse_int(cmd, "ranks", v, 1, TUTTI_MAX_RANKS, "an integer from 1 to 1048576 (2^20)",
                     &o->nranks);
  case CLI_OPT_ROOT:
    return parse_int(cmd, "root", v, 0, INT_MAX, "an integer from 0 to ranks-1", &o->root);
  case CLI_OPT_ITERS:
    return parse_int(cmd, "iters", v, 1, INT_MAX, "an integer >= 1", &o->iters);
  case CLI_OPT_MAX_EVENTS: {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end || *v == '-' || errno == ERANGE || x < 1 || x >= UINT32_MAX)
      return cli_fail(CLI_EUSAGE, cmd,
                      "--max-events: '%s' is not a count; accepted: an integer "
                      "from 1 to 4294967294",
                      v);
    o->max_events = (uint32_t)x;
    return 0;
  }
  case CLI_OPT_BYTES:
    if (tutti_parse_size(v, &o->bytes, err, sizeof err))
      return cli_fail(CLI_EUSAGE, cmd, "--bytes: %s", err);
    return 0;
  case CLI_OPT_PLUGIN: {
    int st = cli_plugins_env(cmd); /* the variable's first: the order is the user's */
    if (st) return st;
    if (tutti_plugin_load(v, err, sizeof err))
      return cli_fail(CLI_EUSAGE, cmd, "--plugin: %s", err);
    return 0;
  }
  case CLI_OPT_PARAM: {
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
      return cli_fail(CLI_EUSAGE, cmd,
                      "--param: '%s' is not K=V; accepted: a parameter of the algorithm "
                      "(tutti list) and its value, e.g. lambda=0.6",
                      v);
    size_t len = strlen(o->params);
    if (len + strlen(v) + 2 > sizeof o->params)
      return cli_fail(CLI_EUSAGE, cmd,
                      "--param: too many parameters; accepted: up to %zu characters",
                      sizeof o->params - 1);
    snprintf(o->params + len, sizeof o->params - len, "%s%s", len ? "," : "", v);
    return 0;
  }
  case CLI_OPT_MODEL:
    o->model = v;
    return 0;
  case CLI_OPT_PROFILE:
    o->profile = v;
    return 0;
  case CLI_OPT_OP:
    o->op = v;
    return 0;
  case CLI_OPT_DTYPE:
    o->dtype = v;
    return 0;
  case CLI_OPT_TRACE:
    o->trace = v;
    return 0;
  case CLI_OPT_HTML:
    o->html = v;
    return 0;
  case CLI_OPT_TOPOLOGY:
    o->topology = v;
    return 0;
  case CLI_OPT_MAPPING:
    o->mapping = v;
    return 0;
  case CLI_OPT_LINKS:
    o->links = v;
    return 0;
  case CLI_OPT_ALGOS:
    o->algos = v;
    return 0;
  case CLI_OPT_SIZES:
    o->sizes = v;
    return 0;
  case CLI_OPT_CSV:
    o->csv = v;
    return 0;
  case CLI_OPT_PLOT:
    o->plot = v;
    return 0;
  case CLI_OPT_REALTIME: {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    /* an upper bound so that wall seconds stay finite; 1e9 s per modeled
     * second shows a microsecond as a quarter of an hour */
    if (end == v || *end || errno == ERANGE || !(x > 0) || !(x <= 1e9))
      return cli_fail(CLI_EUSAGE, cmd,
                      "--realtime: '%s' is not a scale; accepted: wall seconds per modeled "
                      "second (postal: per step), a number > 0 and <= 1e9: 0.2, 1e5",
                      v);
    o->realtime = x;
    return 0;
  }
  case CLI_OPT_RANKS_AS:
    if (strcmp(v, "threads") && strcmp(v, "fibers"))
      return cli_fail(CLI_EUSAGE, cmd, "--ranks-as: '%s' is not a kind; accepted: threads, fibers",
                      v);
    o->ranks_as = strcmp(v, "fibers") ? TUTTI_RANKS_AS_THREADS : TUTTI_RANKS_AS_FIBERS;
    return 0;
  case CLI_OPT_BIND:
    if (strcmp(v, "cores") && strcmp(v, "none"))
      return cli_fail(CLI_EUSAGE, cmd, "--bind: '%s' is not a placement; accepted: cores, none", v);
    o->bind = strcmp(v, "cores") ? TUTTI_BIND_NONE : TUTTI_BIND_CORES;
    return 0;
  case CLI_OPT_STACK: {
    /* the library's limits (tutti_config_check, which TUTTI_STACK meets too) */
    char lo[32], hi[32], acc[160];
    snprintf(acc, sizeof acc, "a size from %s to %s: 64KiB, 1MiB",
             tutti_format_bytes((size_t)PTHREAD_STACK_MIN, lo, sizeof lo),
             tutti_format_bytes(TUTTI_MAX_STACK, hi, sizeof hi));
    if (tutti_parse_size(v, &o->stack, err, sizeof err))
      return cli_fail(CLI_EUSAGE, cmd, "--stack: '%s' is not a stack size; accepted: %s", v, acc);
    if (o->stack < (size_t)PTHREAD_STACK_MIN || o->stack > TUTTI_MAX_STACK)
      return cli_fail(CLI_EUSAGE, cmd, "--stack: '%s' is out of range; accepted: %s", v, acc);
    return 0;
  }
  case CLI_OPT_MAX_MEMORY: {
    /* a unit is required: a bare 4 is 4 bytes, never what was meant */
    size_t x = 0, len = strlen(v);
    const char *acc = "a size with its unit, more than 0: 512MiB, 4GiB, 8GB";
    if (tutti_parse_size(v, &x, err, sizeof err))
      return cli_fail(CLI_EUSAGE, cmd, "--max-memory: '%s' is not a size; accepted: %s", v, acc);
    if (!len || !isalpha((unsigned char)v[len - 1]))
      return cli_fail(CLI_EUSAGE, cmd, "--max-memory: '%s' has no unit; accepted: %s", v, acc);
    if (!x) return cli_fail(CLI_EUSAGE, cmd, "--max-memory: '%s' is zero; accepted: %s", v, acc);
    o->max_memory = x;
    return 0;
  }
  case CLI_OPT_RULES:
    o->rules = v;
    return 0;
  case CLI_OPT_RULES_OUT:
    o->rules_out = v;
    return 0;
  case CLI_OPT_OMPI_RULES:
    o->ompi_rules = v;
    return 0;
  case CLI_OPT_OMPI_RULES_JSON:
    o->ompi_rules_json = v;
    return 0;
  case CLI_OPT_MPICH_RULES:
    o->mpich_rules = v;
    return 0;
  default:
    return 0; /* flags */
  }
}

/* The file path names: its real path where it exists, else its folder's
 * real path and its name, else the path as given. */
static void file_key(const char *p, char *key, size_t n) {
  char *real = realpath(p, NULL), *dir = NULL;
  const char *slash = strrchr(p, '/');
  if (!real) {
    char d[4096];
    snprintf(d, sizeof d, "%.*s", slash ? (int)(slash - p) + (slash == p) : 1, slash ? p : ".");
    dir = realpath(d, NULL);
  }
  if (real)
    snprintf(key, n, "%s", real);
  else if (dir)
    snprintf(key, n, "%s/%s", dir, slash ? slash + 1 : p);
  else
    snprintf(key, n, "%s", p);
  free(real), free(dir);
}

int cli_same_file(const char *a, const char *b) {
  char ka[8192], kb[8192];
  file_key(a, ka, sizeof ka), file_key(b, kb, sizeof kb);
  return !strcmp(ka, kb);
}

/* Two outputs naming one file, or an output naming a file the command
 * reads: one of them would be lost, so it is refused before anything runs. */
static int outputs_apart(const char *cmd, const char *const *val) {
  for (int i = 0; i < CLI_NOPTS; i++) {
    if (!val[i] || !(CLI_OUT_OPTS >> i & 1) || !strcmp(val[i], "-")) continue;
    for (int k = 0; k < CLI_NOPTS; k++) {
      if (k == i || !val[k] || !strcmp(val[k], "-")) continue;
      int out = CLI_OUT_OPTS >> k & 1, in = CLI_IN_OPTS >> k & 1;
      if (!(out && k > i) && !(in && !access(val[k], F_OK))) continue;
      if (!cli_same_file(val[i], val[k])) continue;
      if (out)
        return cli_fail(CLI_EUSAGE, cmd,
                        "--%s and --%s both write '%s'; accepted: a different file for each",
                        opts[i].lng, opts[k].lng, val[i]);
      return cli_fail(CLI_EUSAGE, cmd,
                      "--%s would write over '%s', which --%s reads; accepted: another file for "
                      "--%s",
                      opts[i].lng, val[i], opts[k].lng, opts[i].lng);
    }
  }
  return 0;
}

/* -h or --help among the arguments (before a "--"). */
static int is_help(int argc, char **argv) {
  for (int a = 0; a < argc && strcmp(argv[a], "--"); a++)
    if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) return 1;
  return 0;
}

int cli_parse(const char *cmd, uint64_t accepted, int maxpos, int argc, char **argv,
              struct cli_opts *o) {
  memset(o, 0, sizeof *o);
  o->nranks = 16, o->bytes = 8, o->root = 0, o->iters = 1;
  int only_pos = 0;
  const char *first[CLI_NOPTS] = {NULL}; /* each option's value, for "given twice" */
  /* a command that selects algorithms knows those of $TUTTI_PLUGINS */
  if ((accepted & CLI_O(PLUGIN)) && !is_help(argc, argv)) {
    int st = cli_plugins_env(cmd);
    if (st) return st;
  }
  for (int a = 0; a < argc; a++) {
    const char *arg = argv[a], *val = NULL;
    int i = -1, attached = 0;
    if (only_pos || arg[0] != '-' || !arg[1]) {
      if (o->npos >= maxpos || o->npos >= CLI_MAX_POS)
        return cli_fail(CLI_EUSAGE, cmd, "unexpected argument '%s'; accepted: see tutti %s --help",
                        arg, cmd);
      o->pos[o->npos++] = arg;
      continue;
    }
    if (!strcmp(arg, "--")) {
      only_pos = 1;
      continue;
    }
    if (arg[1] == '-') {
      const char *name = arg + 2, *eq = strchr(name, '=');
      size_t len = eq ? (size_t)(eq - name) : strlen(name);
      for (int k = 0; k < CLI_NOPTS; k++)
        if (strlen(opts[k].lng) == len && !strncmp(opts[k].lng, name, len)) i = k;
      if (eq) val = eq + 1, attached = 1;
    } else {
      for (int k = 0; k < CLI_NOPTS; k++)
        if (opts[k].shrt && opts[k].shrt == arg[1]) i = k;
      if (arg[2]) val = arg + 2, attached = 1;
    }
    if (i < 0 || !(accepted & (UINT64_C(1) << i))) {
      char shown[128];
      snprintf(shown, sizeof shown, "%s", arg);
      char *eq = strchr(shown, '=');
      if (eq && arg[1] == '-') *eq = '\0';
      return cli_fail(CLI_EUSAGE, cmd, "unknown option '%s'; accepted: %s", shown,
                      accepted_list(accepted));
    }
    if (!opts[i].meta) {
      o->given |= UINT64_C(1) << i;
      if (i == CLI_OPT_NO_DATA) o->no_data = 1;
      if (attached)
        return cli_fail(CLI_EUSAGE, cmd, "--%s takes no value (got '%s'); accepted: --%s alone",
                        opts[i].lng, val, opts[i].lng);
      if (i == CLI_OPT_HELP) return 0; /* help wins over anything after it */
      continue;
    }
    if (!attached) {
      if (a + 1 >= argc)
        return cli_fail(CLI_EUSAGE, cmd, "--%s: missing value; accepted: --%s %s, %s", opts[i].lng,
                        opts[i].lng, opts[i].meta, opts[i].help);
      val = argv[++a];
    }
    /* a value given twice is refused, not silently replaced by the last:
     * only --param and --plugin add up */
    if (first[i] && i != CLI_OPT_PARAM && i != CLI_OPT_PLUGIN)
      return cli_fail(CLI_EUSAGE, cmd,
                      "--%s: given twice ('%s', then '%s'); accepted: each option once (only "
                      "--param and --plugin repeat)",
                      opts[i].lng, first[i], val);
    first[i] = val;
    o->given |= UINT64_C(1) << i;
    if (i == CLI_OPT_RANKS && ((accepted & CLI_O(SIZES)) || !strcmp(cmd, "check"))) {
      o->ranks_list = val; /* a command that sweeps (sizes, or check) takes a list */
      continue;
    }
    int rc = apply(cmd, i, val, o);
    if (rc) return rc;
  }
  return outputs_apart(cmd, first);
}

int cli_count_pos(int argc, char **argv) {
  if (is_help(argc, argv)) return 0;
  int n = 0, only_pos = 0;
  for (int a = 0; a < argc; a++) {
    const char *arg = argv[a];
    if (only_pos || arg[0] != '-' || !arg[1]) {
      n++;
      continue;
    }
    if (!strcmp(arg, "--")) {
      only_pos = 1;
      continue;
    }
    /* an option: skip its value when it takes one and has none attached */
    int i = -1, attached = arg[1] == '-' ? strchr(arg, '=') != NULL : arg[2] != '\0';
    for (int k = 0; k < CLI_NOPTS; k++)
      if (arg[1] == '-' ? !strncmp(opts[k].lng, arg + 2, strcspn(arg + 2, "=")) &&
                              strlen(opts[k].lng) == strcspn(arg + 2, "=")
                        : opts[k].shrt && opts[k].shrt == arg[1])
        i = k;
    if (i >= 0 && opts[i].meta && !attached) a++;
  }
  return n;
}

/* ------------------------------------------------------------ lists */

#define CLI_LIST_MAX 4096

/* Append x unless present; 0, or -1 when the list is full. */
static int list_add(unsigned long long *v, int *n, unsigned long long x) {
  for (int i = 0; i < *n; i++)
    if (v[i] == x) return 0;
  if (*n == CLI_LIST_MAX) return -1;
  v[(*n)++] = x;
  return 0;
}

/* One value of a list: a rank count or a size. */
static int list_value(const char *cmd, const char *flag, const char *item, int sizes,
                      unsigned long long max, unsigned long long *x) {
  char err[256] = "";
  if (sizes) {
    size_t sz;
    if (tutti_parse_size(item, &sz, err, sizeof err))
      return cli_fail(CLI_EUSAGE, cmd, "--%s: %s", flag, err);
    *x = sz;
    return 0;
  }
  char *end;
  errno = 0;
  long long k = strtoll(item, &end, 10);
  if (end == item || *end || errno || k < 1 || (unsigned long long)k > max)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--%s: '%s' is not a rank count; accepted: integers from 1 to %llu, or "
                    "A..B (doubling), separated by commas",
                    flag, item, max);
  *x = (unsigned long long)k;
  return 0;
}

static int parse_list(const char *cmd, const char *flag, const char *text, int sizes,
                      unsigned long long max, unsigned long long **out, int *n) {
  *out = NULL, *n = 0;
  unsigned long long *v = malloc(CLI_LIST_MAX * sizeof *v);
  if (!v) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  const char *how = sizes ? "sizes such as 8, 1KiB, or A..B (doubling), separated by commas"
                          : "rank counts, or A..B (doubling), separated by commas";
  for (const char *s = text;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    char item[128];
    if (!len || len >= sizeof item) {
      free(v);
      return cli_fail(CLI_EUSAGE, cmd, "--%s: '%s' has an %s item; accepted: %s", flag, text,
                      len ? "overlong" : "empty", how);
    }
    memcpy(item, s, len);
    item[len] = '\0';
    char *dots = strstr(item, "..");
    unsigned long long a, b;
    int bad = 0;
    if (dots) {
      *dots = '\0';
      bad = list_value(cmd, flag, item, sizes, max, &a) ||
            list_value(cmd, flag, dots + 2, sizes, max, &b);
      if (!bad && (a == 0 || a > b)) {
        free(v);
        return cli_fail(CLI_EUSAGE, cmd,
                        "--%s: '%s..%s' is not a range; accepted: A..B with 0 < A <= B", flag, item,
                        dots + 2);
      }
      for (unsigned long long x = a; !bad && x <= b; x *= 2) {
        if (list_add(v, n, x)) goto full;
        if (x > b / 2) break;
      }
    } else {
      bad = list_value(cmd, flag, item, sizes, max, &a);
      if (!bad && list_add(v, n, a)) goto full;
    }
    if (bad) {
      free(v);
      return CLI_EUSAGE;
    }
    if (!comma) break;
    s = comma + 1;
  }
  *out = v;
  return 0;
full:
  free(v);
  return cli_fail(CLI_EUSAGE, cmd, "--%s: more than %d values; accepted: at most %d", flag,
                  CLI_LIST_MAX, CLI_LIST_MAX);
}

int cli_parse_ranks(const char *cmd, const char *text, int max_ranks, int **out, int *n) {
  unsigned long long *v;
  int rc = parse_list(cmd, "ranks", text, 0, (unsigned long long)max_ranks, &v, n);
  if (rc) return rc;
  int *r = malloc((size_t)*n * sizeof *r);
  if (!r) {
    free(v);
    return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  }
  for (int i = 0; i < *n; i++) r[i] = (int)v[i];
  free(v);
  *out = r;
  return 0;
}

int cli_parse_sizes(const char *cmd, const char *text, size_t **out, int *n) {
  unsigned long long *v;
  int rc = parse_list(cmd, "sizes", text, 1, ~0ULL, &v, n);
  if (rc) return rc;
  size_t *r = malloc((size_t)*n * sizeof *r);
  if (!r) {
    free(v);
    return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  }
  for (int i = 0; i < *n; i++) r[i] = (size_t)v[i];
  free(v);
  *out = r;
  return 0;
}

/* ------------------------------------------------------------ models */

/* The machine is the library's (tutti_machine_build); what is left here is
 * naming the flag at fault: a profile's own values are named by the
 * profile, given flags by their flag. */
int cli_model(const char *cmd, const struct cli_opts *o, int nranks, tutti_machine_t *mach) {
  tutti_machine_spec_t spec = tutti_machine_spec_default();
  spec.model = o->model, spec.profile = o->profile;
  spec.topology = o->topology, spec.links = o->links, spec.mapping = o->mapping;
  spec.nranks = nranks > 0 ? nranks : 0;
  char err[1024] = "";
  int bad, rc = tutti_machine_build(&spec, mach, &bad, err, sizeof err);
  if (!rc) return 0;
  const char *flag = "--model";
  switch (bad) {
  case TUTTI_MACHINE_IN_MODEL:
    if (rc == TUTTI_EINVAL)
      return cli_fail(CLI_EUSAGE, cmd,
                      "--model and --profile: give one of them, not both; accepted: --model SPEC "
                      "or --profile NAME|FILE (a profile holds a model)");
    break;
  case TUTTI_MACHINE_IN_PROFILE:
    flag = "--profile";
    break;
  case TUTTI_MACHINE_IN_TOPOLOGY:
    flag = "--topology";
    break;
  case TUTTI_MACHINE_IN_LINKS:
  case TUTTI_MACHINE_IN_MAPPING:
    flag = bad == TUTTI_MACHINE_IN_LINKS ? "--links" : "--mapping";
    if (rc == TUTTI_ENOTSUP)
      return cli_fail(CLI_EUSAGE, cmd,
                      "%s: there is no topology to apply it to; accepted: %s with --topology "
                      "SPEC|FILE or a profile with a [topology] section",
                      flag, flag);
    break;
  case TUTTI_MACHINE_IN_RANKS:
    flag = "--ranks";
    break;
  default:
    return cli_fail(CLI_ERUNTIME, cmd, "%s", err);
  }
  return cli_fail(CLI_EUSAGE, cmd, "%s: %s", flag, err);
}

/* ------------------------------------------------------------ collectives */

char *cli_origin(const tutti_algo_desc_t *d, char *buf, size_t n) {
  const char *o = tutti_algo_origin(d);
  char cwd[4096];
  if (!o || tutti_algo_builtin(d) || o[0] != '/') {
    snprintf(buf, n, "%s", o ? o : "?");
    return buf;
  }
  size_t len = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
  if (len > 1 && !strncmp(o, cwd, len) && o[len] == '/')
    snprintf(buf, n, "plugin .%s", o + len);
  else
    snprintf(buf, n, "plugin %s", o);
  return buf;
}

const char *cli_coll_names(void) {
  static char buf[256];
  if (!buf[0]) {
    size_t len = 0;
    for (int c = 0; c < TUTTI_COLL_N; c++)
      len +=
          (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", c ? ", " : "", tutti_coll_name(c));
  }
  return buf;
}

char *cli_coll_with(unsigned traits, const char *last, char *buf, size_t n) {
  int k = 0, total = 0;
  for (int c = 0; c < TUTTI_COLL_N; c++) total += (tutti_coll_traits(c) & traits) == traits;
  size_t len = 0;
  buf[0] = '\0';
  for (int c = 0; c < TUTTI_COLL_N && len < n; c++) {
    if ((tutti_coll_traits(c) & traits) != traits) continue;
    const char *sep = !k ? "" : k == total - 1 ? last : ", ";
    len += (size_t)snprintf(buf + len, n - len, "%s%s", sep, tutti_coll_name(c));
    k++;
  }
  return buf;
}

char *cli_ranks_at(const double *t, int n, double at, int skip, int *count, char *buf, size_t len) {
  enum { SHOWN = 6 };
  int k = 0, total = 0;
  for (int r = 0; r < n; r++) total += r != skip && t[r] == at;
  size_t used = 0;
  buf[0] = '\0';
  for (int r = 0; r < n && k < SHOWN && used < len; r++) {
    if (r == skip || t[r] != at) continue;
    int last = k == total - 1 || (k == SHOWN - 1 && total == SHOWN);
    used += (size_t)snprintf(buf + used, len - used, "%s%d", !k ? "" : last ? " and " : ", ", r);
    k++;
  }
  if (total > SHOWN && used < len) snprintf(buf + used, len - used, " and %d more", total - SHOWN);
  if (count) *count = total;
  return buf;
}
