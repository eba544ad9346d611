// q is UTF-8 text as a QString: the one conversion io's readers and writers use.
#pragma once

#include <QString>

#include <string_view>

namespace ratelab::io {

inline QString q(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

} // namespace ratelab::io
