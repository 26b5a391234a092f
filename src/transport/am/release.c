/* Fences and releases: the fences to every rank written at once
 * (am_flush_all), and a mutex unlock's release (am_release), which
 * completes only what a later holder could read, or lets the message that
 * passes the lock travel behind the writes to one rank (am_release_but,
 * am_call_after; am_push_after is origin.c's). */
#include "transport/am/am_internal.h"

/* Whether a release must complete something sent to rank: a lock's own
 * gated message (am_call_after) left alone since the last fence needs no
 * release, only a fence. */
static int am_unreleased(int rank)
{
    return am.sent[rank] != am.fenced[rank] && am.sent[rank] != am.quiet[rank];
}

/* The gated request waits at the server (am_call_try) rather than here:
 * the origin goes on at once, and the request takes effect one message
 * after the writes it follows. */
void am_call_after(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, uint32_t gate)
{
    am_request_t rq = {.kind = REQ_CALL,
                       .op = (uint8_t)id,
                       .counted = (uint8_t)am_counted(id),
                       .gated = 1,
                       .gate = gate,
                       .raddr = raddr,
                       .a = a,
                       .b = b};
    int quiet = !am_unreleased(rank), released = am.sent_total == am.released;
    am_send(rank, &rq, NULL, 0, NULL);
    /* A counted one (a ticket lock's release add) is the lock's, not a
     * write a later release must complete: with nothing else left to
     * rank, it leaves rank released. */
    if (rq.counted && quiet) {
        am.quiet[rank] = am.sent[rank];
        if (released)
            am.released = am.sent_total;
    }
}

/* Asks every target written to (for a release: every target
 * am_unreleased) but except that must be asked, then waits until each has
 * told that those writes completed: the waits overlap. */
static void am_fence_all_but(int except, int release)
{
    am_flush_local_all();
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < rt.size; r++) {
            /* (a rank told already is asked nothing and waited for at
             * once, which opens its AM_TELL_FIRST window all the same) */
            if (r == except || (release && !am_unreleased(r)))
                continue;
            if (pass == 0)
                am_ask_told(r);
            else
                am_wait_told(r);
        }
    am_wait_replies();
}

void am_flush_all(void)
{
    if (am.net != NULL)
        am_fence_all_but(-1, 0);
}

/* Fences every rank a release must complete but via (-1: none). Nothing
 * to fence if no counted request went out since the last release: a lock
 * passed again and again without writes to another node sends nothing and
 * scans no rank. Writes left to via stay unfenced, for the next release to
 * fence (the message gated on them serves only the lock it passes), so
 * they keep the release from counting as complete. */
static void am_release_except(int via)
{
    if (am.sent_total == am.released)
        return;
    uint64_t upto = am.sent_total;
    am_fence_all_but(via, 1);
    if (via < 0 || !am_unreleased(via))
        am.released = upto;
}

void am_release(void)
{
    if (am.net != NULL)
        am_release_except(-1);
}

int am_written(int prefer)
{
    if (am.net == NULL || am.sent_total == am.released)
        return -1;
    if (am_unreleased(prefer))
        return prefer;
    for (int r = 0; r < rt.size; r++)
        if (am_unreleased(r))
            return r;
    return -1;
}

uint32_t am_release_but(int via)
{
    if (am.net == NULL)
        return 0;
    am_release_except(via);
    return am.sent[via];
}
