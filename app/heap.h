// How the executables' heap treats memory a run frees.
#pragma once

namespace ratelab::app {

// keepFreedMemory has glibc's malloc keep the memory a run frees for the next run instead of
// handing it back to the kernel. Every frame of a drag runs each row again, writing its log into
// chunks of ~2.7 MB (~45 MB a row at 1,000,000 requests); returned to the kernel after each
// frame, every 4 KiB page of them faulted in again on the next: about 12% of an engine run
// (perf: exc_page_fault, clear_page). Blocks over 64 MiB are still mapped and unmapped alone,
// and memory is given back once more than 1 GiB lies free at the top of the heap.
void keepFreedMemory();

} // namespace ratelab::app
