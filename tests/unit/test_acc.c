/* The accumulate kernels against a reference, for every type and scale, and
 * the argument checks. */
#include "../check.h"
#include "base/acc.h"

#include <complex.h>

int main(void)
{
    enum { N = 37 };
    int di[N], si[N];
    long dl[N], sl[N];
    float df[N], sf[N];
    double dd[N], sd[N];
    float complex dc[N], sc[N];
    double complex dz[N], sz[N];
    for (int i = 0; i < N; i++) {
        di[i] = i; si[i] = 2 * i - 5;
        dl[i] = -i; sl[i] = 3 * i;
        df[i] = 0.5f * (float)i; sf[i] = (float)i;
        dd[i] = i; sd[i] = -i;
        dc[i] = (float)i + 1.0f * I; sc[i] = 1.0f + (float)i * I;
        dz[i] = i - 2.0 * I; sz[i] = 2.0 + i * I;
    }
    int is = -3; long ls = 4; float fs = 2.0f; double ds = 0.25;
    float complex cs = 2.0f - 1.0f * I; double complex zs = -1.0 + 3.0 * I;
    acc_apply(REACH_INT, &is, si, di, sizeof di);
    acc_apply(REACH_LONG, &ls, sl, dl, sizeof dl);
    acc_apply(REACH_FLOAT, &fs, sf, df, sizeof df);
    acc_apply(REACH_DOUBLE, &ds, sd, dd, sizeof dd);
    acc_apply(REACH_COMPLEX, &cs, sc, dc, sizeof dc);
    acc_apply(REACH_DCOMPLEX, &zs, sz, dz, sizeof dz);
    for (int i = 0; i < N; i++) {
        CHECK(di[i] == i + -3 * (2 * i - 5));
        CHECK(dl[i] == -i + 4L * 3 * i);
        CHECK(df[i] == 0.5f * (float)i + 2.0f * (float)i);
        CHECK(dd[i] == i + 0.25 * -i);
        CHECK(dc[i] == ((float)i + 1.0f * I) + cs * (1.0f + (float)i * I));
        CHECK(dz[i] == (i - 2.0 * I) + zs * (2.0 + i * I));
    }
    /* Integer accumulate wraps as the hardware does. */
    int big = 2147483647, one = 1, s1 = 1;
    acc_apply(REACH_INT, &s1, &one, &big, sizeof big);
    CHECK(big == -2147483647 - 1);

    CHECK(acc_elem_size(REACH_DCOMPLEX) == 16 && acc_component_size(REACH_DCOMPLEX) == 8);
    double x[4];
    CHECK(acc_check("t", REACH_DOUBLE, &ds, x, 16) == REACH_SUCCESS);
    CHECK(acc_check("t", REACH_DOUBLE, NULL, x, 16) == REACH_ERR_ARG);
    CHECK(acc_check("t", REACH_DOUBLE, &ds, x, 12) == REACH_ERR_ARG);
    CHECK(acc_check("t", REACH_DOUBLE, &ds, (char *)x + 4, 8) == REACH_ERR_ALIGN);
    CHECK(acc_check("t", REACH_TYPE_COUNT, &ds, x, 8) == REACH_ERR_TYPE);
    CHECK(acc_check("t", REACH_COMPLEX, &cs, (char *)x + 4, 8) == REACH_SUCCESS);
    printf("test_acc: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
