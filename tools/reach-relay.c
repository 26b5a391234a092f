/* reach-relay: an Ethernet switch over TAP devices that delivers every frame a
 * fixed delay after it arrived, the latency of the link between the network
 * namespaces that stand for machines in reach's tests (the kernel here has no
 * netem qdisc to add it).
 *
 *   reach-relay DELAY_US TAP1 TAP2 [TAP3 ...]
 *
 * It creates one TAP device per name (not persistent: it goes away when the
 * relay exits), prints "ready" once all are open, and from then on forwards
 * frames; it configures nothing. The caller moves each TAP into a namespace
 * of its own (ip link set NAME netns NS) and gives it its address there; the
 * relay's descriptor goes on working after the move.
 *
 * Forwarding is a learning switch: a frame goes to the TAP that last sent
 * from its destination address, or to every TAP but its own when that is
 * not known or the frame is broadcast or multicast. Each frame read waits
 * in one FIFO with its deadline, the time it was read plus the delay; as
 * the delay is the same for all, the FIFO is in deadline order and frames
 * keep their order. The relay sleeps in ppoll until the first deadline or a
 * TAP has frames, with a timer slack of 1 ns (the default, 50 us, would be
 * longer than the delays measured) and, as root, at a real-time priority,
 * so that the busy processes that share the machine's cores do not hold up
 * its wake-ups. Even so a timer's wake-up comes some 15 us late on the
 * virtual machine this was measured on, so the relay sleeps only until
 * SPIN_NS before the deadline and polls without sleeping from there. The
 * FIFO holds at most MAX_FRAMES frames and MAX_BYTES bytes: a frame beyond
 * that is dropped, and so is a frame whose write fails (a TAP that is down,
 * a full queue). SIGTERM or SIGINT end it; it then prints how many frames
 * it wrote (one per TAP written to) and how many it dropped. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_TAPS 64
#define MAX_FRAMES 65536       /* a power of two: the FIFO's ring */
#define MAX_BYTES (64u << 20)  /* the frames waiting in the FIFO, together */
#define FRAME_MAX (65535 + 18) /* the largest MTU, an Ethernet header and a VLAN tag */
#define BURST 64               /* frames read from one TAP before the deadlines are looked at again */
#define SPIN_NS 20000          /* how long before a deadline the relay stops sleeping */
#define MACS 1024              /* the learned addresses: a direct-mapped table */

struct frame {
    uint64_t due; /* CLOCK_MONOTONIC, ns */
    uint8_t *data;
    uint32_t len;
    int src;
};

static struct {
    int ntap;
    struct pollfd pfd[MAX_TAPS]; /* fd -1 for a TAP that can no longer be read */
    int fd[MAX_TAPS];
    uint64_t delay_ns;
    struct frame *fifo;
    size_t head, count, bytes;
    struct {
        uint8_t mac[6];
        int tap; /* -1: empty */
    } macs[MACS];
    unsigned long long forwarded, dropped;
} r;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned mac_slot(const uint8_t *mac)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 6; i++)
        h = (h ^ mac[i]) * 16777619u;
    return h % MACS;
}

/* The TAP that last sent from mac, or -1. A collision only floods. */
static int mac_find(const uint8_t *mac)
{
    unsigned s = mac_slot(mac);
    return r.macs[s].tap >= 0 && memcmp(r.macs[s].mac, mac, 6) == 0 ? r.macs[s].tap : -1;
}

static void mac_learn(const uint8_t *mac, int tap)
{
    if (mac[0] & 1) /* a group address is no sender's */
        return;
    unsigned s = mac_slot(mac);
    memcpy(r.macs[s].mac, mac, 6);
    r.macs[s].tap = tap;
}

static void deliver(const struct frame *f)
{
    int to = f->data[0] & 1 ? -1 : mac_find(f->data);
    for (int i = 0; i < r.ntap; i++) {
        if (i == f->src || (to >= 0 && i != to))
            continue;
        if (write(r.fd[i], f->data, f->len) == (ssize_t)f->len)
            r.forwarded++;
        else
            r.dropped++; /* EAGAIN, ENOBUFS, EIO (down), EBADFD (device gone): never fatal */
    }
}

/* Delivers the frames whose deadline has passed; returns the first
 * deadline still to come, or 0 for none. */
static uint64_t deliver_due(void)
{
    uint64_t now = now_ns();
    while (r.count) {
        struct frame *f = &r.fifo[r.head];
        if (f->due > now && f->due > (now = now_ns()))
            return f->due;
        deliver(f);
        free(f->data);
        r.bytes -= f->len;
        r.head = (r.head + 1) & (MAX_FRAMES - 1);
        r.count--;
    }
    return 0;
}

