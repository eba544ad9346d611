#include "arrivals.h"

#include "decimal.h"
#include "pattern.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace ratelab {

namespace {

std::string_view trim(std::string_view s)
{
    const auto first = s.find_first_not_of(" \t\r\f\v");
    if (first == std::string_view::npos)
        return {};
    const auto last = s.find_last_not_of(" \t\r\f\v");
    return s.substr(first, last - first + 1);
}

} // namespace

std::vector<Nanos> parseArrivals(std::string_view text, std::string_view name)
{
    std::vector<Nanos> out;
    std::size_t lineNo = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        ++lineNo;
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        const auto where = [&] { return std::string(name) + ":" + std::to_string(lineNo) + ": "; };
        if (line.find('\0') != std::string_view::npos)
            throw InputError(where() + "binary data, not a list of times in seconds");
        line = trim(line.substr(0, line.find('#')));
        if (line.empty())
            continue;
        Nanos t = 0;
        try {
            t = parseSeconds(line);
        } catch (const InputError& e) {
            throw InputError(where() + e.what() + " (expected a time in seconds)");
        }
        if (t < 0)
            throw InputError(where() + "time " + quoted(line) + " is negative");
        if (!out.empty() && t < out.back())
            throw InputError(where() + "time " + quoted(line) + " is earlier than the line before ("
                             + formatSeconds(out.back()) + " s); times must not go back");
        if (static_cast<std::int64_t>(out.size()) >= kMaxArrivals)
            throw InputError(where() + "more than " + std::to_string(kMaxArrivals) + " arrivals");
        out.push_back(t);
    }
    return out;
}

std::vector<Nanos> readArrivalsFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path + ": cannot read arrivals file (" + std::strerror(errno) + ")");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        throw InputError(path + ": cannot read arrivals file");
    return parseArrivals(buffer.str(), path);
}

} // namespace ratelab
