// nginx's limit_req as a BurstFamily (advise.h): its rates are every whole number a minute, step N
// being N r/m, the rates `rate=` writes (N r/s is 60N r/m exactly: N*1000 thousandths either way,
// so the per-second rates are on the ladder); its decisions are NginxLimitReq's
// (nginx_limit_req.h), nodelay. The ladder stops at a top per second, LimiterConfig::kMaxLimit
// unless told (a test bounds it to try every step).
//
// The burst one key needs at rate r: nginx keeps `excess` in thousandths of a request,
//     excess = max(0, excess - r*ms/1000 + 1000)   (r in thousandths a second, ms whole)
// and rejects iff excess > burst*1000. With no burst limit every request is accepted, so the
// least burst accepting them all is ceil(max excess / 1000) over the key's requests (its first
// finds excess 0). A larger r drains at least as much each time (r*ms/1000 grows with r, and the
// step's r grows with the step: N*1000/60 truncated, then N*1000), so the excess after every
// request, and the burst, never grow with the step.
#pragma once

#include "advise/advise.h"
#include "advise/let_by.h"
#include "limiters/config.h"

namespace ratelab {

class NginxBurstFamily final : public BurstFamily {
public:
    explicit NginxBurstFamily(std::int64_t topPerSecond = LimiterConfig::kMaxLimit) : m_top(60 * topPerSecond) {}

    std::string product() const override { return "nginx"; }
    std::int64_t maxStep() const override { return m_top; }
    std::vector<std::int64_t> roundSteps() const override;
    Rate rate(std::int64_t step) const override;
    std::string rateText(std::int64_t step) const override;
    std::int64_t burstNeeded(KeyTrace trace, std::int64_t step) const override;
    std::int64_t denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const override;
    void passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const override;
    // mostIn: worstCaseBound's for nginx_limit_req, burst + 1 + floor(rate * ms / 1000) over the
    // most whole ms the window spans: reached when the rate is r/s with r dividing 1000, an upper
    // bound elsewhere (worst_case.cpp).
    std::optional<std::int64_t> mostIn(std::int64_t step, std::int64_t burst, Nanos window) const override;

    // config is the step's rate with this burst, nodelay: what the written config says.
    LimiterConfig config(std::int64_t step, std::int64_t burst) const;

private:
    std::int64_t m_top;
};

// nginxAdviceConfig is the config `advise` writes for (step, burst), the zone keyed by `key` (an
// nginx variable) and `megabytes` large, in shadow mode: limit_req_dry_run on, so nginx logs
// what it would reject and rejects nothing until that line is deleted. With letBy, the zone is
// keyed by a map ($ratelab_key) that gives the requests let by an empty key, which nginx does not
// count, and every other request `key`.
std::string nginxAdviceConfig(const NginxBurstFamily& family, std::int64_t step, std::int64_t burst,
                              const std::string& key, std::int64_t megabytes, const LetBy& letBy = {});

// nginxStateBytes is what one key's state takes in a limit_req zone on a 64-bit nginx: its node,
// offsetof(ngx_rbtree_node_t, color) + offsetof(ngx_http_limit_req_node_t, data) + the key's
// bytes = 32 + 48 + keyBytes, in the slab allocator's chunk, the power of two at or above it
// (128 bytes up to a 48-byte key, as nginx's documentation says of 64-bit platforms).
std::int64_t nginxStateBytes(std::size_t keyBytes);

// nginxZoneMegabytes is a zone that holds twice the keys (room for more than the log had):
// ceil(2 * keys * nginxStateBytes(keyBytes) / 1 MiB), nginx's `m`, at least 1.
std::int64_t nginxZoneMegabytes(std::int64_t keys, std::size_t keyBytes);

} // namespace ratelab
