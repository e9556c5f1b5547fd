/*
 * errtext.h -- the one helper that fills a caller's error buffer, shared by
 * the parsers of topo/ (units, models, profiles, topologies). Defined in
 * units.c, the bottom of those parsers.
 */
#ifndef TUTTI_ERRTEXT_H
#define TUTTI_ERRTEXT_H

#include <stddef.h>

/* printf into err[errlen]; does nothing when err is NULL or errlen 0. */
void tutti__seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
