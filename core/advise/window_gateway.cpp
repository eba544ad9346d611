#include "advise/window_gateway.h"

#include "advise/express_advice.h"
#include "advise/kong_advice.h"
#include "advise/managed_advice.h"
#include "advise/upstash_advice.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

namespace ratelab {

bool isWindowGateway(std::string_view product)
{
    return product == "kong" || product == "express" || product == "cloudflare" || product == "aws-waf"
           || product == "upstash";
}

std::string windowGatewayName(std::string_view product)
{
    return product == "kong"         ? "Kong"
           : product == "express"    ? "express-rate-limit"
           : product == "cloudflare" ? "Cloudflare"
           : product == "aws-waf"    ? "AWS WAF"
                                     : "@upstash/ratelimit";
}

std::string capProblem(std::string_view product)
{
    if (product == "traefik")
        return "Traefik serves a request late rather than deny it, and counts its tokens in floating point: no exact "
               "bound of what one key gets through in a window is derived for it";
    if (product == "aws-waf")
        return "AWS WAF lets a key's burst through whole until a check sees it (every 10 s, in force 30 s later): no "
               "count in a window bounds what one key gets through";
    return {};
}

std::string windowGatewayKeyProblem(const std::string& product, const std::string& key)
{
    if (key == "ip" || product == "upstash")
        return {};
    if (product == "express") // rate-limit.ts's default keyGenerator: req.ip
        return "express-rate-limit keys by the request's IP unless a keyGenerator of your code says otherwise, which "
               "the written options cannot carry: only ip";
    if (product == "cloudflare" || product == "aws-waf") // the written rule's key, which the dry run replays
        return std::string("the written rule counts by the client's IP (")
               + (product == "cloudflare" ? "ip.src" : "AggregateKeyType IP") + "): only ip";
    if (product == "kong" && !kongLimitBy(key))
        return "Kong's rate-limiting has no limit_by for " + ratelab::quoted(key)
               + " (it offers: ip, user as the consumer, http_NAME as a header)";
    return {};
}

std::string kongUnkeyedProblem(const std::string& key, bool consumer, std::int64_t unlimited)
{
    if (consumer || key == "ip" || unlimited == 0)
        return {};
    return "Kong counts a request without the header by its client IP, and " + counted(unlimited, "request")
           + " of the log lack it: advise by ip, or on a log whose every request has it";
}

WindowGatewayAdvice::WindowGatewayAdvice(const WindowGatewayTerms& terms, const Traffic& traffic)
    : m_product(terms.product)
{
    if (!isWindowGateway(terms.product))
        throw InputError("advise: " + ratelab::quoted(terms.product) + " is no gateway of a count in a window");
    if (const std::string problem = windowGatewayKeyProblem(terms.product, terms.key); !problem.empty())
        throw InputError("--key: " + problem);
    if (const std::string problem = capProblem(terms.product); terms.cap && !problem.empty())
        throw InputError("--cap: " + problem);
    LetBy letBy = terms.letBy;
    letBy.product = terms.product;
    if (const std::string problem = letByProblem(letBy); letBy.any() && !problem.empty())
        throw InputError(letBy.option() + ": " + problem);
    m_traces = keyedTraces(traffic, terms.pass, letByOf(traffic, letBy));
    m_traces.keptBy = terms.keptBy;
    if (terms.product == "kong")
        fromKong(terms);
    else if (terms.product == "express")
        fromExpress(terms);
    else if (terms.product == "upstash")
        fromUpstash(terms);
    else
        fromManaged(terms);
    const WindowGoals goals{terms.cap, terms.origin};
    if (!goals.any())
        return;
    const WindowChoice choice = chooseWindow(m_traces, m_keys, m_models, denialsOf(m_rows), m_recommended, goals,
                                             windowGatewayName(m_product), [&](std::size_t r) { return m_rows[r].point; });
    for (std::size_t r = 0; r < m_rows.size(); ++r) {
        if (!choice.mostIn.empty())
            m_rows[r].mostIn = choice.mostIn[r];
        if (!choice.origin.empty())
            m_rows[r].origin = choice.origin[r];
    }
    m_recommended = choice.recommended;
    m_movedByGoals = choice.moved;
}

void WindowGatewayAdvice::fromKong(const WindowGatewayTerms& terms)
{
    const KongLimitBy limitBy = *kongLimitBy(terms.key);
    const KongAdvice k = adviseKong(m_traces, terms.keep);
    if (const std::string problem = kongUnkeyedProblem(terms.key, limitBy.consumer, k.keys.unlimitedRequests);
        !problem.empty())
        throw InputError("--key: " + problem);
    m_keys = k.keys;
    m_windowName = "window";
    m_limitName = "limit";
    const std::vector<KongPoint> rows = kongRows(k); // each shown period alone, then any minute with a second under it
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const KongLimits& l = rows[r].limits;
        if (r < kKongShownPeriods)
            m_rows.push_back({std::string(Kong::periodName(int(r))), grouping(l[r]), kongLimitsText(l), rows[r].denied});
        else
            m_rows.push_back({"minute, second", grouping(l[1]) + ", " + grouping(l[0]), kongLimitsText(l), rows[r].denied});
        m_configs.push_back(kongAdviceConfig(l, limitBy, terms.letBy));
    }
    m_models = kongRowModels(k, limitBy.consumer);
    m_recommended = kongRecommendedRow(k);
}

