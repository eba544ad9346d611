// The upper halves of the CPU's vector registers, which a library can leave "dirty".
#pragma once

namespace ratelab {

// clearVectorUpperState ends a dirty upper state of the AVX registers (vzeroupper), which code
// outside RateLab can leave behind: Qt's startup and painting on the thread that then generates
// the arrivals did, and while it lasts every SSE instruction of ours (baseline x86-64) waits on
// those halves, which made the Poisson generation of a million requests six times as slow. It
// does nothing on a CPU without AVX. Call it where a long computation starts.
void clearVectorUpperState();

} // namespace ratelab
