/* libfabric, opened when something first asks for it, not linked.
 *
 * Linked, libfabric is loaded with reach by every process, one node or
 * not, and Debian's pulls in libinfinipath through its psm provider, whose
 * constructor sleeps 0.2 s (about 660 usleeps of 125 us) in each: a fixed
 * cost of every reach program. The backend calls six of libfabric's
 * functions directly (the rest are inline calls through the objects'
 * operations). These definitions, hidden in reach, reach them through
 * dlopen, on the first call, which ofi_init makes. */
#include <dlfcn.h>
#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <stddef.h>
#include <stdio.h>

#include "transport/ofi/ofi.h"

static struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
} lib;
static char lib_error[256];
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_load(void)
{
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib_error, sizeof lib_error, "%s", dlerror());
        return;
    }
    static const char *const name[] = {"fi_getinfo", "fi_freeinfo", "fi_dupinfo",
                                       "fi_fabric",  "fi_strerror", "fi_version"};
    void *fn[6];
    for (int i = 0; i < 6; i++)
        if (!(fn[i] = dlsym(h, name[i]))) {
            snprintf(lib_error, sizeof lib_error, "libfabric.so.1 has no %s", name[i]);
            dlclose(h);
            return;
        }
    /* (dlsym's object pointers taken as the functions they are, as POSIX
     * requires of it) */
    *(void **)&lib.getinfo = fn[0];
    *(void **)&lib.freeinfo = fn[1];
    *(void **)&lib.dupinfo = fn[2];
    *(void **)&lib.fabric = fn[3];
    *(void **)&lib.strerror = fn[4];
    *(void **)&lib.version = fn[5];
}

const char *ofi_lib_open(void)
{
    pthread_once(&lib_once, lib_load);
    return lib.version ? NULL : lib_error;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags, const struct fi_info *hints,
               struct fi_info **info)
{
    return ofi_lib_open() ? -FI_ENOSYS : lib.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    if (!ofi_lib_open())
        lib.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return ofi_lib_open() ? NULL : lib.dupinfo(info);
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    return ofi_lib_open() ? -FI_ENOSYS : lib.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    return ofi_lib_open() ? "libfabric could not be loaded" : lib.strerror(errnum);
}

uint32_t fi_version(void)
{
    return ofi_lib_open() ? 0 : lib.version();
}
