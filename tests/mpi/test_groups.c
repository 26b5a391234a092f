/* Groups through armci.h, armcix.h and reach.h: nested and overlapping
 * groups, collective allocation on a subgroup while the other ranks do
 * other work, the default group, group fences and barriers, the handles of
 * processes outside a group and the group of no members, the handle's
 * fields as Global Arrays built against ARMCI-MPI's header reads them
 * (comm, rank, size, grp_to_abs, abs_to_grp), ARMCIX split, dup and mutex
 * handles (trylock that does not wait). */
#include "mpi_check.h"
#include "armci.h"
#include "armcix.h"
#include "message.h"
#include "reach.h"

#include <string.h>

static int me, np;

/* Whether this process is in group g, found as a program written for
 * Global Arrays finds it: by walking the members. */
static int is_member(ARMCI_Group *g)
{
    int size = -1, in = 0;
    ARMCI_Group_size(g, &size);
    for (int i = 0; i < size; i++)
        in |= ARMCI_Absolute_id(g, i) == me;
    return in;
}

/* The group of no members: what a freed handle and an empty group are. */
static int is_none(const ARMCI_Group *g)
{
    return g->comm == MPI_COMM_NULL && g->grp_to_abs == NULL && g->size == 0 && g->rank == -1;
}

/* A handle's fields agree with the calls, and comm is the group's
 * communicator: Global Arrays reads them directly. */
static void check_fields(ARMCI_Group *g)
{
    int size = -1, rank = -2;
    ARMCI_Group_size(g, &size);
    ARMCI_Group_rank(g, &rank);
    CHECK_EQ_LL(g->size, size);
    CHECK_EQ_LL(g->rank, rank);
    CHECK(g->noncoll_pgroup_comm == MPI_COMM_NULL);
    if (size == 0) {
        CHECK(is_none(g));
        return;
    }
    int in = 0;
    for (int i = 0; i < size; i++) {
        CHECK_EQ_LL(g->grp_to_abs[i], ARMCI_Absolute_id(g, i));
        CHECK_EQ_LL(g->abs_to_grp[g->grp_to_abs[i]], i);
        in |= g->grp_to_abs[i] == me;
    }
    CHECK_EQ_LL(g->abs_to_grp[me], in ? rank : -1);
    CHECK((g->comm == MPI_COMM_NULL) == !in);
    if (in) {
        int csize, crank;
        MPI_Comm_size(g->comm, &csize);
        MPI_Comm_rank(g->comm, &crank);
        CHECK_EQ_LL(csize, size);
        CHECK_EQ_LL(crank, rank);
        CHECK(g->comm == armci_group_comm(g));
    }
}

