/*
 * plugin.c -- algorithms from outside tutti (plugin.h): a shared object
 * whose entry point adds algorithms, registered together or not at all;
 * or one C file, compiled first with the system's C compiler against
 * tutti's headers into a cache keyed by the file's content, tutti's
 * version and its headers.
 *
 * A plugin's origin (tutti_algo_origin) is its file's real path, which is
 * also what makes a second load of the same file do nothing. Plugins stay
 * loaded: their algorithms may be running anywhere.
 *
 * Threads: loads hold one (recursive) lock, so an entry point may load
 * another plugin; registration takes the registry's own lock.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algo.h"
#include "engine.h"
#include "tutti/coll.h"
#include "tutti/plugin.h"

extern char **environ;

/* ------------------------------------------------------------- the entry */

#define PLUGIN_ALGOS 256 /* algorithms one plugin may add */

struct tutti_plugin {
  const char *file; /* for messages */
  tutti_algo_desc_t *d[PLUGIN_ALGOS];
  int n, failed; /* failed: the first error's code (TUTTI_EINVAL, TUTTI_ENOMEM) */
  char err[512];
};

int tutti_plugin_add(tutti_plugin_t *p, const tutti_algo_desc_t *d) {
  if (!p) return TUTTI_EINVAL;
  if (p->failed) return TUTTI_EINVAL; /* the first error stands */
  char err[512];
  int rc = 0;
  tutti_algo_desc_t *c = NULL;
  if (p->n == PLUGIN_ALGOS) {
    snprintf(err, sizeof err, "more than %d algorithms; accepted: at most %d", PLUGIN_ALGOS,
             PLUGIN_ALGOS);
    rc = TUTTI_EINVAL;
  } else if ((rc = tutti__desc_check(d, err, sizeof err)) == 0 && (rc = tutti__desc_dup(d, &c))) {
    snprintf(err, sizeof err, "out of memory");
  }
  if (rc) {
    p->failed = rc;
    snprintf(p->err, sizeof p->err, "%s", err);
    return rc;
  }
  p->d[p->n++] = c;
  return 0;
}

/* ------------------------------------------------------------- loading */

static struct loaded {
  char *real;
  struct loaded *next;
} * loaded;
static pthread_mutex_t load_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static int is_loaded(const char *real) {
  for (const struct loaded *l = loaded; l; l = l->next)
    if (!strcmp(l->real, real)) return 1;
  return 0;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n > t && !strcmp(s + n - t, tail);
}

/* The shared object at so, from file (its origin: a real path), loaded
 * and its algorithms registered. Holding load_lock. */
static int load_so(const char *file, const char *so, const char *real, char *err, size_t errlen) {
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    if (why && strstr(why, "allocate memory")) { /* the loader ran out of memory */
      tutti__errf(err, errlen, "%s: out of memory (%s)", file, why);
      return TUTTI_ENOMEM;
    }
    tutti__errf(err, errlen, "%s: not a shared object tutti can load (%s)", file, why ? why : "?");
    return TUTTI_EIO;
  }
  const unsigned *abi = dlsym(h, "tutti_plugin_abi");
  int (*init)(tutti_plugin_t *) = (int (*)(tutti_plugin_t *))dlsym(h, "tutti_plugin_init");
  if (!abi || !init) {
    tutti__errf(err, errlen,
                "%s: not a tutti plugin: it defines no %s; accepted: a plugin whose entry point is "
                "written with TUTTI_PLUGIN (tutti/plugin.h)",
                file, abi ? "tutti_plugin_init" : "tutti_plugin_abi");
    dlclose(h);
    return TUTTI_EINVAL;
  }
  if (*abi != TUTTI_ALGO_ABI) {
    tutti__errf(
        err, errlen,
        "%s: plugin ABI version %u is %s this tutti's; accepted: %d (rebuild it against this "
        "tutti's headers)",
        file, *abi, *abi > TUTTI_ALGO_ABI ? "newer than" : "older than", TUTTI_ALGO_ABI);
    dlclose(h);
    return TUTTI_EINVAL;
  }
  tutti_plugin_t *p = calloc(1, sizeof *p);
  char *origin = strdup(real);
  struct loaded *l = malloc(sizeof *l);
  int rc = 0;
  if (!p || !origin || !l) {
    tutti__errf(err, errlen, "%s: out of memory", file);
    rc = TUTTI_ENOMEM;
    goto out;
  }
  p->file = file;
  int ret = init(p);
  if (p->failed) {
    tutti__errf(err, errlen, "%s: %s", file, p->err);
    rc = p->failed;
  } else if (ret != 0) {
    tutti__errf(err, errlen, "%s: its entry point tutti_plugin_init returned %d, not 0", file, ret);
    rc = TUTTI_EINVAL;
  } else if (p->n == 0) {
    tutti__errf(err, errlen,
                "%s: its entry point added no algorithm; accepted: tutti_plugin_add(p, &desc)",
                file);
    rc = TUTTI_EINVAL;
  } else {
    char why[512];
    rc = tutti__register_all((const tutti_algo_desc_t *const *)p->d, p->n, origin, why, sizeof why);
    if (rc) tutti__errf(err, errlen, "%s: %s", file, why);
  }
