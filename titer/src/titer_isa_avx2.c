/* The elementwise loops, cast and copy tables built for avx2. */
#include "titer_target_avx2.h"
#ifdef TITER_ISA
#include "titer_isa_tables.h"
#endif
