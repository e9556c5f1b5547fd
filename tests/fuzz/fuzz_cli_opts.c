/*
 * fuzz_cli_opts.c -- libFuzzer target: the `tutti` command's option parser
 * (bench/cli_opts.c, cli_world.c) on random command lines, with the
 * stated limits (bench/CLI.md, include/tutti/world.h) as the oracle. The
 * input is one argument a line; the first line picks the command whose
 * parse it is (run, compare, sweep, suite, explain, tune, check; anything
 * else: run), the rest are its words. What a command does before its
 * worlds runs without one: cli_parse_world (the options, then the
 * library's tutti_config_check of the environment they leave), the
 * --ranks and --sizes lists, the algorithm and its parameters
 * (tutti_algo_select) and cli_job_check at every root the calls take.
 *
 * It aborts (a failure, like a crash) when the parser accepts a value
 * past its limit -- ranks 1..2^20, a stack within PTHREAD_STACK_MIN..
 * TUTTI_MAX_STACK, iterations and --max-events >= 1, --realtime in
 * (0, 1e9], list values within their maximum and at most 4096 of them --
 * when the library refuses what the parser accepted (the two limits
 * disagree), when cli_count_pos counts other positionals than the parse
 * found, or when an error is anything but one line "tutti CMD: ..." with
 * no control byte and no byte outside valid UTF-8 (a success: nothing).
 *
 * Skipped: --plugin (it loads files) and algorithm names or parameters
 * that name a file (fuzz.h); cli_job_check for more than 4096 ranks (a
 * rotating root checks up to one call per rank: the check is what is
 * fuzzed, not its scale).
 */
#include <limits.h>
#include <math.h>

#include "cli.h"
#include "fuzz.h"

enum { MAX_WORDS = 64 };

static void fail(const char *what, const char *line) {
  fprintf(stderr, "fuzz_cli_opts: %s: %s\n", what, line ? line : "");
  abort();
}

/* 1 if s (len bytes) is one line as cli_fail writes it. */
static int one_line(const char *s, size_t len) {
  if (len < 8 || strncmp(s, "tutti", 5) || s[len - 1] != '\n') return 0;
  for (size_t i = 0; i + 1 < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f) return 0;
    if (c < 0x80) continue;
    /* a UTF-8 sequence, checked by mbrtowc's rules written out */
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (!n || i + n > len - 1) return 0;
    unsigned long cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < n; k++) {
      unsigned char d = (unsigned char)s[i + k];
      if ((d & 0xc0) != 0x80) return 0;
      cp = cp << 6 | (d & 0x3f);
    }
    unsigned long least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < least || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0) return 0;
    i += n - 1;
  }
  return 1;
}

/* Run fn's parse with stderr in memory; check the output against rc. */
#define CAPTURED(rc, call)                                                                         \
  do {                                                                                             \
    char *out_ = NULL;                                                                             \
    size_t len_ = 0;                                                                               \
    FILE *saved_ = stderr, *mem_ = open_memstream(&out_, &len_);                                   \
    if (!mem_) abort();                                                                            \
    stderr = mem_;                                                                                 \
    (rc) = (call);                                                                                 \
    stderr = saved_;                                                                               \
    fclose(mem_);                                                                                  \
    if ((rc) && !one_line(out_, len_)) fail("an error that is not one clean line", out_);          \
    if (!(rc) && len_) fail("a success that printed", out_);                                       \
    free(out_);                                                                                    \
  } while (0)

/* The commands' positionals, and whether --ranks is a list there (a
 * command with --sizes, or check) or a count. */