out:
  for (int i = 0; p && i < p->n; i++) {
    if (rc)
      tutti__desc_free(p->d[i]);
    else
      free(p->d[i]); /* the entries hold its strings now */
  }
  free(p);
  if (rc) {
    free(origin);
    free(l);
    dlclose(h);
    return rc;
  }
  l->real = origin;
  l->next = loaded;
  loaded = l;
  return 0;
}

int tutti_plugin_load(const char *path, char *err, size_t errlen) {
  if (!path || !*path) {
    tutti__errf(err, errlen, "no plugin file given");
    return TUTTI_EINVAL;
  }
  char real[PATH_MAX], so[PATH_MAX];
  struct stat st;
  if (stat(path, &st) || !realpath(path, real)) {
    int e = errno;
    tutti__errf(err, errlen, "%s: %s", path, strerror(e));
    return e == ENOMEM ? TUTTI_ENOMEM : TUTTI_EIO;
  }
  if (S_ISDIR(st.st_mode)) {
    tutti__errf(err, errlen,
                "%s: a directory, not a plugin; accepted: a shared object or a .c file", path);
    return TUTTI_EIO;
  }
  pthread_mutex_lock(&load_lock);
  int rc = 0;
  if (!is_loaded(real)) {
    if (ends_with(path, ".c"))
      rc = tutti_plugin_compile(path, so, sizeof so, NULL, err, errlen);
    else
      snprintf(so, sizeof so, "%s", real);
    if (!rc) rc = load_so(path, so, real, err, errlen);
  }
  pthread_mutex_unlock(&load_lock);
  return rc;
}

int tutti_plugin_load_list(const char *list, char *err, size_t errlen) {
  for (const char *s = list; s && *s;) {
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    if (n) {
      char path[PATH_MAX];
      if (n >= sizeof path) {
        tutti__errf(err, errlen, "a plugin path of %zu characters; accepted: fewer than %d", n,
                    PATH_MAX);
        return TUTTI_EINVAL;
      }
      memcpy(path, s, n);
      path[n] = '\0';
      int rc = tutti_plugin_load(path, err, errlen);
      if (rc) return rc;
    }
    s = colon ? colon + 1 : s + n;
  }
  return 0;
}

int tutti__plugin_algo(int coll, const char *path, const tutti_algo_desc_t **out, char *err,
                       size_t errlen) {
  char real[PATH_MAX];
  int rc = tutti_plugin_load(path, err, errlen);
  if (rc) return rc;
  if (!realpath(path, real)) {
    int e = errno;
    tutti__errf(err, errlen, "%s: %s", path, strerror(e));
    return e == ENOMEM ? TUTTI_ENOMEM : TUTTI_EIO;
  }
  const tutti_algo_desc_t *d, *hit = NULL;
  char mine[256] = "", others[256] = "";
  int n = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    const char *o = tutti_algo_origin(d);
    if (!o || strcmp(o, real)) continue;
    char *list = d->coll == coll ? mine : others;
    size_t used = strlen(list);
    if (d->coll == coll) hit = d, n++;
    if (d->coll == coll)
      snprintf(list + used, sizeof mine - used, "%s%s", used ? ", " : "", d->name);
    else
      snprintf(list + used, sizeof others - used, "%s%s '%s'", used ? ", " : "",
               tutti_coll_name(d->coll), d->name);
  }
  if (n == 1) {
    *out = hit;
    return 0;
  }
  if (n == 0)
    tutti__errf(err, errlen, "%s registers no %s algorithm (it registers %s)", path,
                tutti_coll_name(coll), others);
  else
    tutti__errf(
        err, errlen,
        "%s registers %d %s algorithms (%s); accepted: one of their names, with the plugin loaded",
        path, n, tutti_coll_name(coll), mine);
  return TUTTI_ENOTFOUND;
}

