/*
 * plugin.h -- algorithms from outside tutti: a shared object, or one C
 * file that tutti compiles, registers its algorithms through one entry
 * point. Once loaded they are registered algorithms like tutti's own
 * (coll.h): listed, selected by name, checked, modeled, compared and run
 * over either backend.
 *
 * A plugin describes each algorithm (coll.h's tutti_algo_desc_t, with
 * .abi = TUTTI_ALGO_ABI) and defines its entry point with TUTTI_PLUGIN:
 *
 *   #include <tutti/plugin.h>
 *   static int my_bcast(tutti_rank_t *r, void *buf, long count,
 *                       tutti_datatype_t type, int root, const tutti_algo_t *a);
 *   static const tutti_algo_desc_t desc = {.abi = TUTTI_ALGO_ABI, ...};
 *   TUTTI_PLUGIN(p) { return tutti_plugin_add(p, &desc); }
 *
 * Built with `cc -shared -fPIC -I<prefix>/include -o my.so my.c`; it
 * links no tutti library: the tutti_* calls resolve to the program that
 * loads it (libtutti or libtutti-mpi). `tutti new COLL NAME` writes a
 * working one to start from.
 *
 * Loading checks the plugin's ABI version (tutti_plugin_abi, defined by
 * TUTTI_PLUGIN) before calling anything in it, then calls its entry point;
 * the algorithms it adds are registered together when it returns 0, or
 * none of them. A plugin stays loaded for the life of the process; loading
 * the same file again does nothing.
 *
 * Threads: any thread; loads are serialized.
 */
#ifndef TUTTI_PLUGIN_H
#define TUTTI_PLUGIN_H

#include <stddef.h>

#include "tutti/coll.h"
#include "tutti/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tutti_plugin tutti_plugin_t;

/* What a plugin exports: its ABI version and its entry point. */
#define TUTTI_PLUGIN_EXPORT __attribute__((visibility("default")))
#define TUTTI_PLUGIN(p)                                                                            \
  TUTTI_PLUGIN_EXPORT extern const unsigned tutti_plugin_abi;                                      \
  TUTTI_PLUGIN_EXPORT const unsigned tutti_plugin_abi = TUTTI_ALGO_ABI;                            \
  TUTTI_PLUGIN_EXPORT int tutti_plugin_init(tutti_plugin_t *p);                                    \
  int tutti_plugin_init(tutti_plugin_t *p)

/* From the entry point: add one algorithm (d is copied at once, so it may
 * be built on the stack). Checked as tutti_algo_register checks it: 0, or
 * its error; after an error the plugin registers nothing, whatever its
 * entry point returns. */
TUTTI_API int tutti_plugin_add(tutti_plugin_t *p, const tutti_algo_desc_t *d);

/* Load a plugin: a shared object, or a C file (".c"), which is first
 * compiled with the system's C compiler ($CC, else cc) against tutti's
 * headers into a cache (tutti_plugin_compile). 0, or an error with one
 * sentence in err naming the file: TUTTI_EIO (no such file, not a shared
 * object, a C file that does not compile -- the compiler's messages went
 * to stderr -- or no C compiler), TUTTI_EINVAL (not a tutti plugin: no
 * entry point; an ABI version from another tutti; its entry point failed;
 * an algorithm it adds does not register, e.g. a name its collective
 * already has), TUTTI_ENOMEM. */
TUTTI_API int tutti_plugin_load(const char *path, char *err, size_t errlen);

/* Load every plugin of a colon-separated list (TUTTI_PLUGINS' form;
 * empty items are skipped), stopping at the first error. NULL or "": none. */
TUTTI_API int tutti_plugin_load_list(const char *list, char *err, size_t errlen);

/* Compile a C file into the cache: so gets the shared object's path. The
 * cache is $TUTTI_CACHE_DIR, else $XDG_CACHE_HOME/tutti, else
 * ~/.cache/tutti; an object is keyed by the file's content, tutti's
 * version and headers, so the same file again compiles nothing (*compiled
 * = 0; 1 when it compiled). Errors as tutti_plugin_load's. */
TUTTI_API int tutti_plugin_compile(const char *src, char *so, size_t n, int *compiled, char *err,
                                   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_PLUGIN_H */