static void test_even_odd(void)
{
    /* Evens form a group; odds, meanwhile, allocate on their own group and
     * exchange data: the two collectives run at the same time. */
    int nev = (np + 1) / 2, nodd = np / 2;
    int ev[64], od[64];
    for (int i = 0; i < nev; i++)
        ev[i] = 2 * i;
    for (int i = 0; i < nodd; i++)
        od[i] = 2 * i + 1;
    ARMCI_Group even, odd;
    ARMCI_Group_create(nev, ev, &even);
    ARMCI_Group_create(nodd, od, &odd);
    ARMCI_Group mine = me % 2 ? odd : even, other = me % 2 ? even : odd;
    check_fields(&even);
    check_fields(&odd);
    CHECK(is_member(&mine));
    CHECK(!is_member(&other));
    int grank = -1, gsize = -1;
    CHECK(ARMCI_Group_rank(&mine, &grank) == 0);
    ARMCI_Group_size(&mine, &gsize);
    CHECK_EQ_LL(grank, me / 2);
    CHECK_EQ_LL(gsize, me % 2 ? nodd : nev);
    for (int i = 0; i < gsize; i++)
        CHECK_EQ_LL(ARMCI_Absolute_id(&mine, i), 2 * i + me % 2);
    int csize = 0;
    MPI_Comm_size(armci_group_comm(&mine), &csize);
    CHECK_EQ_LL(csize, gsize);

    void *p[64];
    size_t bytes = 1024 * (size_t)(me % 2 + 1);
    CHECK(ARMCI_Malloc_group(p, (armci_size_t)bytes, &mine) == 0);
    long *myblk = p[grank];
    memset(myblk, 0, bytes);
    ARMCI_Barrier();    /* world: both groups' blocks zeroed */
    /* Each member writes its group rank into every member's block. */
    for (int i = 0; i < gsize; i++) {
        long v = 100 + grank;
        CHECK(ARMCI_Put(&v, (long *)p[i] + grank, sizeof v, ARMCI_Absolute_id(&mine, i)) == 0);
    }
    ARMCI_GroupFence(&mine);
    armci_msg_group_barrier(&mine);
    for (int i = 0; i < gsize; i++)
        CHECK_EQ_LL(myblk[i], 100 + i);
    /* Group reductions see only members. */
    long s = me;
    armci_msg_group_lgop(&s, 1, "+", &mine);
    long want = 0;
    for (int i = 0; i < gsize; i++)
        want += 2 * i + me % 2;
    CHECK_EQ_LL(s, want);
    CHECK(ARMCI_Free_group(p[grank], &mine) == 0);

    /* A child of the even group: its first half. */
    if (me % 2 == 0) {
        int half = (nev + 1) / 2, list[64];
        for (int i = 0; i < half; i++)
            list[i] = i;   /* ranks of the even group */
        ARMCI_Group child;
        ARMCI_Group_create_child(half, list, &child, &even);
        int cs, cr;
        ARMCI_Group_size(&child, &cs);
        CHECK_EQ_LL(cs, half);
        CHECK_EQ_LL(ARMCI_Absolute_id(&child, cs - 1), 2 * (half - 1));
        CHECK(ARMCI_Group_rank(&child, &cr) == 0);
        CHECK_EQ_LL(cr, grank < half ? grank : -1);
        CHECK(is_member(&child) == (grank < half));
        if (grank < half) {
            int x = 1;
            armci_msg_group_igop(&x, 1, "+", &child);
            CHECK_EQ_LL(x, half);
        }
        check_fields(&child);
        ARMCI_Group_free(&child);
        CHECK(is_none(&child));
    }
    ARMCI_Group_free(&even);
    ARMCI_Group_free(&odd);
}

/* Two overlapping groups, and the default group steering ARMCI_Malloc. */
static void test_overlap_default(void)
{
    int a[64], b[64], na = np > 1 ? np - 1 : 1, nb = na;
    for (int i = 0; i < na; i++) {
        a[i] = i;                 /* all but the last */
        b[i] = np > 1 ? i + 1 : 0;/* all but the first */
    }
    ARMCI_Group ga, gb, world;
    ARMCI_Group_create(na, a, &ga);
    ARMCI_Group_create(nb, b, &gb);
    ARMCI_Group_get_world(&world);
    if (is_member(&ga)) {
        ARMCI_Group_set_default(&ga);
        ARMCI_Group cur;
        ARMCI_Group_get_default(&cur);
        CHECK(cur.grp_to_abs == ga.grp_to_abs && cur.comm == ga.comm);
        void *p[64];
        CHECK(ARMCI_Malloc(p, 64) == 0);   /* on ga: one entry per member */
        int r;
        ARMCI_Group_rank(&ga, &r);
        CHECK(p[r] != NULL);
        int n = 1;
        armci_msg_igop(&n, 1, "+");      /* default group: ga */
        CHECK_EQ_LL(n, na);
        CHECK(ARMCI_Free(p[r]) == 0);
        ARMCI_Group_set_default(&world);
    }
    if (is_member(&gb)) {
        void *p[64];
        int r;
        ARMCI_Group_rank(&gb, &r);
        CHECK(ARMCI_Malloc_group(p, 32, &gb) == 0);
        CHECK(ARMCI_Free_group(p[r], &gb) == 0);
    }
    ARMCI_Group_free(&ga);
    ARMCI_Group_free(&gb);
    /* Memdev calls take the same path. */
    void *q[64];
    CHECK(ARMCI_Malloc_memdev(q, 128, "host") == 0);
    CHECK(ARMCI_Free_memdev(q[me]) == 0);
    CHECK(ARMCI_Uses_shm_grp(&world) == 1);
    check_fields(&world);
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(world.comm, MPI_COMM_WORLD, &same);
    CHECK(same == MPI_CONGRUENT || same == MPI_IDENT);
}

