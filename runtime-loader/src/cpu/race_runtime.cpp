
#line 1 "halc-race-runtime.cpp"
// halc's data-race check (src/cpu/race.rs): appended to a kernel's C++ when
// it is compiled with -fsanitize=thread, in place of ThreadSanitizer's
// runtime. Every function here is compiled without instrumentation; each
// does what the access it stands for does (the atomics exactly, the memory
// functions) and tells the executor's hook (halc_group::race) what was
// accessed, by which GPU thread (halc_cur).

typedef void (*halc_race_fn)(metal::halc_thread*, const volatile void*, unsigned long long, unsigned);

#define HALC_RACE extern "C" __attribute__((disable_sanitizer_instrumentation, visibility("hidden")))
#define HALC_NOTE(p, n, kind)                                                        \
    do {                                                                             \
        metal::halc_thread* halc_t = metal::halc_cur;                                \
        if (halc_t != nullptr && halc_t->group->race != nullptr)                     \
            ((halc_race_fn)halc_t->group->race)(halc_t, (p), (n), (kind));           \
    } while (0)
#define HALC_W 1u
#define HALC_A 2u

HALC_RACE void __tsan_init() {}
HALC_RACE void __tsan_func_entry(void*) {}
HALC_RACE void __tsan_func_exit() {}
HALC_RACE void __tsan_ignore_thread_begin() {}
HALC_RACE void __tsan_ignore_thread_end() {}
HALC_RACE void __tsan_vptr_update(void** p, void*) { HALC_NOTE(p, sizeof(void*), HALC_W); }
HALC_RACE void __tsan_vptr_read(void** p) { HALC_NOTE(p, sizeof(void*), 0u); }
HALC_RACE void __tsan_read_range(void* p, unsigned long n) { HALC_NOTE(p, n, 0u); }
HALC_RACE void __tsan_write_range(void* p, unsigned long n) { HALC_NOTE(p, n, HALC_W); }

#define HALC_RW(n)                                                                          \
    HALC_RACE void __tsan_read##n(void* p) { HALC_NOTE(p, n, 0u); }                         \
    HALC_RACE void __tsan_write##n(void* p) { HALC_NOTE(p, n, HALC_W); }                    \
    HALC_RACE void __tsan_unaligned_read##n(void* p) { HALC_NOTE(p, n, 0u); }               \
    HALC_RACE void __tsan_unaligned_write##n(void* p) { HALC_NOTE(p, n, HALC_W); }          \
    HALC_RACE void __tsan_volatile_read##n(void* p) { HALC_NOTE(p, n, 0u); }                \
    HALC_RACE void __tsan_volatile_write##n(void* p) { HALC_NOTE(p, n, HALC_W); }           \
    HALC_RACE void __tsan_unaligned_volatile_read##n(void* p) { HALC_NOTE(p, n, 0u); }      \
    HALC_RACE void __tsan_unaligned_volatile_write##n(void* p) { HALC_NOTE(p, n, HALC_W); } \
    HALC_RACE void __tsan_read##n##_pc(void* p, void*) { HALC_NOTE(p, n, 0u); }             \
    HALC_RACE void __tsan_write##n##_pc(void* p, void*) { HALC_NOTE(p, n, HALC_W); }
HALC_RW(1)
HALC_RW(2)
HALC_RW(4)
HALC_RW(8)
HALC_RW(16)
#undef HALC_RW

HALC_RACE void* __tsan_memcpy(void* d, const void* s, unsigned long n) {
    HALC_NOTE(s, n, 0u);
    HALC_NOTE(d, n, HALC_W);
    return __builtin_memcpy(d, s, n);
}
HALC_RACE void* __tsan_memmove(void* d, const void* s, unsigned long n) {
    HALC_NOTE(s, n, 0u);
    HALC_NOTE(d, n, HALC_W);
    return __builtin_memmove(d, s, n);
}
HALC_RACE void* __tsan_memset(void* d, int c, unsigned long n) {
    HALC_NOTE(d, n, HALC_W);
    return __builtin_memset(d, c, n);
}

// The atomics: the operation itself, sequentially consistent as every atomic
// of the shim is (the order argument is ignored), then the note. A
// compare-exchange that fails only read.
#define HALC_RMW(bits, T, name, builtin)                                          \
    HALC_RACE T __tsan_atomic##bits##_##name(volatile T* a, T v, int) {             \
        T r = builtin((T*)a, v, __ATOMIC_SEQ_CST);                                  \
        HALC_NOTE(a, sizeof(T), HALC_W | HALC_A);                                   \
        return r;                                                                   \
    }
#define HALC_ATOMICS(bits, T)                                                                  \
    HALC_RACE T __tsan_atomic##bits##_load(const volatile T* a, int) {                         \
        T r = __atomic_load_n((T*)a, __ATOMIC_SEQ_CST);                                        \
        HALC_NOTE(a, sizeof(T), HALC_A);                                                       \
        return r;                                                                              \
    }                                                                                          \
    HALC_RACE void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                      \
        __atomic_store_n((T*)a, v, __ATOMIC_SEQ_CST);                                          \
        HALC_NOTE(a, sizeof(T), HALC_W | HALC_A);                                              \
    }                                                                                          \
    HALC_RMW(bits, T, exchange, __atomic_exchange_n)                                           \
    HALC_RMW(bits, T, fetch_add, __atomic_fetch_add)                                           \
    HALC_RMW(bits, T, fetch_sub, __atomic_fetch_sub)                                           \
    HALC_RMW(bits, T, fetch_and, __atomic_fetch_and)                                           \
    HALC_RMW(bits, T, fetch_or, __atomic_fetch_or)                                             \
    HALC_RMW(bits, T, fetch_xor, __atomic_fetch_xor)                                           \
    HALC_RMW(bits, T, fetch_nand, __atomic_fetch_nand)                                         \
    HALC_RACE int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* c, T v, int, \
                                                                int) {                         \
        bool ok = __atomic_compare_exchange_n((T*)a, c, v, false, __ATOMIC_SEQ_CST,            \
                                              __ATOMIC_SEQ_CST);                               \
        HALC_NOTE(a, sizeof(T), ok ? (HALC_W | HALC_A) : HALC_A);                              \
        return ok;                                                                             \
    }                                                                                          \
    /* A weak exchange that never fails spuriously is a strong one. */                         \
    HALC_RACE int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* c, T v, int s, \
                                                              int f) {                         \
        return __tsan_atomic##bits##_compare_exchange_strong(a, c, v, s, f);                   \
    }                                                                                          \
    HALC_RACE T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T c, T v, int, int) { \
        bool ok = __atomic_compare_exchange_n((T*)a, &c, v, false, __ATOMIC_SEQ_CST,           \
                                              __ATOMIC_SEQ_CST);                               \
        HALC_NOTE(a, sizeof(T), ok ? (HALC_W | HALC_A) : HALC_A);                              \
        return c;                                                                              \
    }
HALC_ATOMICS(8, unsigned char)
HALC_ATOMICS(16, unsigned short)
HALC_ATOMICS(32, unsigned int)
HALC_ATOMICS(64, unsigned long long)
#undef HALC_ATOMICS
#undef HALC_RMW

HALC_RACE void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
HALC_RACE void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
