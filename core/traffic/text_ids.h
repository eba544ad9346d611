// TextIds: the dense ids a log reader gives its keys and paths, one per distinct text in order of
// first appearance. A log of millions of lines looks up a text per line, over thousands of keys
// that no cache holds, so each lookup should touch one place in memory: the table is open
// addressing whose slot holds a text of up to 16 bytes itself (an IPv4 address, most paths'
// heads), and for a longer one its hash, the text then compared where it is kept, in the
// reader's list of names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab::detail {

class TextIds {
public:
    static constexpr std::uint32_t kAbsent = 0xFFFF'FFFF;

    // find returns the id of a text (its index in names, the list add appends to), or kAbsent.
    std::uint32_t find(std::string_view text, const std::vector<std::string>& names) const;
    // prefetch asks the processor to bring the memory find(text) reads first into its cache.
    void prefetch(std::string_view text) const;
    // add appends a text that find said is absent to names and returns its id (names.size() - 1).
    std::uint32_t add(std::string_view text, std::vector<std::string>& names);

    // Slot is one entry: a short text's bytes (zero-padded), or a long text's hash in head.
    struct Slot {
        std::uint64_t head = 0, tail = 0;
        std::uint32_t id = 0; // the id + 1; 0: an empty slot
        std::uint32_t size = 0; // the text's length, capped (a longer one is compared in names)
    };

private:
    void place(const Slot& s, std::uint64_t hash);
    void grow();

    std::vector<Slot> m_slots;
    std::size_t m_mask = 0;
    std::size_t m_used = 0;
};

// textHash is a 64-bit hash of a text of any length (16 bytes a step, multiplied and folded).
std::uint64_t textHash(std::string_view text);

} // namespace ratelab::detail
