/* Communicators as opaque handles, the collectives of set-up over them, and
 * what the job's messages and its end need of MPI. */
#include "boot/boot_mpi.h"

#include <stdlib.h>

struct boot_comm {
    MPI_Comm mpi;
    int owned; /* freed with the handle (else the caller's) */
};

static boot_comm_t *comm_new(MPI_Comm comm, int owned)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    boot_comm_t *c = malloc(sizeof *c);
    if (!c)
        rt_oom("a communicator's handle", sizeof *c);
    c->mpi = comm;
    c->owned = owned;
    return c;
}

boot_comm_t *boot_comm_wrap(MPI_Comm comm)
{
    return comm_new(comm, 0);
}

boot_comm_t *boot_comm_own(MPI_Comm comm)
{
    return comm_new(comm, 1);
}

MPI_Comm boot_comm_mpi(const boot_comm_t *c)
{
    return c ? c->mpi : MPI_COMM_NULL;
}

void boot_comm_free(boot_comm_t *c)
{
    if (!c)
        return;
    if (c->owned)
        MPI_Comm_free(&c->mpi);
    free(c);
}

int boot_comm_rank(const boot_comm_t *c)
{
    int rank;
    MPI_Comm_rank(c->mpi, &rank);
    return rank;
}

int boot_comm_size(const boot_comm_t *c)
{
    int size;
    MPI_Comm_size(c->mpi, &size);
    return size;
}

void boot_allgather(boot_comm_t *c, const void *mine, size_t bytes, void *all)
{
    MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, c->mpi);
}

void boot_allreduce(boot_comm_t *c, boot_reduce_t op, const void *in, void *out, int count)
{
    MPI_Datatype type = MPI_INT;
    MPI_Op mop = MPI_MAX;
    switch (op) {
    case BOOT_INT_MAX: break;
    case BOOT_INT_LAND: mop = MPI_LAND; break;
    case BOOT_ULL_SUM:
        type = MPI_UNSIGNED_LONG_LONG;
        mop = MPI_SUM;
        break;
    case BOOT_LL_MAX: type = MPI_LONG_LONG; break;
    }
    MPI_Allreduce(in, out, count, type, mop, c->mpi);
}

void boot_comm_barrier(boot_comm_t *c)
{
    MPI_Barrier(c->mpi);
}

boot_comm_t *boot_comm_split(boot_comm_t *c, int color, int key)
{
    MPI_Comm comm;
    MPI_Comm_split(c->mpi, color < 0 ? MPI_UNDEFINED : color, key, &comm);
    return boot_comm_own(comm);
}

boot_comm_t *boot_comm_dup(boot_comm_t *c)
{
    MPI_Comm comm;
    MPI_Comm_dup(c->mpi, &comm);
    return boot_comm_own(comm);
}

boot_comm_t *boot_comm_create(boot_comm_t *c, int n, const int *members)
{
    MPI_Group pg, ng;
    MPI_Comm comm;
    MPI_Comm_group(c->mpi, &pg);
    MPI_Group_incl(pg, n, members, &ng);
    MPI_Comm_create(c->mpi, ng, &comm);
    MPI_Group_free(&ng);
    MPI_Group_free(&pg);
    return boot_comm_own(comm);
}

int boot_all_agree(boot_comm_t *comm, int ok)
{
    int all = 0;
    ok = ok != 0;
    boot_allreduce(comm, BOOT_INT_LAND, &ok, &all, 1);
    return all;
}

int boot_all_same(boot_comm_t *comm, int value, int *lo, int *hi)
{
    int mine[2] = {value, -value}, all[2];
    boot_allreduce(comm, BOOT_INT_MAX, mine, all, 2);
    *lo = -all[1];
    *hi = all[0];
    return *lo == *hi;
}

/* Non-zero while MPI runs (initialized and not yet finalized). */
static int boot_running(void)
{
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    return inited && !fin;
}

/* This process's rank in MPI_COMM_WORLD while MPI runs, else -1: the rank
 * that messages name before reach is up. */
static int boot_world_rank(void)
{
    int rank;
    if (boot_running() && MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS)
        return rank;
    return -1;
}

/* Ends the whole job with status while MPI runs; returns otherwise. */
static void boot_abort(int status)
{
    if (boot_running())
        MPI_Abort(MPI_COMM_WORLD, status);
}

/* Messages name the world rank, and a fatal error ends the job through MPI,
 * from the moment the library is loaded: before reach_init too. */
__attribute__((constructor)) static void boot_register(void)
{
    rt_set_job(boot_world_rank, boot_abort);
}
