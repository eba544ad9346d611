// Shuffle sharding and flow hashing as Kubernetes API Priority and Fairness does them
// (kubernetes/apiserver at commit 24a394e516bfda066d7e2221d7d92c052de27c54):
// pkg/util/shufflesharding/shufflesharding.go (the Dealer) and
// pkg/util/flowcontrol/apf_controller.go:1131-1140 (hashFlowID).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ratelab {

// Dealer deals a hand of `handSize` distinct queue indices out of `deckSize` from one hash value
// (shufflesharding.go:40-107).
class Dealer {
public:
    // Dealer checks the sizes as NewDealer does (shufflesharding.go:51-69) and throws InputError
    // with its words: sizes not positive, hand larger than deck, deck past 1<<26, more than 60
    // bits of entropy needed.
    Dealer(int deckSize, int handSize);

    // deal returns the hand for hashValue, in the order Deal picks its cards
    // (shufflesharding.go:76-95): hashValue is read as mixed-radix digits (deckSize,
    // deckSize - 1, ...), and each digit, the index into what is left of the deck, is turned into
    // a card by stepping past the cards dealt before it.
    std::vector<int> deal(std::uint64_t hashValue) const;

    int deckSize() const { return m_deckSize; }
    int handSize() const { return m_handSize; }

    // kMaxHashBits is MaxHashBits (shufflesharding.go:28).
    static constexpr int kMaxHashBits = 60;
    // requiredEntropyBits returns ceil(log2(deckSize) * handSize) (shufflesharding.go:34-36).
    static int requiredEntropyBits(int deckSize, int handSize);

private:
    int m_deckSize;
    int m_handSize;
};

// hashFlowId returns APF's hash of a flow: the first 8 bytes, little-endian, of
// SHA-256(fsName, 0x00, distinguisher) (apf_controller.go:1131-1140).
std::uint64_t hashFlowId(std::string_view fsName, std::string_view distinguisher);

} // namespace ratelab
