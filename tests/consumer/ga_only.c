/* Written only against Global Arrays' armci.h and message.h: the names,
 * types and constants GA uses. It must compile with the installed headers
 * and link with `pkg-config --libs armci` alone. */
#include <armci.h>
#include <message.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    armci_msg_init(&argc, &argv);
    ARMCI_Init();
    int me = armci_msg_me(), np = armci_msg_nproc();
    void **ptr = malloc(sizeof(void *) * (size_t)np);
    ARMCI_Malloc(ptr, 16 * sizeof(double));
    double buf[16] = {0}, scale = 1.0;
    int stride[1] = {4 * (int)sizeof(double)}, count[2] = {2 * (int)sizeof(double), 4};
    int right = (me + 1) % np;
    ARMCI_PutS(buf, stride, ptr[right], stride, count, 1, right);
    ARMCI_AccS(ARMCI_ACC_DBL, &scale, buf, stride, ptr[right], stride, count, 1, right);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbGetS(ptr[right], stride, buf, stride, count, 1, right, &h);
    ARMCI_Wait(&h);
    void *src[1] = {buf}, *dst[1] = {ptr[right]};
    armci_giov_t iov = {.src_ptr_array = src, .dst_ptr_array = dst, .bytes = sizeof(double),
                        .ptr_array_len = 1};
    ARMCI_PutV(&iov, 1, right);
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    ARMCI_GroupFence(&world);
    int one = 1;
    armci_msg_igop(&one, 1, "+");
    int ok = one == np && armci_domain_count(ARMCI_DOMAIN_SMP) >= 1 &&
             ARMCI_Absolute_id(&world, 0) == 0;
    ARMCI_Barrier();
    ARMCI_Free(ptr[me]);
    free(ptr);
    if (me == 0)
        printf("ga_only: %s\n", ok ? "passed" : "FAILED");
    ARMCI_Finalize();
    armci_msg_finalize();
    return ok ? 0 : 1;
}