void WindowGatewayAdvice::fromExpress(const WindowGatewayTerms& terms)
{
    const ExpressAdvice e = adviseExpress(m_traces, terms.keep);
    m_keys = e.keys;
    m_windowName = "windowMs";
    m_limitName = "limit";
    for (const ExpressPoint& w : e.windows) {
        m_rows.push_back({std::to_string(w.windowMs), grouping(w.limit),
                          "windowMs " + std::to_string(w.windowMs) + ", limit " + grouping(w.limit), w.denied});
        m_configs.push_back(expressAdviceConfig(w.windowMs, w.limit));
    }
    m_models = expressRowModels(e);
    m_recommended = kExpressRecommended;
}

void WindowGatewayAdvice::fromManaged(const WindowGatewayTerms& terms)
{
    const bool cloudflare = terms.product == "cloudflare";
    const WindowAdvice w = cloudflare ? adviseCloudflare(m_traces, terms.keep) : adviseAwsWaf(m_traces, terms.keep);
    m_keys = w.keys;
    m_windowName = cloudflare ? "period" : "EvaluationWindowSec";
    m_limitName = cloudflare ? "requests_per_period" : "Limit";
    for (const WindowPoint& p : w.windows) {
        m_rows.push_back({std::to_string(p.window) + " s", grouping(p.limit),
                          m_windowName + " " + std::to_string(p.window) + ", " + m_limitName + " " + grouping(p.limit), p.denied});
        m_configs.push_back(cloudflare ? cloudflareAdviceConfig(p.window, p.limit) : wafAdviceConfig(p.window, p.limit));
    }
    m_models = managedRowModels(w, cloudflare);
    m_recommended = w.recommendedIndex;
}

void WindowGatewayAdvice::fromUpstash(const WindowGatewayTerms& terms)
{
    const UpstashAdvice u = adviseUpstash(m_traces, terms.keep);
    m_keys = u.keys;
    m_windowName = "limiter";
    m_limitName = "tokens";
    for (const UpstashPoint& p : u.limiters) {
        m_rows.push_back({std::string(p.sliding ? "slidingWindow " : "fixedWindow ") + upstashWindowText(p.windowMs),
                          grouping(p.tokens), "Ratelimit." + upstashLimiterCall(p), p.denied});
        m_configs.push_back(upstashAdviceSnippet(p));
    }
    m_models = upstashRowModels(u);
    m_recommended = kUpstashRecommended;
}

std::optional<std::size_t> WindowGatewayAdvice::shownKey(std::size_t row) const
{
    return ratelab::shownKey(m_traces, m_rows.at(row).denied);
}

} // namespace ratelab