/* ------------------------------------------------------------- compiling */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

/* A whole file's bytes (malloc'd, *n of them), or NULL with errno. */
static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t k = fread(buf + len, 1, cap - len, f);
    len += k;
    if (len < cap) break;
    char *g = realloc(buf, cap *= 2);
    if (!g) free(buf);
    buf = g;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  *n = len;
  return buf;
}

/* tutti's headers: where the installation puts them, relative to the
 * library (TUTTI_LIB_TO_INCLUDE: ../include, or ../../include beside a
 * multiarch libdir), else the source tree the library was built from. */
static int include_dir(char *out, size_t n) {
  Dl_info info;
  struct stat st;
  char probe[PATH_MAX + 32], lib[PATH_MAX];
  if (dladdr((void *)tutti_plugin_compile, &info) && info.dli_fname &&
      realpath(info.dli_fname, lib)) {
    char *slash = strrchr(lib, '/');
    if (slash) *slash = '\0';
    if ((size_t)snprintf(out, n, "%s/%s", lib, TUTTI_LIB_TO_INCLUDE) < n) {
      snprintf(probe, sizeof probe, "%s/tutti/plugin.h", out);
      if (!stat(probe, &st) && realpath(out, lib)) return snprintf(out, n, "%s", lib) < 0;
    }
  }
  snprintf(out, n, "%s", TUTTI_SOURCE_INCLUDE);
  snprintf(probe, sizeof probe, "%s/tutti/plugin.h", out);
  return stat(probe, &st) ? -1 : 0;
}

/* The hash of every header tutti/ holds (in any order: each file's hash
 * is summed). */
static uint64_t headers_hash(const char *inc) {
  char dir[PATH_MAX + 8];
  snprintf(dir, sizeof dir, "%s/tutti", inc);
  DIR *d = opendir(dir);
  uint64_t sum = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!ends_with(e->d_name, ".h")) continue;
    char path[PATH_MAX + 300];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *b = slurp(path, &n);
    if (b) sum += fnv(fnv(0xcbf29ce484222325ull, e->d_name, strlen(e->d_name)), b, n);
    free(b);
  }
  if (d) closedir(d);
  return sum;
}

static int mkdirs(const char *path) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0755) && errno != EEXIST) return -1;
      *s = '/';
    }
  return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

