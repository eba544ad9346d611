// CSV fields as RFC 4180 writes them, in one place for every CSV the program writes (compare,
// replay, the dry run, sweep, the app's exports).
#pragma once

#include <string>
#include <string_view>

namespace ratelab {

// csvNeedsQuotes: v holds a comma, a quote, a CR or an LF, which a reader would otherwise take
// for the field's end, the row's end or a quoted field.
bool csvNeedsQuotes(std::string_view v);

// csvField is v as one CSV field: quoted, its quotes doubled, when csvNeedsQuotes; else v itself.
std::string csvField(std::string_view v);

} // namespace ratelab
