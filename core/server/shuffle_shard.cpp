#include "server/shuffle_shard.h"

#include "arithmetic/decimal.h"

#include <openssl/sha.h>

#include <cmath>
#include <string>

namespace ratelab {

int Dealer::requiredEntropyBits(int deckSize, int handSize)
{
    // int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize))), shufflesharding.go:35.
    return static_cast<int>(std::ceil(std::log2(static_cast<double>(deckSize)) * static_cast<double>(handSize)));
}

Dealer::Dealer(int deckSize, int handSize) : m_deckSize(deckSize), m_handSize(handSize)
{
    // The checks and their order are NewDealer's (shufflesharding.go:52-63).
    const std::string d = std::to_string(deckSize), h = std::to_string(handSize);
    if (deckSize <= 0 || handSize <= 0)
        throw InputError("deckSize " + d + " or handSize " + h + " is not positive");
    if (handSize > deckSize)
        throw InputError("handSize " + h + " is greater than deckSize " + d);
    if (deckSize > (1 << 26))
        throw InputError("deckSize " + d + " is impractically large");
    if (requiredEntropyBits(deckSize, handSize) > kMaxHashBits)
        throw InputError("required entropy bits of deckSize " + d + " and handSize " + h + " is greater than "
                         + std::to_string(kMaxHashBits));
}

std::vector<int> Dealer::deal(std::uint64_t hashValue) const
{
    // shufflesharding.go:76-95. The entropy check bounds handSize (60 bits, 1 bit a card at
    // least for deckSize 2), so the remainders fit the 15-entry array of the source; a vector
    // here.
    std::vector<int> remainders(static_cast<std::size_t>(m_handSize));
    for (int i = 0; i < m_handSize; ++i) {
        const std::uint64_t radix = static_cast<std::uint64_t>(m_deckSize - i);
        const std::uint64_t next = hashValue / radix;
        remainders[static_cast<std::size_t>(i)] = static_cast<int>(hashValue - radix * next);
        hashValue = next;
    }
    std::vector<int> hand;
    hand.reserve(remainders.size());
    for (int i = 0; i < m_handSize; ++i) {
        int card = remainders[static_cast<std::size_t>(i)];
        for (int j = i; j > 0; --j)
            if (card >= remainders[static_cast<std::size_t>(j - 1)])
                ++card;
        hand.push_back(card);
    }
    return hand;
}

std::uint64_t hashFlowId(std::string_view fsName, std::string_view distinguisher)
{
    // apf_controller.go:1131-1140: sha256 of fsName, one 0 byte, the distinguisher; the sum's
    // first 8 bytes read little-endian (binary.LittleEndian.Uint64(sum[:8])).
    std::string text;
    text.reserve(fsName.size() + 1 + distinguisher.size());
    text.append(fsName).push_back('\0');
    text.append(distinguisher);
    unsigned char sum[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), sum);
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | sum[i];
    return v;
}

} // namespace ratelab
