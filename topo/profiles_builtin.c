/*
 * profiles_builtin.c -- the latency profiles built into tutti.
 *
 * Each is INI text parsed by the same code as a profile file (profile.c),
 * so a built-in cannot hold anything a file could not, and the tests parse
 * every one of them. Each names where its numbers come from, both in a
 * comment of its text and in its `source` field (`tutti profiles` prints
 * it). The figures are rounded to what the cited sources support; they
 * describe a class of machine, not one measured run.
 */
#include <stddef.h>

#include "tutti/model.h"

#define POSTAL_SOURCE                                                                              \
  "A. Bar-Noy and S. Kipnis, \"Designing broadcasting algorithms in the postal model for "         \
  "message-passing systems\", Proc. 4th ACM SPAA, 1992, pp. 11-22"

#define POSTAL(L)                                                                                  \
  {                                                                                                \
    "postal-" #L, "postal model, latency L = " #L " steps (Bar-Noy and Kipnis)", POSTAL_SOURCE,    \
        "; postal-" #L ": the postal model with latency L = " #L " (unit: steps).\n"               \
        "; A sender is busy 1 step per message; a message arrives L steps after it\n"              \
        "; is sent. Source: " POSTAL_SOURCE ".\n"                                                  \
        "[model]\n"                                                                                \
        "preset = postal\n"                                                                        \
        "L = " #L "\n"                                                                             \
  }

