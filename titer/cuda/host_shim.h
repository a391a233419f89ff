/* Compile titer's CUDA kernels as host C++ (g++), for tests without a GPU.
 *
 * `g++ -std=c++17 -include host_shim.h kernels/<op>.cu` turns every
 * __global__ kernel into a plain extern "C" function of its titer_params;
 * titer_host_launch() (defined where TITER_HOST_SHIM_LAUNCHER is set) runs
 * it for every (block, thread) of a 1-d grid, one after another.  Kernels
 * that need no __syncthreads (all the elementwise ones) behave exactly as on
 * a GPU, so the index math, offset calculator, vector tails and casts are
 * checked on the CPU.  titer_host_launch_blocks() runs kernels that do
 * synchronize (the reductions): each thread of a block is a fiber,
 * __syncthreads() switches back to the block's scheduler, which resumes every
 * fiber in turn -- a real barrier, so shared-memory trees run as on a GPU.
 * __shared__ is `static`: one copy per kernel, used by one block at a time. */
#ifndef TITER_HOST_SHIM_H
#define TITER_HOST_SHIM_H
#define TITER_HOST_SHIM 1

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <cmath>
#include <math.h>

using std::isnan;
using std::isinf;
using std::isfinite;
using std::signbit;

struct dim3 { unsigned int x, y, z; };
extern dim3 blockIdx, threadIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(n)
#define __align__(n) alignas(n)
#define __shared__ static

extern "C" void __syncthreads(void);

static inline uint32_t __umulhi(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * (uint64_t)b) >> 32);
}

#ifdef TITER_HOST_SHIM_LAUNCHER
#include <stdlib.h>
#include <ucontext.h>
#include <stdint.h>
#include "titer_scalar.cuh"
#include "titer_kernels.cuh"
#include "titer_reduce.cuh"
dim3 blockIdx, threadIdx, blockDim, gridDim;
extern "C" { int titer_half_nextafter_gives_y = 0; }     /* titer_scalar.cuh */

/* ---- fibers: one per thread of the running block ----
 * On x86-64 a fiber switch is a few instructions (titer_fiber_switch):
 * glibc's swapcontext also saves and restores the signal mask, a system
 * call per switch, and switches are most of a reduction's time here.
 * Elsewhere (or with -DTITER_SHIM_UCONTEXT) ucontext does the same job. */
static unsigned int titer_current;              /* the running fiber */
static int titer_in_block;                      /* inside titer_host_launch_blocks */
static void (*titer_fiber_kernel)(const void *);
static const void *titer_fiber_params;
static int titer_fiber_finished;

static void titer_fiber_main(void) {
    titer_fiber_kernel(titer_fiber_params);
    titer_fiber_finished = 1;
}

#if defined(__x86_64__) && !defined(TITER_SHIM_UCONTEXT)
/* Push the callee-saved registers, store the stack pointer in *save, load
 * `load`, pop its registers, return into that fiber. */
extern "C" void titer_fiber_switch(void **save, void *load);
__asm__(".text\n"
        ".globl titer_fiber_switch\n"
        ".hidden titer_fiber_switch\n"
        ".type titer_fiber_switch, @function\n"
        "titer_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size titer_fiber_switch, .-titer_fiber_switch\n");

static void *titer_scheduler_sp;
static void **titer_fiber_sp;                   /* each fiber's saved stack pointer */

static void titer_fibers_alloc(unsigned int n) {
    titer_fiber_sp = (void **)calloc(n, sizeof(void *));
}
static void titer_fibers_free(void) { free(titer_fiber_sp); }

static void titer_fiber_entry(void) {
    titer_fiber_main();
    titer_fiber_switch(&titer_fiber_sp[titer_current], titer_scheduler_sp);   /* for good */
    __builtin_unreachable();
}

/* A fresh fiber on [stack, stack + size): its first switch "returns" into
 * titer_fiber_entry with the stack aligned as after a call. */
static void titer_fiber_start(unsigned int t, char *stack, size_t size) {
    void **sp = (void **)(((uintptr_t)(stack + size)) & ~(uintptr_t)15);
    *--sp = 0;                                  /* titer_fiber_entry never returns */
    *--sp = (void *)titer_fiber_entry;
    for (int i = 0; i < 6; i++) *--sp = 0;      /* rbp, rbx, r12..r15 */
    titer_fiber_sp[t] = sp;
}

static void titer_fiber_resume(unsigned int t) {
    titer_fiber_switch(&titer_scheduler_sp, titer_fiber_sp[t]);
}

extern "C" void __syncthreads(void) {
    if (titer_in_block) titer_fiber_switch(&titer_fiber_sp[titer_current], titer_scheduler_sp);
}
#else
static ucontext_t titer_scheduler;
static ucontext_t *titer_fiber;

static void titer_fibers_alloc(unsigned int n) {
    titer_fiber = (ucontext_t *)calloc(n, sizeof(ucontext_t));
}
static void titer_fibers_free(void) { free(titer_fiber); }

static void titer_fiber_start(unsigned int t, char *stack, size_t size) {
    getcontext(&titer_fiber[t]);
    titer_fiber[t].uc_stack.ss_sp = stack;
    titer_fiber[t].uc_stack.ss_size = size;
    titer_fiber[t].uc_link = &titer_scheduler;  /* when the kernel returns */
    makecontext(&titer_fiber[t], titer_fiber_main, 0);
}

