// Text, the output buffer the compare writers append to (report.cpp, report_clients.cpp).
#pragma once

#include "arithmetic/nanos.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

namespace ratelab {

// Text collects output and writes it to the stream in large pieces. Numbers are appended with
// std::to_chars in the forms formatSeconds and formatNumber give, without a temporary string.
class Text {
public:
    explicit Text(std::ostream& out) : m_out(out) { m_buffer.reserve(kFlushBytes + 4096); }
    ~Text() { flush(); }
    Text(const Text&) = delete;
    Text& operator=(const Text&) = delete;

    Text& operator<<(std::string_view s)
    {
        m_buffer.append(s);
        return *this;
    }
    Text& operator<<(char c)
    {
        m_buffer.push_back(c);
        return *this;
    }
    Text& operator<<(std::int64_t v)
    {
        char digits[24];
        m_buffer.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr - digits);
        return *this;
    }
    Text& operator<<(std::size_t v) { return *this << static_cast<std::int64_t>(v); }
    Text& operator<<(std::int32_t v) { return *this << static_cast<std::int64_t>(v); }

    // seconds appends formatSeconds(t): exact, at most nine decimals, no trailing zeros.
    Text& seconds(Nanos t)
    {
        char text[32];
        char* p = text;
        if (t < 0)
            *p++ = '-';
        const std::uint64_t v = t < 0 ? 0 - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
        p = std::to_chars(p, text + sizeof text, v / kNanosPerSecond).ptr;
        if (std::uint64_t frac = v % kNanosPerSecond; frac != 0) {
            char digits[9];
            for (int i = 8; i >= 0; --i, frac /= 10)
                digits[i] = char('0' + frac % 10);
            int len = 9;
            while (digits[len - 1] == '0')
                --len;
            *p++ = '.';
            std::memcpy(p, digits, std::size_t(len));
            p += len;
        }
        m_buffer.append(text, p);
        return *this;
    }

    // number appends formatNumber(v): the shortest round trip, with a point or exponent, or null.
    Text& number(double v)
    {
        if (!std::isfinite(v))
            return *this << "null";
        char text[64];
        char* const end = std::to_chars(text, text + sizeof text, v).ptr;
        m_buffer.append(text, end);
        if (std::string_view(text, std::size_t(end - text)).find_first_of(".e") == std::string_view::npos)
            m_buffer.append(".0");
        return *this;
    }

    // flushSome writes the text out once it has grown large; flush writes it all.
    void flushSome()
    {
        if (m_buffer.size() >= kFlushBytes)
            flush();
    }
    void flush()
    {
        m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
        m_buffer.clear();
    }

private:
    static constexpr std::size_t kFlushBytes = std::size_t(1) << 16;
    std::ostream& m_out;
    std::string m_buffer;
};

} // namespace ratelab
