/* The window lock word's back-off (the word itself: window_lock.h). */
#include "sync/window_lock.h"
#include "base/wait.h"

#include <time.h>

void win_lock_backoff(int rank, uintptr_t word, int mode, int announced)
{
    for (long ns = 1000; !win_try(rank, word, mode, &announced);) {
        struct timespec ts = {0, ns};
        wait_tick();
        nanosleep(&ts, NULL);
        if (ns < 1000000)
            ns *= 2;
    }
}
