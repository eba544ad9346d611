// Fuzz target: the lesson-deck loader (io/deckfile.cpp, parseDeck), what a teacher hands over.
//
// parseDeck never throws. What it refuses gets a one-line message. What it accepts survives a
// round trip: serializeDeck, then parseDeck again, gives the very same deck.
#include "deckfile.h"
#include "fuzz_check.h"

#include <cstdint>
#include <exception>
#include <string>

using namespace ratelab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    io::DeckLoad result;
    try {
        result = io::parseDeck(json);
    } catch (const std::exception& e) {
        fuzz::fail("parseDeck threw", e.what());
    } catch (...) {
        fuzz::fail("parseDeck threw", "a non-standard exception");
    }
    if (!result.deck) {
        const std::string error = result.error.toStdString();
        fuzz::checkMessage(error);
        return 0;
    }
    FUZZ_CHECK(!result.deck->steps.empty(), "a deck without steps was accepted");
    const QByteArray saved = io::serializeDeck(*result.deck);
    const io::DeckLoad again = io::parseDeck(saved);
    FUZZ_CHECK(again.deck.has_value(), again.error.toStdString() + " | " + saved.toStdString());
    FUZZ_CHECK(*again.deck == *result.deck, saved.toStdString());
    return 0;
}
