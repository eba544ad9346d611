#include "arithmetic/vector_state.h"

namespace ratelab {

#if defined(__x86_64__) && defined(__GNUC__)
namespace {

// vzeroupper is the instruction, in a function of its own compiled for AVX: RateLab's code is
// built for baseline x86-64, where the instruction does not exist.
[[gnu::target("avx")]] void vzeroupper() { __builtin_ia32_vzeroupper(); }

} // namespace

void clearVectorUpperState()
{
    static const bool avx = __builtin_cpu_supports("avx");
    if (avx)
        vzeroupper();
}
#else
void clearVectorUpperState() {}
#endif

} // namespace ratelab
