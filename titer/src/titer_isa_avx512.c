/* The elementwise loops, cast and copy tables built for avx512. */
#include "titer_target_avx512.h"
#ifdef TITER_ISA
#include "titer_isa_tables.h"
#endif
