// Text, the output buffer the compare writers append to (report.cpp, report_clients.cpp).
#pragma once

#include "arithmetic/nanos.h"
#include "arithmetic/text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
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
        // Formatted in place at the buffer's end: a copy through a local array was a tenth of a
        // streamed CSV row's instructions.
        const std::size_t at = m_buffer.size();
        m_buffer.resize(at + kSecondsChars);
        m_buffer.resize(std::size_t(secondsChars(m_buffer.data() + at, t) - m_buffer.data()));
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
