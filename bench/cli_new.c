/*
 * cli_new.c -- `tutti new COLL NAME [FILE]`: write a working algorithm of
 * COLL to start from, as one C file that tutti compiles and loads as a
 * plugin (plugin.h): templates/COLL.c with its name, template_algo,
 * replaced by NAME (as a C identifier where it names functions).
 *
 * Exit: 0 written, 2 bad usage (an unknown collective, a bad name, a FILE
 * that exists), 3 the file could not be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "templates.inc"

#define NEW_OPTS CLI_O(HELP)

static const char *template_of(const char *coll) {
  for (size_t i = 0; i < sizeof templates / sizeof *templates; i++)
    if (!strcmp(templates[i].coll, coll)) return templates[i].text;
  return NULL;
}

/* A name the registry takes: letters, digits, '-' and '_', not starting
 * with '-' or a digit (it also names C functions), at most 64. */
static int good_name(const char *s) {
  if (!*s || strlen(s) > 64 || *s == '-' || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '-'))
      return 0;
  return 1;
}

/* The template with "template_algo.c" made the file's name, the string
 * "template_algo" the algorithm's name, and the identifier template_algo
 * its C spelling ('-' becomes '_'). */
static char *instantiate(const char *text, const char *name, const char *file) {
  static const char key[] = "template_algo", keyfile[] = "template_algo.c";
  size_t klen = sizeof key - 1, kflen = sizeof keyfile - 1, n = 0;
  size_t cap = strlen(text) * 2 + strlen(file) * 64 + 4096;
  char *out = malloc(cap), id[80];
  if (!out) return NULL;
  snprintf(id, sizeof id, "%s", name);
  for (char *c = id; *c; c++)
    if (*c == '-') *c = '_';
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  int quoted = 0;
  for (const char *s = text; *s;) {
    int isfile = !strncmp(s, keyfile, kflen);
    if (isfile || !strncmp(s, key, klen)) {
      const char *with = isfile ? base : quoted ? name : id;
      size_t w = strlen(with);
      if (n + w + 1 >= cap) break;
      memcpy(out + n, with, w), n += w, s += isfile ? kflen : klen;
      continue;
    }
    if (*s == '"') quoted = !quoted;
    if (*s == '\n') quoted = 0;
    if (n + 2 >= cap) break;
    out[n++] = *s++;
  }
  out[n] = '\0';
  return out;
}

int tutti_cli_new(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("new", NEW_OPTS, 3, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti new COLL NAME [FILE]\n\n"
           "Write a working algorithm of COLL (%s) named NAME to FILE (default\n"
           "NAME.c), to change into your own: one C file, with its idea, source and\n"
           "Hockney cost in its header comment, a cost function, and the plugin entry\n"
           "point. tutti compiles and loads it wherever an algorithm name goes:\n"
           "  tutti run COLL ./NAME.c -n 16      tutti check COLL ./NAME.c\n"
           "FILE is never overwritten.\n\noptions:\n",
           cli_coll_names());
    cli_print_options(stdout, NEW_OPTS);
    return 0;
  }
  if (o.npos < 2)
    return cli_fail(CLI_EUSAGE, "new", "missing %s; accepted: tutti new COLL NAME [FILE]",
                    o.npos ? "NAME" : "COLL and NAME");
  int coll;
  const char *text = template_of(o.pos[0]);
  if (tutti_coll_find(o.pos[0], &coll) || !text)
    return cli_fail(CLI_EUSAGE, "new", "unknown collective '%s'; accepted: %s", o.pos[0],
                    cli_coll_names());
  const char *name = o.pos[1];
  if (!good_name(name))
    return cli_fail(CLI_EUSAGE, "new",
                    "bad name '%s'; accepted: letters, digits, '-' and '_', starting with a "
                    "letter or '_', at most 64",
                    name);
  if (tutti_algo_desc_find(coll, name))
    return cli_fail(CLI_EUSAGE, "new", "%s '%s' is registered already (%s); accepted: a new name",
                    o.pos[0], name, tutti_algo_origin(tutti_algo_desc_find(coll, name)));
  char file[4096];
  snprintf(file, sizeof file, "%s", o.npos > 2 ? o.pos[2] : "");
  if (!*file) snprintf(file, sizeof file, "%s.c", name);
  char *src = instantiate(text, name, file);
  if (!src) return cli_fail(CLI_ERUNTIME, "new", "%s", tutti_strerror(TUTTI_ENOMEM));
  struct cli_out out; /* FILE: never replaced, so linked into place, not renamed */
  if ((st = cli_out_open(&out, "new", "FILE", file, CLI_OUT_FRESH))) {
    free(src);
    return st;
  }
  fputs(src, out.f);
  free(src);
  if ((st = cli_out_commit(&out))) return st;
  char shown[4200];
  snprintf(shown, sizeof shown, "%s%s", strchr(file, '/') ? "" : "./", file);
  printf("wrote %s: %s '%s', a working %s to start from (its header says how it works)\n", file,
         o.pos[0], name, o.pos[0]);
  printf("  tutti run %s %s -n 16                  run it, verified\n", o.pos[0], shown);
  printf("  tutti check %s %s                      every rank count, root and size; its cost\n",
         o.pos[0], shown);
  printf("  tutti compare %s %s %s -n 16 --html page.html\n", o.pos[0],
         tutti_algo_desc_default(coll)->name, shown);
  return 0;
}
