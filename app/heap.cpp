#include "heap.h"

#include <malloc.h>

namespace ratelab::app {

void keepFreedMemory()
{
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

} // namespace ratelab::app
