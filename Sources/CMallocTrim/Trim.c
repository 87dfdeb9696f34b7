#include "CMallocTrim.h"

#include <malloc.h>

int bowties_malloc_trim(void) {
    return malloc_trim(0);
}
