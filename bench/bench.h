/*
 * bench.h -- the `tutti` command's pieces. Each benchmark is a function
 * `int tutti_bench_NAME(int argc, char **argv)` listed once in BENCHES;
 * `tutti bench` enumerates that list.
 */
#ifndef TUTTI_BENCH_H
#define TUTTI_BENCH_H

int tutti_bench_p2p(int argc, char **argv);
int tutti_bench_replay(int argc, char **argv);
int tutti_bench_contention(int argc, char **argv);
int tutti_bench_lambda(int argc, char **argv);

/* X(name, function, one-line description) */
#define TUTTI_BENCHES(X)                                                                           \
  X(p2p, tutti_bench_p2p, "p2p latency, bandwidth, message rate beside the machine's floors")      \
  X(replay, tutti_bench_replay, "events per second of the replay engine on synthetic event logs")  \
  X(contention, tutti_bench_contention,                                                            \
    "replay time with link contention vs without (a 1024-rank pipelined chain on tree:32x32)")     \
  X(lambda, tutti_bench_lambda,                                                                    \
    "Bernaschi & Iannello's experiment: 10 reduces, rotating root, lambda-tree vs binomial")

#endif
