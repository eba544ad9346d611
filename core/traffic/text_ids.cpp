#include "traffic/text_ids.h"

#include <cstring>
#include <stdexcept>

namespace ratelab::detail {

namespace {

constexpr std::size_t kInline = 16;
constexpr std::uint32_t kLong = 0xFFFF'FFFF; // Slot::size of a text longer than kInline

std::uint64_t load64(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

std::uint64_t load32(const char* p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// mix multiplies two words into 128 bits and folds the halves (wyhash's step): every input bit
// reaches every output bit.
std::uint64_t mix(std::uint64_t a, std::uint64_t b)
{
    const unsigned __int128 r = static_cast<unsigned __int128>(a ^ 0xa0761d6478bd642fULL) * (b ^ 0xe7037ed1a0b428dbULL);
    return std::uint64_t(r) ^ std::uint64_t(r >> 64);
}

// Key is a text as the table sees it: a short one's bytes, or a long one's hash.
struct Key {
    TextIds::Slot slot;
    std::uint64_t hash = 0;
};

std::uint64_t shortHash(std::uint64_t head, std::uint64_t tail, std::uint32_t size)
{
    return mix(head ^ size, tail ^ 0x8ebc6af09c88c6e3ULL);
}

// keyOf packs a text of up to 16 bytes into two words without a copy through memory (a copy
// of a variable length read back as words stalls the load): with the length, the words
// determine the text. Longer texts are hashed.
Key keyOf(std::string_view text)
{
    Key k;
    const char* p = text.data();
    const std::size_t n = text.size();
    if (n > kInline) {
        k.hash = textHash(text);
        k.slot.head = k.hash;
        k.slot.size = kLong;
        return k;
    }
    if (n >= 8) { // bytes 0-7 and n-8..n-1: every byte, overlapping when n < 16
        k.slot.head = load64(p);
        k.slot.tail = load64(p + n - 8);
    } else if (n >= 4) {
        k.slot.head = load32(p) | load32(p + n - 4) << 32;
    } else if (n > 0) {
        const auto byte = [&](std::size_t i) { return std::uint64_t(static_cast<unsigned char>(p[i])); };
        k.slot.head = byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1);
    }
    k.slot.size = std::uint32_t(n);
    k.hash = shortHash(k.slot.head, k.slot.tail, k.slot.size);
    return k;
}

} // namespace

std::uint64_t textHash(std::string_view text)
{
    const char* p = text.data();
    std::size_t n = text.size();
    std::uint64_t h = mix(n, 0x8ebc6af09c88c6e3ULL);
    for (; n > 16; p += 16, n -= 16)
        h = mix(load64(p) ^ h, load64(p + 8));
    char last[16] = {};
    std::memcpy(last, p, n);
    return mix(load64(last) ^ h, load64(last + 8) ^ n);
}

std::uint32_t TextIds::find(std::string_view text, const std::vector<std::string>& names) const
{
    if (m_slots.empty())
        return kAbsent;
    const Key k = keyOf(text);
    for (std::size_t i = std::size_t(k.hash) & m_mask;; i = (i + 1) & m_mask) {
        const Slot& s = m_slots[i];
        if (s.id == 0)
            return kAbsent;
        if (s.head == k.slot.head && s.tail == k.slot.tail && s.size == k.slot.size
            && (s.size != kLong || names[s.id - 1] == text))
            return s.id - 1;
    }
}

void TextIds::prefetch(std::string_view text) const
{
    if (!m_slots.empty())
        __builtin_prefetch(&m_slots[std::size_t(keyOf(text).hash) & m_mask]);
}

std::uint32_t TextIds::add(std::string_view text, std::vector<std::string>& names)
{
    if (names.size() >= kAbsent - 1)
        throw std::length_error("more than 2^32 - 2 distinct texts");
    if ((m_used + 1) * 2 > m_slots.size()) // at most half full: a probe ends within a few slots
        grow();
    Key k = keyOf(text);
    names.emplace_back(text);
    k.slot.id = std::uint32_t(names.size());
    place(k.slot, k.hash);
    ++m_used;
    return k.slot.id - 1;
}

void TextIds::place(const Slot& s, std::uint64_t hash)
{
    std::size_t i = std::size_t(hash) & m_mask;
    while (m_slots[i].id != 0)
        i = (i + 1) & m_mask;
    m_slots[i] = s;
}

void TextIds::grow()
{
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.empty() ? 256 : old.size() * 2, Slot{});
    m_mask = m_slots.size() - 1;
    for (const Slot& s : old)
        if (s.id != 0)
            place(s, s.size == kLong ? s.head : shortHash(s.head, s.tail, s.size));
}

} // namespace ratelab::detail
