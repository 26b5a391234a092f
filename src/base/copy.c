/* The loop of base/copy.h's copies. */
#include "base/copy.h"

void copy_chunked(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        memcpy(dst + i, src + i, 64);
    memcpy(dst + i, src + i, n - i);
}
