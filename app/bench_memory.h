// What the bench's memory figures measure: how far a run alone raises a process's resident size.
#pragma once

#include <cstdint>
#include <functional>

namespace ratelab::app {

// childGrowthPer measures `measured` in a forked child, so that nothing the bench ran before is
// counted: the child runs `prepare` (what the figure leaves out, the arrivals a run reads; may be
// empty), gives back the free memory it inherited (giveBackFreeMemory), resets its peak resident
// size to its size then (/proc/self/clear_refs 5) and runs `measured`. The figure is how far the
// peak (VmHWM) then stands above that size (VmRSS), in bytes, over what `measured` returns (the
// requests or attempts its run made). -1 when it cannot be measured: no /proc, a failed fork, a
// run that throws or returns no count.
double childGrowthPer(const std::function<void()>& prepare, const std::function<std::int64_t()>& measured);

// giveBackFreeMemory returns what a forked child inherited free, the engine's kept log chunks
// (chunk_pool.h) and malloc's free memory, to the system: a run measured in the child would
// otherwise reuse it unseen, by an amount that depends on what ran before.
void giveBackFreeMemory();

// peakRssMb is this process's peak resident size so far, in MB.
double peakRssMb();

} // namespace ratelab::app