/* A process outside a group holds a handle that answers rank -1, the
 * group's size and members, refuses what only members can do, and frees
 * without the members; a split that leaves it out, an empty group and a
 * freed handle are the group of no members. */
static void test_outside(void)
{
    int last[1] = {np - 1}, size = -1, rank = -2;
    ARMCI_Group g, world, none, empty;
    ARMCI_Group_create(1, last, &g);
    CHECK(!is_none(&g));
    check_fields(&g);
    ARMCI_Group_size(&g, &size);
    CHECK_EQ_LL(size, 1);
    CHECK(ARMCI_Group_rank(&g, &rank) == 0);
    CHECK_EQ_LL(rank, me == np - 1 ? 0 : -1);
    CHECK_EQ_LL(ARMCI_Absolute_id(&g, 0), np - 1);
    CHECK_EQ_LL(ARMCI_Absolute_id(&g, 1), -1);
    CHECK((armci_group_comm(&g) == MPI_COMM_NULL) == (me != np - 1));
    if (me != np - 1) {
        void *p[1];
        ARMCI_Group d;
        CHECK(ARMCI_Malloc_group(p, 8, &g) == REACH_ERR_HANDLE);
        CHECK(ARMCIX_Group_dup(&g, &d) == REACH_ERR_HANDLE);
    }
    ARMCI_Group copy = g;
    ARMCI_Group_free(&g);
    CHECK(is_none(&g));

    ARMCI_Group_get_world(&world);
    CHECK(ARMCIX_Group_split(&world, -1, 0, &none) == 0);
    CHECK(is_none(&none));
    ARMCI_Group_create(0, NULL, &empty);
    CHECK(is_none(&empty));
    ARMCI_Group_size(&none, &size);
    CHECK_EQ_LL(size, 0);
    CHECK(ARMCI_Group_rank(&none, &rank) == 0);
    CHECK_EQ_LL(rank, -1);
    CHECK_EQ_LL(ARMCI_Absolute_id(&none, 0), -1);
    CHECK(armci_group_comm(&none) == MPI_COMM_NULL);
    ARMCI_Group_free(&none);
    CHECK(is_none(&none));
    /* A copy of a freed handle names no group any more (one message), not
     * even once a new group has been made since. */
    ARMCI_Group again;
    ARMCI_Group_create(1, last, &again);
    CHECK(again.grp_to_abs != copy.grp_to_abs);
    CHECK(ARMCI_Group_rank(&copy, &rank) == REACH_ERR_HANDLE);
    ARMCI_Group_free(&again);
}

