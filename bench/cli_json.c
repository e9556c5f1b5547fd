/*
 * cli_json.c -- the JSON writers of the collective commands (cli.h): a
 * string, a number, an algorithm's parameters. Apart from cli_run.c so
 * that tutti-mpi (bench/mpi/main.c), which links the command's option
 * parsing and lists without the thread world, writes the same JSON.
 */
#include <math.h>
#include <stdio.h>

#include "cli.h"

void cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

void cli_json_num(FILE *f, double x) {
  if (!isfinite(x)) {
    fputs("null", f);
    return;
  }
  char buf[32];
  fputs(tutti_format_shortest(x, buf, sizeof buf), f);
}

void cli_json_params(FILE *f, const tutti_algo_t *a) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  fputc('{', f);
  for (int i = 0; d && i < d->nparams; i++) {
    const tutti_param_desc_t *p = &d->params[i];
    if (i) fputc(',', f);
    cli_json_str(f, p->name);
    fputc(':', f);
    char text[TUTTI_PARAM_LIST_MAX + 32];
    if (tutti_algo_param_is_auto(a, i))
      cli_json_str(f, "auto");
    else if (p->type == TUTTI_PARAM_CHOICE) /* a word: "dfs", "list:0,2,1" */
      cli_json_str(f, (tutti_algo_param_text(a, i, text, sizeof text), text));
    else
      cli_json_num(f, tutti_algo_param_at(a, i));
  }
  fputc('}', f);
}

void cli_json_algo(FILE *f, const tutti_algo_desc_t *d, const tutti_algo_t *a) {
  char spec[256] = "";
  tutti_algo_format(a, spec, sizeof spec); /* "" when a is NULL: not selected */
  fputs("\"collective\":", f);
  cli_json_str(f, tutti_coll_name(d->coll));
  fputs(",\"algorithm\":", f);
  cli_json_str(f, d->name);
  fputs(",\"algorithm_spec\":", f);
  cli_json_str(f, spec);
  fputs(",\"params\":", f);
  cli_json_params(f, a);
}