static const tutti_profile_info_t builtins[] = {
    {"teaching-hockney",
     "Hockney model, alpha = 1 us, beta = 1 ns/B (1 GB/s): the default, for hand-checked examples",
     "R. W. Hockney, \"The communication challenge for MPP: Intel Paragon and Meiko CS-2\", "
     "Parallel Computing 20(3), 1994 (the model); round teaching values, not a measured "
     "machine (runtime/MODEL.md's worked examples use them)",
     "; teaching-hockney: the Hockney model t(m) = alpha + beta*m with round\n"
     "; numbers, so that modeled times can be checked by hand: a 1000-byte\n"
     "; message costs 2 us. The default profile; runtime/MODEL.md's worked examples.\n"
     "; Source: R. W. Hockney, Parallel Computing 20(3), 1994 (the model);\n"
     "; the values are teaching values, not a measured machine.\n"
     "[model]\n"
     "preset = hockney\n"
     "alpha = 1us\n"
     "beta = 1ns\n"},

    POSTAL(2),
    POSTAL(3),
    POSTAL(4),
    POSTAL(5),
    POSTAL(6),
    POSTAL(7),
    POSTAL(8),

    {"sp2-hps", "IBM SP2, High Performance Switch (TB2), MPI/MPL user space: ~40 us, ~35 MB/s",
     "M. Bernaschi and G. Iannello, \"Efficient collective communication operations in PVMe\" "
     "(the lambda-tree paper; IBM SP2 with HPS); C.-C. Chang, G. Czajkowski, C. Hawblitzel, "
     "T. von Eicken, \"Low-latency communication on the IBM RISC System/6000 SP\", SC'96 "
     "(switch ~0.5 us, close to 40 MB/s; TB2 adapter); MPL on an SP2 reported at 40 us and "
     "40 MB/s (S. Majumdar, thesis, sdsc.edu/~majumdar/thesis/node56.html); survey: J. "
     "Dongarra, T. Dunigan, \"Message-passing performance of various computers\", UT-CS-95-299",
     "; sp2-hps: IBM SP2 with the High Performance Switch (TB2 adapters),\n"
     "; message passing in user-space mode: the machine of Bernaschi and\n"
     "; Iannello's lambda-tree experiments (PVMe, up to 128 nodes with HPS).\n"
     "; The switch hardware adds ~0.5 us and moves close to 40 MB/s (Chang,\n"
     "; Czajkowski, Hawblitzel, von Eicken, SC'96); MPL on an SP2 was reported at\n"
     "; 40 us and 40 MB/s (Majumdar, thesis). We take alpha = 40 us and an\n"
     "; MPI-level 35 MB/s, a little below the link rate. Survey of the era:\n"
     "; Dongarra and Dunigan, Message-passing performance of various computers,\n"
     "; UT-CS-95-299, 1995 (Concurrency: Practice and Experience 9(10), 1997).\n"
     "[model]\n"
     "preset = hockney\n"
     "alpha = 40us\n"
     "bandwidth = 35MB/s\n"},

    {"gige", "MPI over TCP, switched Gigabit Ethernet: ~50 us, ~112 MB/s, eager below 64 KiB",
     "1 Gb/s = 125 MB/s on the wire, ~118 MB/s of TCP payload with 1500-byte frames; NW-GRID "
     "Liverpool, \"Gigabit Ethernet MPI performance tests\" (nw-grid.ac.uk/LivMPI): 23.6 us / "
     "118.2 MB/s best case, 35 us with default interrupt coalescing; eager limit: Open MPI's "
     "btl_tcp_eager_limit default, 65536",
     "; gige: MPI over TCP on switched Gigabit Ethernet.\n"
     "; 1 Gb/s is 125 MB/s on the wire; TCP over 1500-byte frames leaves about\n"
     "; 118 MB/s, and MPI ping-pong reaches about 112 MB/s. Small-message\n"
     "; latency is 25-60 us depending on the NIC's interrupt coalescing: the\n"
     "; NW-GRID (Liverpool) tests, nw-grid.ac.uk/LivMPI, saw 23.6 us and\n"
     "; 118.2 MB/s at best and 35 us with default coalescing; through the MPI\n"
     "; and TCP stacks we take 50 us. Messages below 64 KiB go eagerly, as\n"
     "; with Open MPI's TCP transport (btl_tcp_eager_limit = 65536).\n"
     "[model]\n"
     "preset = hockney\n"
     "alpha = 50us\n"
     "bandwidth = 112MB/s\n"
     "eager_limit = 64KiB\n"},

    {"infiniband-hdr", "InfiniBand HDR (200 Gb/s), RDMA MPI: ~1 us, ~24 GB/s, eager below 16 KiB",
     "HDR InfiniBand: 4 lanes x 50 Gb/s = 200 Gb/s, 25 GB/s raw; Microsoft Azure HBv3 "
     "(HDR) performance page: RDMA latency 1.2 us for 1 byte (docs.azure.cn, "
     "virtual-machines/hbv3-performance); eager limit 16 KiB: the order of the automatic "
     "UCX rendezvous threshold (a modeling choice)",
     "; infiniband-hdr: MPI over HDR InfiniBand (ConnectX-6 class, RDMA).\n"
     "; HDR runs 4 lanes at 50 Gb/s: 200 Gb/s, 25 GB/s raw; MPI bandwidth\n"
     "; tests reach about 24 GB/s. Small-message latency is about 1 us (Azure's\n"
     "; HBv3 HDR VMs list 1.2 us RDMA latency for 1 byte). Messages below\n"
     "; 16 KiB go eagerly: the order of UCX's automatic rendezvous threshold\n"
     "; (a modeling choice, not a measured constant).\n"
     "[model]\n"
     "preset = hockney\n"
     "alpha = 1us\n"
     "bandwidth = 24GB/s\n"
     "eager_limit = 16KiB\n"},

    {"shared-memory",
     "threads on one host through shared memory: ~0.4 us, ~10 GB/s (measured here)",
     "measured on tutti's development machine (a 2-core AMD EPYC virtual machine): a "
     "two-thread ping-pong through a shared buffer, best of several runs on a busy machine: "
     "0.38-0.5 us one-way for 8 bytes, 9-10 GB/s for 16 MiB (15-18 GB/s for a cache-resident "
     "1 MiB)",
     "; shared-memory: two threads on one host copying through a shared buffer.\n"
     "; Measured on tutti's development machine (a 2-core AMD EPYC VM) with a\n"
     "; two-thread ping-pong, best of several runs while the machine was busy\n"
     "; with builds (so latency is at most, bandwidth at least, this): 0.38-0.5 us\n"
     "; one-way for 8 bytes, 9-10 GB/s for 16 MiB (15-18 GB/s for 1 MiB in cache).\n"
     "; Re-measure on your own machine and adjust: it varies with the CPU.\n"
     "[model]\n"
     "preset = hockney\n"
     "alpha = 0.4us\n"
     "bandwidth = 10GB/s\n"},
};

const tutti_profile_info_t *tutti_profile_builtin(int i) {
  if (i < 0 || (size_t)i >= sizeof builtins / sizeof builtins[0]) return NULL;
  return &builtins[i];
}
