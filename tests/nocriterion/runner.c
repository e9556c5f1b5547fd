/*
 * runner.c -- runs the tests registered through the stand-in criterion.h:
 * each in a forked child with an alarm at four times its .timeout, and prints the
 * same closing line as Criterion ("Synthesis: Tested: N | Passing: ...").
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "criterion/criterion.h"

int nocrit_failed;
const struct nocrit_test *nocrit_current;
static struct nocrit_test *head, **tail = &head;

/* TSan runs code 5-15 times slower: the tests' timeouts were set for
 * uninstrumented builds. */
void nocrit_rearm(void) {
  if (nocrit_current && nocrit_current->timeout > 0)
    alarm((unsigned)(4 * nocrit_current->timeout + 0.999));
}

void nocrit_skip(void) {
  fprintf(stderr, "\n");
  fflush(NULL);
  _exit(nocrit_failed ? 1 : 0);
}

void nocrit_register(struct nocrit_test *t) {
  *tail = t;
  tail = &t->next;
}

int main(int argc, char **argv) {
  int tested = 0, passed = 0, failed = 0, crashed = 0;
  const char *filter = NULL;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
  for (struct nocrit_test *t = head; t; t = t->next) {
    char full[256];
    snprintf(full, sizeof full, "%s/%s", t->suite, t->name);
    if (t->disabled || (filter && !strstr(full, filter))) continue;
    tested++;
    fflush(NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
      nocrit_current = t;
      nocrit_rearm();
      if (t->init) t->init();
      t->fn();
      if (t->fini) t->fini();
      fflush(NULL);
      _exit(nocrit_failed ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* Each test's wall time: what to scale down when CI's TSan step grows. */
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      passed++;
      printf("[PASS] %s::%s (%.1f s)\n", t->suite, t->name, secs);
    } else if (WIFEXITED(st)) {
      failed++;
      printf("[FAIL] %s::%s (exit %d, %.1f s)\n", t->suite, t->name, WEXITSTATUS(st), secs);
    } else {
      crashed++;
      printf("[FAIL] %s::%s: CRASH (signal %d%s, %.1f s)\n", t->suite, t->name, WTERMSIG(st),
             WTERMSIG(st) == SIGALRM ? ", timed out" : "", secs);
    }
  }
  printf("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d\n", tested,
         passed, failed + crashed, crashed);
  return failed + crashed ? 1 : 0;
}
