/*
 * main.h -- the commands of tutti-mpi (main.c) that live in other files of
 * bench/mpi/.
 */
#ifndef TUTTI_MPI_MAIN_H
#define TUTTI_MPI_MAIN_H

#include "tutti/mpi.h"

/* `tutti-mpi bench compare` (bench.c): collective over the rank's
 * communicator; returns a bench/CLI.md exit status, output on rank 0. */
int tutti_mpi_bench(tutti_rank_t *r, int argc, char **argv);

/* `tutti-mpi calibrate [PROFILE]` (calibrate.c): a profile of the MPI
 * library between ranks 0 and 1; same conventions. */
int tutti_mpi_calibrate(tutti_rank_t *r, int argc, char **argv);

#endif
