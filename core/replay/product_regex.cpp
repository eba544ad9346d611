#include "replay/product_regex.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <re2/re2.h>

namespace ratelab {

// Outside the anonymous namespace: Compiled, which holds one, is not in it.
struct PcreCodeDeleter {
    void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};

namespace {

struct MatchDataDeleter {
    void operator()(pcre2_match_data* d) const { pcre2_match_data_free(d); }
};

// One match data a thread, for every pattern: one ovector pair is enough to learn whether a
// pattern matched (a larger pattern's captures are cut, its match still reported).
pcre2_match_data* matchData()
{
    thread_local const std::unique_ptr<pcre2_match_data, MatchDataDeleter> data(pcre2_match_data_create(1, nullptr));
    return data.get();
}

} // namespace

struct ProductRegex::Compiled {
    RegexEngine engine;
    RegexSpan span;
    std::unique_ptr<pcre2_code, PcreCodeDeleter> pcre; // compiled anchored as the span asks
    std::unique_ptr<RE2> re2;
};

ProductRegex::ProductRegex(std::string_view pattern, RegexEngine engine, RegexSpan span, bool caseless)
    : m(std::make_unique<Compiled>())
{
    m->engine = engine;
    m->span = span;
    if (engine == RegexEngine::Re2) {
        RE2::Options options;
        options.set_case_sensitive(!caseless);
        options.set_log_errors(false);
        m->re2 = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
        if (!m->re2->ok())
            throw InputError("the regex " + quoted(std::string(pattern)) + " is refused by RE2: " + messageText(m->re2->error()));
        return;
    }
    const std::uint32_t anchors = span == RegexSpan::Whole   ? PCRE2_ANCHORED | PCRE2_ENDANCHORED
                                  : span == RegexSpan::Start ? PCRE2_ANCHORED
                                                             : 0u;
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     (caseless ? PCRE2_CASELESS : 0u) | anchors, &error, &offset, nullptr);
    if (!code) {
        PCRE2_UCHAR text[256];
        pcre2_get_error_message(error, text, sizeof text);
        throw InputError("the regex " + quoted(std::string(pattern)) + " is refused by PCRE2 at offset "
                         + std::to_string(offset) + ": " + reinterpret_cast<const char*>(text));
    }
    m->pcre.reset(code);
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); // as Debian's nginx (--with-pcre-jit); else the interpreter
}

ProductRegex::~ProductRegex() = default;
ProductRegex::ProductRegex(ProductRegex&&) noexcept = default;
ProductRegex& ProductRegex::operator=(ProductRegex&&) noexcept = default;

bool ProductRegex::matches(std::string_view subject) const
{
    if (m->engine == RegexEngine::Re2) {
        const re2::StringPiece s(subject.data(), subject.size());
        switch (m->span) {
        case RegexSpan::Anywhere: return RE2::PartialMatch(s, *m->re2);
        case RegexSpan::Start: return m->re2->Match(s, 0, s.size(), RE2::ANCHOR_START, nullptr, 0);
        case RegexSpan::Whole: return RE2::FullMatch(s, *m->re2);
        }
        return false;
    }
    const auto run = [&](std::uint32_t options) {
        return pcre2_match(m->pcre.get(), reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, options,
                           matchData(), nullptr);
    };
    // The JIT's own stack (32 KB) may be too small for a long subject: the interpreter keeps its
    // backtracking on the heap.
    int rc = run(0);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = run(PCRE2_NO_JIT);
    return rc >= 0;
}

std::string re2Quote(std::string_view text)
{
    return RE2::QuoteMeta(re2::StringPiece(text.data(), text.size()));
}

} // namespace ratelab
