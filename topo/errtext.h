/*
 * errtext.h -- what the parsers of topo/ (units, models, costs, profiles,
 * topologies) share: the helper that fills a caller's error buffer
 * (defined in units.c, the bottom of those parsers) and blanks.
 */
#ifndef TUTTI_ERRTEXT_H
#define TUTTI_ERRTEXT_H

#include <stddef.h>
#include <string.h>

/* printf into err[errlen]; does nothing when err is NULL or errlen 0. */
void tutti__seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A space or a tab. */
static inline int tutti__is_blank(char c) {
  return c == ' ' || c == '\t';
}

/* s[0..*len) without its leading and trailing blanks. */
static inline void tutti__trim(const char **s, size_t *len) {
  while (*len > 0 && tutti__is_blank(**s)) (*s)++, (*len)--;
  while (*len > 0 && tutti__is_blank((*s)[*len - 1])) (*len)--;
}

/* A value that must be a plain number (postal steps): digits, '.', an
 * exponent, spaces; no unit. */
static inline int tutti__plain_number(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (!strchr("0123456789.eE+- \t", s[i])) return 0;
  return 1;
}

struct tutti_model;
/* The model's detached_limit against its eager_limit (runtime/MODEL.md):
 * 0, or above a finite eager_limit (else no rendezvous message is under
 * it). 0, or TUTTI_EINVAL with "WHAT<value and why>; accepted: ..." in
 * err, WHAT naming the field. model.c; config.c checks with it too. */
int tutti__model_protocol_check(const struct tutti_model *m, const char *what, char *err,
                                size_t errlen);

#endif
