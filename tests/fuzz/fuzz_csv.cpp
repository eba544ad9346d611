// Fuzz target: the one CSV writer (core/arithmetic/text.h). Any bytes, cut into fields at each 0x00
// and into rows at each 0x01, written with csvField, read back by RFC 4180's grammar (written
// out below, apart from the writer): the same rows, field for field, and each row's field count.
#include "fuzz_check.h"
#include "arithmetic/text.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using Rows = std::vector<std::vector<std::string>>;

namespace {

// readCsv is RFC 4180 section 2: fields split by commas, records by CRLF or LF; a field that
// starts with a quote runs to the quote not doubled, inside which commas, CR and LF are data.
// It returns false on text the grammar does not allow (a quote inside a bare field, text after a
// closing quote, an open quote at the end).
bool readCsv(std::string_view text, Rows& rows)
{
    std::size_t i = 0;
    while (i < text.size()) {
        std::vector<std::string> row;
        while (true) {
            std::string field;
            if (i < text.size() && text[i] == '"') {
                ++i;
                while (true) {
                    if (i >= text.size())
                        return false;
                    if (text[i] == '"') {
                        if (i + 1 < text.size() && text[i + 1] == '"') {
                            field += '"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    field += text[i++];
                }
                if (i < text.size() && text[i] != ',' && text[i] != '\n')
                    return false;
            } else {
                while (i < text.size() && text[i] != ',' && text[i] != '\n') {
                    if (text[i] == '"' || text[i] == '\r')
                        return false;
                    field += text[i++];
                }
            }
            row.push_back(std::move(field));
            if (i < text.size() && text[i] == ',') {
                ++i;
                continue;
            }
            break;
        }
        if (i >= text.size() || text[i] != '\n')
            return false; // every row the writer writes ends with its line end
        ++i;
        rows.push_back(std::move(row));
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    Rows want(1, std::vector<std::string>(1));
    for (const char c : in) {
        if (c == '\0')
            want.back().emplace_back();
        else if (c == '\1')
            want.emplace_back(1);
        else
            want.back().back() += c;
    }
    std::string text;
    for (const auto& row : want) {
        for (std::size_t f = 0; f < row.size(); ++f)
            text += (f ? "," : "") + ratelab::csvField(row[f]);
        text += '\n';
    }
    Rows got;
    FUZZ_CHECK(readCsv(text, got), text);
    FUZZ_CHECK(got == want, text);
    return 0;
}
