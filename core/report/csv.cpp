#include "report/csv.h"

namespace ratelab {

bool csvNeedsQuotes(std::string_view v) { return v.find_first_of(",\"\r\n") != std::string_view::npos; }

std::string csvField(std::string_view v)
{
    if (!csvNeedsQuotes(v))
        return std::string(v);
    std::string out = "\"";
    for (const char c : v) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

} // namespace ratelab