static void test_armcix(void)
{
    ARMCI_Group world, halves, dup;
    ARMCI_Group_get_world(&world);
    CHECK(ARMCIX_Group_split(&world, me % 2, -me, &halves) == 0);
    int r, s;
    ARMCI_Group_rank(&halves, &r);
    ARMCI_Group_size(&halves, &s);
    check_fields(&halves);
    CHECK_EQ_LL(s, me % 2 ? np / 2 : (np + 1) / 2);
    CHECK_EQ_LL(r, s - 1 - me / 2);      /* key -me reverses the order */
    CHECK(ARMCIX_Group_dup(&halves, &dup) == 0);
    int r2;
    ARMCI_Group_rank(&dup, &r2);
    CHECK_EQ_LL(r2, r);
    ARMCI_Group_free(&dup);

    /* Mutex handles on the half: member 0's mutex 0. */
    armcix_mutex_hdl_t h = ARMCIX_Create_mutexes_hdl(1, &halves);
    CHECK(h != NULL);
    if (r == 0)
        ARMCIX_Lock_hdl(h, 0, 0);
    armci_msg_group_barrier(&halves);
    if (r != 0) {
        double t0 = MPI_Wtime();
        CHECK_EQ_LL(ARMCIX_Trylock_hdl(h, 0, 0), 1);  /* held elsewhere: at once */
        CHECK(MPI_Wtime() - t0 < 1.0);
    }
    armci_msg_group_barrier(&halves);
    if (r == 0)
        ARMCIX_Unlock_hdl(h, 0, 0);
    armci_msg_group_barrier(&halves);
    int got = ARMCIX_Trylock_hdl(h, 0, 0) == 0, winners = 0;
    MPI_Allreduce(&got, &winners, 1, MPI_INT, MPI_SUM, armci_group_comm(&halves));
    CHECK_EQ_LL(winners, 1);
    if (got)
        ARMCIX_Unlock_hdl(h, 0, 0);
    armci_msg_group_barrier(&halves);
    /* Exact counts under the handle's mutex on member s-1. */
    void *p[64];
    CHECK(ARMCI_Malloc_group(p, sizeof(long), &halves) == 0);
    *(long *)p[r] = 0;
    armci_msg_group_barrier(&halves);
    int owner = ARMCI_Absolute_id(&halves, s - 1);
    for (int i = 0; i < 50; i++) {
        ARMCIX_Lock_hdl(h, 0, s - 1);
        long v = ARMCI_GetValueLong(p[s - 1], owner);
        ARMCI_PutValueLong(v + 1, p[s - 1], owner);
        ARMCI_Fence(owner);
        ARMCIX_Unlock_hdl(h, 0, s - 1);
    }
    armci_msg_group_barrier(&halves);
    CHECK_EQ_LL(ARMCI_GetValueLong(p[s - 1], owner), 50L * s);
    armci_msg_group_barrier(&halves);
    CHECK(ARMCI_Free_group(p[r], &halves) == 0);
    CHECK(ARMCIX_Destroy_mutexes_hdl(h) == 0);
    ARMCIX_Progress();
    ARMCI_Group_free(&halves);
}

/* The native interface: groups, group allocation and barrier, and a bad
 * group handle. */
static void test_native(void)
{
    reach_group_t *w = reach_group_world(), *g = NULL, *none = NULL;
    CHECK(reach_group_size(w) == np && reach_group_rank(w) == me);
    int members[1] = {np - 1};
    CHECK(reach_group_create(w, 1, members, &g) == REACH_SUCCESS);
    CHECK((g != NULL) == (me == np - 1));
    if (g) {
        void *b[1];
        CHECK(reach_malloc_group(g, 16, b) == REACH_SUCCESS);
        CHECK(reach_barrier_group(g) == REACH_SUCCESS);
        CHECK(reach_free_group(g, b[0]) == REACH_SUCCESS);
        CHECK(reach_group_world_rank(g, 0) == np - 1);
        CHECK(reach_group_world_rank(g, 1) == -1);
        CHECK(reach_group_free(g) == REACH_SUCCESS);
    }
    int dup[2] = {0, 0};
    CHECK(reach_group_create(w, np > 1 ? 2 : 1, dup, &none) == (np > 1 ? REACH_ERR_ARG : REACH_SUCCESS));
    if (none)
        reach_group_free(none);
    CHECK(reach_group_rank(NULL) == -1);
    CHECK(reach_malloc_group(NULL, 8, NULL) == REACH_ERR_HANDLE);
    CHECK(reach_group_free(w) == REACH_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(ARMCI_Init() == 0);
    me = armci_msg_me();
    np = armci_msg_nproc();
    test_even_odd();
    test_overlap_default();
    test_outside();
    test_armcix();
    test_native();
    ARMCI_Finalize();
    int rc = check_exit("test_groups");
    MPI_Finalize();
    return rc;
}
