#pragma once
// GLASSBOX_VECTOR_CLONES: compile a function twice, for baseline x86-64
// (SSE2) and for AVX2, and pick one when the program loads (an ifunc).
// The memory-bound kernels' loops are vectorised by the compiler; AVX2
// doubles their width, which is what keeps them near memcpy speed on
// machines that have it. AVX2 only: without FMA the compiler cannot fuse
// a multiply and an add, so both clones give bit-identical results.
// Functions inlined into a clone are compiled for its target, so the
// attribute goes on the outer loop of a kernel. Off under the sanitizers
// (their runtimes and ifunc resolvers do not mix) and off x86.

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GLASSBOX_NO_VECTOR_CLONES
#endif
#endif
#else
#define GLASSBOX_NO_VECTOR_CLONES
#endif

#ifdef GLASSBOX_NO_VECTOR_CLONES
#define GLASSBOX_VECTOR_CLONES
#else
#define GLASSBOX_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
