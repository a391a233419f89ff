/* One instruction-set build of the generated loops (seed 004's dispatch
 * tables).  Each titer_isa_<level>.c sets the compiler's target, defines
 * TITER_ISA and includes this file: the static loops compile for that
 * level in their own translation unit, and getters hand the tables
 * to the core, which picks one level at import from the CPU's features. */
#include "titer_generated.h"

#define TITER_CAT2(a, b) a##b
#define TITER_CAT(a, b) TITER_CAT2(a, b)

const titer_loop_entry *TITER_CAT(titer_loops_, TITER_ISA)(int *count) {
    *count = titer_loop_table_len;
    return titer_loop_table;
}

const titer_cast_fn *TITER_CAT(titer_casts_, TITER_ISA)(void) {
    return &titer_cast_table[0][0];
}

const titer_loop1d *TITER_CAT(titer_cast_loops_, TITER_ISA)(void) {
    return &titer_cast_loop_table[0][0];
}

const titer_loop1d *TITER_CAT(titer_copies_, TITER_ISA)(void) {
    return titer_copy_table;
}

const titer_loop1d *TITER_CAT(titer_masked_, TITER_ISA)(void) {
    return titer_masked_loop_table;
}
