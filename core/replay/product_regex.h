// A location's or a route's regex, matched by the engine of the product that wrote it: PCRE2 for
// nginx (ngx_regex.c links PCRE2 since 1.21.5; Debian's 1.22.1 does) and Kong (OpenResty's
// ngx.re is PCRE), RE2 for Envoy's safe_regex (its only engine, source/common/common/regex.cc).
// Spring's {var:regex} segments are Java's regex; PCRE2 is the nearest engine in Debian.
//
// Neither engine recurses on the subject: PCRE2 (10.30 and later) keeps its backtracking on the
// heap, RE2 runs in linear time. A path of any length is matched or not, never a crash (std::regex
// recursed once a character and overflowed the stack on a 40,000-character URL).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace ratelab {

enum class RegexEngine {
    Pcre, // nginx, Kong, Spring segments
    Re2,  // Envoy
};

// How much of the subject a match must cover.
enum class RegexSpan {
    Anywhere, // nginx's `location ~`: ngx_regex_exec finds the pattern anywhere
    Start,    // Kong's "~" paths: anchored at the path's start
    Whole,    // Envoy's safe_regex, Spring's segment: the whole subject
};

class ProductRegex {
public:
    // It throws InputError naming the engine and its reason when the engine refuses pattern.
    ProductRegex(std::string_view pattern, RegexEngine engine, RegexSpan span, bool caseless = false);
    ~ProductRegex();
    ProductRegex(ProductRegex&&) noexcept;
    ProductRegex& operator=(ProductRegex&&) noexcept;

    // matches: whether subject holds a match over the span. A match PCRE2 gives up on (its match
    // limit of 10 million steps, a catastrophic pattern) is no match.
    bool matches(std::string_view subject) const;

private:
    struct Compiled;
    std::unique_ptr<Compiled> m;
};

// re2Quote is text as an RE2 pattern that matches it literally (RE2::QuoteMeta): a product's plain
// string (Envoy's `contains`, Traefik's Host) turned into the regex its condition holds.
std::string re2Quote(std::string_view text);

} // namespace ratelab
