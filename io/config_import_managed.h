// Reading the configuration of the managed services people buy instead of a limiter:
// an Amazon API Gateway usage plan (`aws apigateway get-usage-plan` JSON, or CloudFormation's
// AWS::ApiGateway::UsagePlan Throttle / Quota and a stage's MethodSettings throttling), an AWS WAF
// rate-based statement (JSON), a Cloudflare rate limiting rule (the rulesets API's JSON) and an
// Upstash `new Ratelimit({ ... limiter: Ratelimit.slidingWindow(10, "10 s") })` snippet, each into
// a scenario of its model (aws_api_gateway, aws_waf_rate, cloudflare_rate, upstash_ratelimit).
#pragma once

#include "config_import.h"

#include <optional>

namespace ratelab::io {

// isManaged is whether the product is one of those services.
bool isManaged(ConfigProduct p);

// isUpstashSnippet is whether text calls one of @upstash/ratelimit's limiters
// (Ratelimit.slidingWindow(...), fixedWindow, tokenBucket, cachedFixedWindow).
bool isUpstashSnippet(const QByteArray& text);

// importManaged builds the scenario of the service detectProduct recognised in doc. It throws
// InputError for values the model refuses (a WAF Limit below 10, a Cloudflare period it does not
// offer).
ImportedConfig importManaged(const ConfigDocument& doc);

} // namespace ratelab::io
