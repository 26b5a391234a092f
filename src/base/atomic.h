/* C11 atomics with the memory order in the name, so a reader never guesses. */
#ifndef REACH_BASE_ATOMIC_H
#define REACH_BASE_ATOMIC_H

#include <stdatomic.h>

#define atom_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define atom_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define atom_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define atom_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define atom_store_seq_cst(p, v) atomic_store_explicit((p), (v), memory_order_seq_cst)
#define atom_load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define atom_xchg_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define atom_xchg_release(p, v) atomic_exchange_explicit((p), (v), memory_order_release)
#define atom_fetch_add_acq_rel(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define atom_fetch_add_seq_cst(p, v) atomic_fetch_add_explicit((p), (v), memory_order_seq_cst)
#define atom_fetch_sub_seq_cst(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_seq_cst)
/* Strong CAS; *expected is updated with the value found on failure. */
#define atom_cas_acquire(p, expected, v) \
    atomic_compare_exchange_strong_explicit((p), (expected), (v), memory_order_acquire, memory_order_relaxed)
#define atom_cas_acq_rel(p, expected, v) \
    atomic_compare_exchange_strong_explicit((p), (expected), (v), memory_order_acq_rel, memory_order_acquire)
#define atom_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
