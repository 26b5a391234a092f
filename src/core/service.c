/* core/service.h's calls: each forwards to the protocol (transport/am) or to shared
 * memory (transport/shm). */
#include "core/service.h"
#include "transport/am/am.h"
#include "transport/shm/shm.h"

int svc_handler(svc_handler_fn fn, int counted)
{
    return am_handler(fn, counted);
}

int64_t svc_call(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, const void *data, size_t len, int answer,
                 void *answer_buf, size_t answer_len)
{
    return am_call(rank, id, raddr, a, b, data, len, answer, answer_buf, answer_len);
}

void svc_call_after(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, uint32_t gate)
{
    am_call_after(rank, id, raddr, a, b, gate);
}

int svc_written(int prefer)
{
    return am_written(prefer);
}

void svc_push_after(int rank, int64_t value, uint32_t gate)
{
    am_push_after(rank, value, gate);
}

uint32_t svc_release_but(int via)
{
    return am_release_but(via);
}

void *svc_answer(svc_target_t *t, size_t len)
{
    return am_answer(t, len);
}

void svc_push(int rank, int64_t value)
{
    am_push(rank, value);
}

void svc_server_push(int rank, int64_t value)
{
    am_server_push(rank, value);
}

int64_t svc_wait_push(void)
{
    return am_wait_push();
}

uint32_t svc_sent_to(int rank)
{
    return am_sent_to(rank);
}

void svc_wait_completed(uint32_t count)
{
    am_wait_completed(count);
}

void svc_completed_to(int rank, uint32_t upto)
{
    am_completed_to(rank, upto);
}

void svc_node_barrier(void)
{
    shm_node_barrier();
}

const char *svc_describe(void)
{
    return am_describe();
}
