/* One instruction-set build of the reduction and scan kits (as
 * titer_isa_tables.h is for the loops): each titer_kits_<level>.c sets the
 * compiler's target, defines TITER_ISA and includes this file; the core
 * takes the table of the level it chose at import. */
#include "titer_reduce_generated.h"

#define TITER_KITS_CAT2(a, b) a##b
#define TITER_KITS_CAT(a, b) TITER_KITS_CAT2(a, b)

const titer_kit_entry *TITER_KITS_CAT(titer_kits_, TITER_ISA)(int *count) {
    *count = titer_kit_table_len;
    return titer_kit_table;
}
