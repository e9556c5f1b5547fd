/*
 * export.h -- TUTTI_API, the mark of a public declaration.
 *
 * libtutti.so is built with -fvisibility=hidden, so only what carries
 * TUTTI_API is exported: the internals (tutti__*, the engine, the replay)
 * stay private to the library, and calls between them bind locally. A user
 * includes this through tutti/tutti.h and needs to define nothing.
 */
#ifndef TUTTI_EXPORT_H
#define TUTTI_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define TUTTI_API __attribute__((visibility("default")))
#else
#define TUTTI_API
#endif

#endif /* TUTTI_EXPORT_H */