static const struct {
  const char *name;
  int maxpos, lists;
} commands[] = {{"run", 2, 0},   {"compare", CLI_MAX_POS, 0}, {"sweep", 1, 1},
                {"suite", 0, 1}, {"explain", 2, 0},           {"tune", 1, 1},
                {"check", 0, 1}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *f[MAX_WORDS + 1];
  fuzz_lines(text, f, MAX_WORDS + 1);
  int argc = 0;
  while (argc < MAX_WORDS && (f[argc + 1][0] || f[argc + 1] != text + size)) argc++;
  char **argv = f + 1;
  int cmd = 0;
  for (int i = 0; i < (int)(sizeof commands / sizeof *commands); i++)
    if (!strcmp(f[0], commands[i].name)) cmd = i;
  const char *name = commands[cmd].name;
  for (int a = 0; a < argc; a++)
    if (!strncmp(argv[a], "--plugin", 8) || fuzz_names_a_file(argv[a])) goto out;

  uint64_t all = 0;
  for (int i = 0; i < CLI_NOPTS; i++) all |= UINT64_C(1) << i;
  uint64_t accepted = all & ~CLI_O(PLUGIN) & ~(commands[cmd].lists ? 0 : CLI_O(SIZES));
  struct cli_opts o;
  int rc;
  CAPTURED(rc, cli_parse(name, accepted, commands[cmd].maxpos, argc, argv, &o));
  if (rc || (o.given & CLI_O(HELP))) goto out;
  /* the rest of cli_parse_world: the library's check of what the options
   * leave (run.sh clears the environment, so only they can be at fault) */
  CAPTURED(rc, cli_world_env(name, &o));
  if (rc) fail("the library refuses what the parser accepted", argv[0]);

  /* the limits the options were held to */
  char line[128];
  snprintf(line, sizeof line, "ranks %d, stack %zu, iters %d, root %d", o.nranks, o.stack, o.iters,
           o.root);
  if (o.nranks < 1 || o.nranks > TUTTI_MAX_RANKS) fail("ranks past 1..2^20 accepted", line);
  if (o.stack && (o.stack < (size_t)PTHREAD_STACK_MIN || o.stack > TUTTI_MAX_STACK))
    fail("a stack past its limits accepted", line);
  if (o.iters < 1 || o.root < 0) fail("iterations or a root out of range accepted", line);
  if (o.max_events == UINT32_MAX) fail("--max-events past its limit accepted", line);
  if (o.realtime && !(o.realtime > 0 && o.realtime <= 1e9)) fail("a --realtime scale", line);
  if (cli_count_pos(argc, argv) != o.npos) fail("cli_count_pos differs from the parse", line);

  /* the lists, as sweep, suite and check read them */
  if (o.ranks_list) {
    int *r = NULL, n = 0, max = 16384;
    CAPTURED(rc, cli_parse_ranks(name, o.ranks_list, max, &r, &n));
    for (int i = 0; !rc && i < n; i++)
      if (r[i] < 1 || r[i] > max) fail("a rank count past the list's maximum", o.ranks_list);
    if (!rc && (n < 1 || n > 4096)) fail("a list of more than 4096 values", o.ranks_list);
    free(r);
  }
  if (o.sizes) {
    size_t *s = NULL;
    int n = 0;
    CAPTURED(rc, cli_parse_sizes(name, o.sizes, &s, &n));
    if (!rc && (n < 1 || n > 4096)) fail("a list of more than 4096 values", o.sizes);
    free(s);
  }

  /* the job: COLL ALGO with --param, checked at every root its calls take */
  int coll;
  if (o.npos >= 2 && !tutti_coll_find(o.pos[0], &coll) && o.nranks <= 4096 && o.root < o.nranks) {
    struct cli_job j = {.coll = coll, .iters = o.iters, .root = o.root};
    j.rotate = (o.given & CLI_O(ROTATE)) != 0;
    char err[1024];
    if (!tutti_algo_select(coll, o.pos[1], o.params, &j.algo, err, sizeof err)) {
      if (tutti_coll_traits(coll) & TUTTI_COLL_REDUCES) j.op = TUTTI_SUM;
      size_t bytes = tutti_coll_traits(coll) & TUTTI_COLL_DATA ? o.bytes : 0;
      CAPTURED(rc, cli_job_check(name, &j, o.nranks, bytes));
    }
  }
out:
  free(text);
  return 0;
}
