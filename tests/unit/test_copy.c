/* copy_bytes (base/copy.h) is byte-exact at every relative alignment and around its size
 * thresholds, and writes nothing outside the destination. */
#include "../check.h"
#include "base/copy.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    enum { MAXN = (600 << 10) + 200 };
    /* Source and destination page-aligned, so that the destination lies
     * exactly dofs bytes ahead modulo 4 KiB (the chunked path: 1..31). */
    const size_t span = ((size_t)MAXN + 8192 + 4095) & ~(size_t)4095;
    unsigned char *src = aligned_alloc(4096, 2 * span), *dst = src + span;
    CHECK(src != NULL);
    for (size_t i = 0; i < span; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    const size_t sizes[] = {0, 1, 63, 64, 65, 2047, 2048, 2049, 4096, 5000, 65536 + 13,
                            (512 << 10) - 1, 512 << 10, MAXN};
    int bad = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int dofs = 0; dofs < 64; dofs += (sizes[k] > 100000 ? 7 : 1)) {
            size_t n = sizes[k];
            memset(dst, 0xEE, span);
            copy_bytes(dst + 64 + dofs, src + 64, n);
            bad += memcmp(dst + 64 + dofs, src + 64, n) != 0;
            for (int g = 0; g < 64 + dofs; g++)
                bad += dst[g] != 0xEE;
            for (size_t g = 64 + (size_t)dofs + n; g < 64 + (size_t)dofs + n + 64; g++)
                bad += dst[g] != 0xEE;
        }
    CHECK_EQ_LL(bad, 0);
    free(src);
    printf("test_copy: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
