#include "advise/nginx_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"
#include "limiters/worst_case.h"

#include <algorithm>
#include <bit>

namespace ratelab {

namespace {

// nginxQuoted is text as a double-quoted nginx word: ngx_conf_read_token ends it at the next
// unescaped quote, and the parser turns \\ into \ and \" into " (and \t, \r, \n into their
// characters), so a backslash or quote of the text is written escaped.
std::string nginxQuoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '\\' || c == '"')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

} // namespace

std::vector<std::int64_t> NginxBurstFamily::roundSteps() const
{
    std::vector<std::int64_t> out;
    for (std::int64_t m : {1, 2, 5, 10, 20, 30}) // r/m
        if (m <= m_top)
            out.push_back(m);
    for (std::int64_t decade = 60; decade <= m_top; decade *= 10) // r/s
        for (std::int64_t m : {1, 2, 5})
            if (decade * m <= m_top)
                out.push_back(decade * m);
    return out;
}

Rate NginxBurstFamily::rate(std::int64_t step) const
{
    return Rate::reduced(step, kNanosPerMinute);
}

std::string NginxBurstFamily::rateText(std::int64_t step) const { return nginxRateText(rate(step)); }

LimiterConfig NginxBurstFamily::config(std::int64_t step, std::int64_t burst) const
{
    // nginx_limit_req reads the rate and the nginx options only; the limit of 1 is make's due.
    return LimiterConfig::make(1, kNanosPerMinute, std::nullopt, rate(step)).withNginx(NginxOptions{burst, true, 0});
}

std::int64_t NginxBurstFamily::burstNeeded(KeyTrace trace, std::int64_t step) const
{
    // The largest burst nginx_limit_req holds stands in for none: a key that needs more is refused.
    NginxLimitReq nginx(config(step, LimiterConfig::kMaxLimit));
    std::int64_t most = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        if (!nginx.decide(trace.times[i], trace.cost(i)).allowed)
            throw InputError("advise: a key needs a burst above " + grouping(LimiterConfig::kMaxLimit) + " at "
                             + rateText(step) + ", more than nginx_limit_req models");
        most = std::max(most, nginx.excessThousandths());
    }
    return (most + 999) / 1000; // rejected iff excess > burst*1000: the least whole burst at or above it
}

std::int64_t NginxBurstFamily::denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    NginxLimitReq nginx(config(step, burst));
    return deniedOn(nginx, trace);
}

void NginxBurstFamily::passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const
{
    NginxLimitReq nginx(config(step, burst));
    passedOn(nginx, trace, out);
}

std::optional<std::int64_t> NginxBurstFamily::mostIn(std::int64_t step, std::int64_t burst, Nanos window) const
{
    return worstCaseBound(Algorithm::NginxLimitReq, config(step, burst), window);
}

std::string nginxAdviceConfig(const NginxBurstFamily& family, std::int64_t step, std::int64_t burst,
                              const std::string& key, std::int64_t megabytes, const LetBy& letBy)
{
    if (!letBy.any())
        return nginxDirectives(family.config(step, burst), key, megabytes) + "limit_req_dry_run on;\n";
    // A request whose key is empty is not accounted (ngx_http_limit_req_handler: "if (key.len ==
    // 0) continue"): the map gives the ones let by an empty key, every other its own.
    return "map " + std::string(letBy.path.empty() ? "$http_user_agent" : "$request_uri") + " $ratelab_key {\n    "
           + nginxQuoted("~" + letBy.written()) + " \"\";\n    default " + key + ";\n}\n"
           + nginxDirectives(family.config(step, burst), "$ratelab_key", megabytes) + "limit_req_dry_run on;\n";
}

std::int64_t nginxStateBytes(std::size_t keyBytes) { return std::int64_t(std::bit_ceil(80 + keyBytes)); }

std::int64_t nginxZoneMegabytes(std::int64_t keys, std::size_t keyBytes)
{
    constexpr std::int64_t kMiB = 1024 * 1024;
    return std::max<std::int64_t>(1, std::int64_t(ceilDiv(Int128(2) * keys * nginxStateBytes(keyBytes), kMiB)));
}

} // namespace ratelab
