/* The reduction and scan kits built for avx512: a translation unit of their
 * own, so that it compiles in parallel with the loops'. */
#include "titer_target_avx512.h"
#ifdef TITER_ISA
#include "titer_kits_tables.h"
#endif
