#include "CMallocTuning.h"

#include <malloc.h>

int CMallocTuning_limitArenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int CMallocTuning_trim(void) {
    return malloc_trim(0);
}