static int cache_dir(char *out, size_t n) {
  const char *t = getenv("TUTTI_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (t && *t)
    snprintf(out, n, "%s", t);
  else if (x && *x)
    snprintf(out, n, "%s/tutti", x);
  else if (h && *h)
    snprintf(out, n, "%s/.cache/tutti", h);
  else
    snprintf(out, n, "/tmp/tutti-cache-%u", (unsigned)getuid());
  return mkdirs(out);
}

/* Whether `prog` (a name, or a path with a '/') can be run. */
static int runnable(const char *prog) {
  if (strchr(prog, '/')) return access(prog, X_OK) == 0;
  const char *path = getenv("PATH");
  for (const char *s = path; s && *s;) {
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%.*s/%s", (int)n, n ? s : ".", prog);
    if (access(full, X_OK) == 0) return 1;
    s = colon ? colon + 1 : s + n;
  }
  return 0;
}

#define CC_WORDS 16

/* The compiler's words: $CC split at spaces, else cc, gcc or clang,
 * whichever is on the PATH first. 0, or -1 with the sentence (about src). */
static int compiler(const char *src, char *buf, size_t n, char **argv, int *argc, char *err,
                    size_t errlen) {
  const char *cc = getenv("CC");
  *argc = 0;
  if (cc && *cc) {
    snprintf(buf, n, "%s", cc);
    for (char *s = strtok(buf, " \t"); s && *argc < CC_WORDS; s = strtok(NULL, " \t"))
      argv[(*argc)++] = s;
    if (*argc && runnable(argv[0])) return 0;
    tutti__errf(err, errlen,
                "%s: no C compiler to build it: $CC is '%s', which is not a program on the PATH; "
                "accepted: a C compiler (Debian: apt-get install gcc)",
                src, cc);
    return -1;
  }
  static const char *const names[] = {"cc", "gcc", "clang"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (runnable(names[i])) {
      snprintf(buf, n, "%s", names[i]);
      argv[(*argc)++] = buf;
      return 0;
    }
  tutti__errf(
      err, errlen,
      "%s: no C compiler to build it: $CC is not set and neither cc, gcc nor clang is on the "
      "PATH; install one (Debian: apt-get install gcc)",
      src);
  return -1;
}

int tutti_plugin_compile(const char *src, char *so, size_t n, int *compiled, char *err,
                         size_t errlen) {
  char inc[PATH_MAX], dir[PATH_MAX], ccbuf[1024], *cc[CC_WORDS];
  int ncc;
  size_t len;
  if (compiled) *compiled = 0;
  if (!src || !so || !n) {
    tutti__errf(err, errlen, "no C file given");
    return TUTTI_EINVAL;
  }
  char *text = slurp(src, &len);
  if (!text) {
    tutti__errf(err, errlen, "%s: %s", src, strerror(errno));
    return TUTTI_EIO;
  }
  if (include_dir(inc, sizeof inc)) {
    free(text);
    tutti__errf(err, errlen,
                "%s: tutti's headers are not found (looked beside the library and in %s)", src,
                TUTTI_SOURCE_INCLUDE);
    return TUTTI_EIO;
  }
  uint64_t h = fnv(0xcbf29ce484222325ull, text, len);
  free(text);
  h = fnv(h, TUTTI_VERSION_TEXT, sizeof TUTTI_VERSION_TEXT);
  h = fnv(h, inc, strlen(inc)) + headers_hash(inc);
  if (cache_dir(dir, sizeof dir)) {
    tutti__errf(err, errlen, "%s: the cache %s cannot be made: %s (set TUTTI_CACHE_DIR)", src, dir,
                strerror(errno));
    return TUTTI_EIO;
  }
  /* the object's name: the file's, then the key */
  const char *base = strrchr(src, '/');
  base = base ? base + 1 : src;
  char stem[64];
  size_t k = 0;
  for (const char *c = base; *c && k + 1 < sizeof stem && strcmp(c, ".c"); c++)
    stem[k++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                               (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'
                           ? *c
                           : '_');
  stem[k] = '\0';
  if ((size_t)snprintf(so, n, "%s/%s-%016llx.so", dir, stem, (unsigned long long)h) >= n) {
    tutti__errf(err, errlen, "%s: the cache path is too long", src);
    return TUTTI_EINVAL;
  }
  if (access(so, R_OK) == 0) return 0; /* compiled before */
  if (compiler(src, ccbuf, sizeof ccbuf, cc, &ncc, err, errlen)) return TUTTI_EIO;
  char tmp[PATH_MAX + 64], incflag[PATH_MAX + 4];
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", so, (int)getpid());
  snprintf(incflag, sizeof incflag, "-I%s", inc);
  char *argv[CC_WORDS + 16];
  int a = 0;
  for (int i = 0; i < ncc; i++) argv[a++] = cc[i];
  char *flags[] = {"-shared", "-fPIC", "-O2", "-g", "-std=gnu11",
                   "-Wall",   incflag, "-o",  tmp,  (char *)src};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) argv[a++] = flags[i];
  argv[a] = NULL;
  pid_t pid;
  int st = 0, sp = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (sp) {
    tutti__errf(err, errlen, "%s: the compiler %s cannot be started: %s", src, argv[0],
                strerror(sp));
    return TUTTI_EIO;
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    unlink(tmp);
    if (WIFEXITED(st))
      tutti__errf(err, errlen, "%s: does not compile (%s exited with %d; its messages are above)",
                  src, argv[0], WEXITSTATUS(st));
    else
      tutti__errf(err, errlen, "%s: does not compile (%s was killed by signal %d)", src, argv[0],
                  WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return TUTTI_EIO;
  }
  if (rename(tmp, so)) {
    tutti__errf(err, errlen, "%s: %s: %s", src, so, strerror(errno));
    unlink(tmp);
    return TUTTI_EIO;
  }
  if (compiled) *compiled = 1;
  return 0;
}
