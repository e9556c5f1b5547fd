/* A user's program, built against an installed tutti: two ranks exchange
 * a value and reduce it with a built-in op. */
#include <stdio.h>
#include <tutti/tutti.h>

static int fn(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), other = 1 - me;
  int64_t x = 20 + me, y = 0;
  int rc = tutti_sendrecv(r, &x, 1, TUTTI_INT64, other, 0, &y, 1, TUTTI_INT64, other, 0, NULL);
  if (!rc) rc = tutti_reduce_local(&x, &y, 1, TUTTI_INT64, TUTTI_SUM);
  if (!rc && y != 41) rc = TUTTI_EVERIFY;
  return rc;
}

int main(void) {
  tutti_world_t *w;
  tutti_config_t c = tutti_config_default(2);
  int rc = tutti_world_create(&w, &c);
  if (!rc) rc = tutti_world_run(w, fn, NULL);
  if (rc)
    fprintf(stderr, "hello: %s\n", w ? tutti_world_error(w) : tutti_strerror(rc));
  else
    printf("hello from tutti %s: ok\n", TUTTI_VERSION_STRING);
  tutti_world_destroy(w);
  return rc ? 1 : 0;
}