static void read_tap(int i, uint8_t *buf)
{
    for (int k = 0; k < BURST; k++) {
        ssize_t n = read(r.pfd[i].fd, buf, FRAME_MAX);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                r.pfd[i].fd = -1; /* the device is gone (its namespace deleted): poll it no more */
            return;
        }
        uint64_t due = now_ns() + r.delay_ns;
        if (n < 14) { /* shorter than an Ethernet header */
            r.dropped++;
            continue;
        }
        mac_learn(buf + 6, i);
        uint8_t *data = r.count < MAX_FRAMES && r.bytes + (size_t)n <= MAX_BYTES ? malloc((size_t)n) : NULL;
        if (!data) {
            r.dropped++;
            continue;
        }
        memcpy(data, buf, (size_t)n);
        r.fifo[(r.head + r.count) & (MAX_FRAMES - 1)] = (struct frame){due, data, (uint32_t)n, i};
        r.count++;
        r.bytes += (size_t)n;
    }
}

static int open_tap(const char *name)
{
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "reach-relay: cannot open /dev/net/tun: %s\n", strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    memcpy(ifr.ifr_name, name, strlen(name));
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "reach-relay: cannot create TAP device %s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

__attribute__((format(printf, 1, 2))) static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "reach-relay: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: reach-relay DELAY_US TAP1 TAP2 [TAP3 ...]  (2 to %d TAPs, names of 1 to %d characters)\n",
            MAX_TAPS, IFNAMSIZ - 1);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc - 2 > MAX_TAPS)
        return usage(argc < 4 ? "too few arguments" : "too many TAP devices");
    char *end;
    errno = 0;
    unsigned long long us = strtoull(argv[1], &end, 10);
    if (argv[1][0] < '0' || argv[1][0] > '9' || *end || errno || us > 3600000000ull)
        return usage("DELAY_US '%s' is not a number of microseconds (0 to 3600000000)", argv[1]);
    r.delay_ns = us * 1000u;
    r.ntap = argc - 2;
    for (int i = 0; i < r.ntap; i++) {
        size_t len = strlen(argv[i + 2]);
        if (len == 0 || len >= IFNAMSIZ || strchr(argv[i + 2], '/'))
            return usage("TAP name '%s' is not 1 to 15 characters without '/'", argv[i + 2]);
    }
    for (int i = 0; i < MACS; i++)
        r.macs[i].tap = -1;
    if (!(r.fifo = calloc(MAX_FRAMES, sizeof *r.fifo))) {
        fprintf(stderr, "reach-relay: out of memory\n");
        return 2;
    }
    static uint8_t buf[FRAME_MAX];

    /* SIGTERM and SIGINT come only while the relay waits in ppoll. */
    sigset_t block, waiting;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &waiting);
    sigdelset(&waiting, SIGTERM);
    sigdelset(&waiting, SIGINT);
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* the caller may close the pipe it read "ready" from */

    for (int i = 0; i < r.ntap; i++) {
        if ((r.fd[i] = open_tap(argv[i + 2])) < 0)
            return 2;
        r.pfd[i] = (struct pollfd){.fd = r.fd[i], .events = POLLIN};
    }
    /* Best effort: without them it works, with later wake-ups. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    struct sched_param sp = {.sched_priority = 1};
    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);

    printf("ready\n");
    fflush(stdout);

    int rc = 0;
    while (!stop) {
        uint64_t due = deliver_due();
        struct timespec ts = {0, 0}, *timeout = NULL;
        if (due) {
            uint64_t now = now_ns();
            uint64_t wait = due > now + SPIN_NS ? due - now - SPIN_NS : 0;
            ts.tv_sec = (time_t)(wait / 1000000000u);
            ts.tv_nsec = (long)(wait % 1000000000u);
            timeout = &ts;
        }
        int n = ppoll(r.pfd, (nfds_t)r.ntap, timeout, &waiting);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "reach-relay: ppoll: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        for (int i = 0; n > 0 && i < r.ntap; i++)
            if (r.pfd[i].fd >= 0 && r.pfd[i].revents)
                read_tap(i, buf);
    }
    r.dropped += r.count; /* still waiting */
    for (; r.count; r.count--, r.head = (r.head + 1) & (MAX_FRAMES - 1))
        free(r.fifo[r.head].data);
    free(r.fifo);
    for (int i = 0; i < r.ntap; i++)
        close(r.fd[i]);
    fprintf(stderr, "reach-relay: %llu frames forwarded, %llu dropped\n", r.forwarded, r.dropped);
    return rc;
}