static void titer_fiber_resume(unsigned int t) {
    swapcontext(&titer_scheduler, &titer_fiber[t]);
}

extern "C" void __syncthreads(void) {
    if (titer_in_block) swapcontext(&titer_fiber[titer_current], &titer_scheduler);
}
#endif

/* Run kernel(params) over a 2-d grid of 2-d blocks; every block's threads are
 * fibers resumed round-robin until all return.  call(kernel_arg) adapts the
 * kernel's by-value parameter type. */
static void titer_run_blocks(void (*call)(const void *), unsigned int gx, unsigned int gy,
                             unsigned int bx, unsigned int by, const void *params) {
    const unsigned int n = bx * by;
    const size_t stack = 256 * 1024;
    titer_fibers_alloc(n);
    char *stacks = (char *)malloc(stack * n);
    char *done = (char *)malloc(n);
    gridDim.x = gx; gridDim.y = gy; gridDim.z = 1;
    blockDim.x = bx; blockDim.y = by; blockDim.z = 1;
    blockIdx.z = threadIdx.z = 0;
    titer_fiber_kernel = call;
    titer_fiber_params = params;
    titer_in_block = 1;
    for (unsigned int b = 0; b < gx * gy; b++) {
        blockIdx.x = b % gx;
        blockIdx.y = b / gx;
        for (unsigned int t = 0; t < n; t++) {
            titer_fiber_start(t, stacks + stack * t, stack);
            done[t] = 0;
        }
        for (unsigned int left = n; left;) {
            for (unsigned int t = 0; t < n; t++) {
                if (done[t]) continue;
                titer_current = t;
                threadIdx.x = t % bx;
                threadIdx.y = t / bx;
                /* returns at the fiber's next barrier, or when it ends */
                titer_fiber_resume(t);
                if (titer_fiber_finished) { done[t] = 1; left--; titer_fiber_finished = 0; }
            }
        }
    }
    titer_in_block = 0;
    titer_fibers_free(); free(stacks); free(done);
}

/* Run kernel(*p) for every (block, thread) of a 1-d grid, one after another
 * (kernels that never synchronize). */
template <class P>
static void titer_host_run_grid(void (*kernel)(P), unsigned int grid, unsigned int block,
                                const P *p) {
    gridDim.x = grid; gridDim.y = gridDim.z = 1;
    blockDim.x = block; blockDim.y = blockDim.z = 1;
    blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;
    for (unsigned int b = 0; b < grid; b++)
        for (unsigned int t = 0; t < block; t++) {
            blockIdx.x = b;
            threadIdx.x = t;
            kernel(*p);
        }
}

extern "C" void titer_host_launch(void (*kernel)(titer_params), unsigned int grid,
                                  unsigned int block, const titer_params *p) {
    titer_host_run_grid(kernel, grid, block, p);
}

static void (*titer_reduce_kernel)(titer_rparams);
static void titer_call_reduce(const void *p) { titer_reduce_kernel(*(const titer_rparams *)p); }

extern "C" void titer_host_launch_reduce(void (*kernel)(titer_rparams), unsigned int gx,
                                         unsigned int gy, unsigned int bx, unsigned int by,
                                         const titer_rparams *p) {
    titer_reduce_kernel = kernel;
    titer_run_blocks(titer_call_reduce, gx, gy, bx, by, p);
}

/* sizeof and field offsets of titer_rparams, for plan.RPARAMS_DTYPE. */
extern "C" void titer_host_rparams_layout(int64_t *out) {
    int k = 0;
    out[k++] = sizeof(titer_rparams);
#define TITER_OFF(f) out[k++] = offsetof(titer_rparams, f);
    TITER_OFF(in) TITER_OFF(out) TITER_OFF(partial) TITER_OFF(init) TITER_OFF(nred)
    TITER_OFF(nout) TITER_OFF(rndim) TITER_OFF(kndim) TITER_OFF(in_code) TITER_OFF(out_on_x)
    TITER_OFF(has_init) TITER_OFF(ordered) TITER_OFF(nsplit) TITER_OFF(vec) TITER_OFF(rstride)
    TITER_OFF(kstride) TITER_OFF(kout) TITER_OFF(rsize) TITER_OFF(ksize)
    TITER_OFF(scan_out_stride)
#undef TITER_OFF
}

/* sizeof and field offsets of titer_params, for plan.PARAMS_DTYPE. */
extern "C" void titer_host_params_layout(int64_t *out) {
    out[0] = sizeof(titer_params);
    out[1] = offsetof(titer_params, data);
    out[2] = offsetof(titer_params, scalar);
    out[3] = offsetof(titer_params, code);
    out[4] = offsetof(titer_params, ndim);
    out[5] = offsetof(titer_params, numel);
    out[6] = offsetof(titer_params, size);
    out[7] = offsetof(titer_params, stride);
}

/* A fast divide as the kernels do it, for the IntDivider tests. */
extern "C" uint32_t titer_host_div(uint32_t divisor, uint32_t magic, uint32_t shift, uint32_t n) {
    titer_divider d = {divisor, magic, shift};
    return titer_div(d, n);
}
#endif
#endif
