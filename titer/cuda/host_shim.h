/* Compile titer's CUDA kernels as host C++ (g++), for tests without a GPU.
 *
 * `g++ -std=c++17 -include host_shim.h kernels/<op>.cu` turns every
 * __global__ kernel into a plain extern "C" function of its titer_params;
 * titer_host_launch() (defined where TITER_HOST_SHIM_LAUNCHER is set) runs
 * it for every (block, thread) of a 1-d grid, one after another.  Kernels
 * that need no __syncthreads (all the elementwise ones) behave exactly as on
 * a GPU, so the index math, offset calculator, vector tails and casts are
 * checked on the CPU. */
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

static inline uint32_t __umulhi(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * (uint64_t)b) >> 32);
}

#ifdef TITER_HOST_SHIM_LAUNCHER
#include "titer_scalar.cuh"
#include "titer_kernels.cuh"
dim3 blockIdx, threadIdx, blockDim, gridDim;

extern "C" void titer_host_launch(void (*kernel)(titer_params), unsigned int grid,
                                  unsigned int block, const titer_params *p) {
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
