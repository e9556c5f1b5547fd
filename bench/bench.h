/*
 * bench.h -- the `tutti` command's pieces. Each benchmark is a function
 * `int tutti_bench_NAME(int argc, char **argv)` listed once in BENCHES;
 * `tutti bench` enumerates that list.
 */
#ifndef TUTTI_BENCH_H
#define TUTTI_BENCH_H

int tutti_bench_p2p(int argc, char **argv);

/* X(name, function, one-line description) */
#define TUTTI_BENCHES(X)                                                                           \
  X(p2p, tutti_bench_p2p, "p2p latency, bandwidth, message rate beside the machine's floors")

#endif
