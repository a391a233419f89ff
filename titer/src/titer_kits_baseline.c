/* The reduction and scan kits at the compiler's baseline target, for CPUs
 * without a better build (and TITER_CPU_DISPATCH=baseline). */
#define TITER_ISA baseline
#include "titer_kits_tables.h"
