#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"
#include "limiters/products/product.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cctype>

namespace ratelab::io {

namespace {

using Flat = std::vector<std::pair<std::string, std::string>>;

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

QString unquote(QString v)
{
    v = v.trimmed();
    if (v.size() >= 2 && ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\'')))
        return v.mid(1, v.size() - 2);
    return v;
}

// stripComment drops a YAML/TOML comment: '#' at the start or after a space, outside quotes.
QString stripComment(const QString& line)
{
    QChar quote;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '#' && (i == 0 || line[i - 1].isSpace())) {
            return line.left(i);
        }
    }
    return line;
}

void flattenJson(const QJsonValue& v, const std::string& path, Flat& out)
{
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            flattenJson(it.value(), path.empty() ? it.key().toStdString() : path + "." + it.key().toStdString(), out);
    } else if (v.isArray()) {
        for (const QJsonValue& item : v.toArray())
            flattenJson(item, path, out);
    } else if (v.isString()) {
        out.emplace_back(path, v.toString().toStdString());
    } else if (v.isDouble()) {
        const double d = v.toDouble();
        out.emplace_back(path, v.toVariant().typeId() == QMetaType::LongLong ? std::to_string(v.toInteger())
                                                                               : QString::number(d, 'g', 17).toStdString());
    } else if (v.isBool()) {
        out.emplace_back(path, v.toBool() ? "true" : "false");
    }
}

Flat flattenToml(const QStringList& lines)
{
    Flat out;
    std::string prefix;
    static const QRegularExpression table(R"(^\s*\[+\s*([^\]]+?)\s*\]+\s*$)");
    for (const QString& raw : lines) {
        const QString line = stripComment(raw).trimmed();
        if (line.isEmpty())
            continue;
        if (const auto m = table.match(line); m.hasMatch()) {
            prefix = unquote(m.captured(1)).toStdString();
            continue;
        }
        const qsizetype eq = line.indexOf('=');
        if (eq <= 0)
            continue;
        const std::string key = unquote(line.left(eq)).toStdString();
        out.emplace_back(prefix.empty() ? key : prefix + "." + key, unquote(line.mid(eq + 1)).toStdString());
    }
    return out;
}

Flat flattenYaml(const QStringList& lines)
{
    Flat out;
    std::vector<std::pair<qsizetype, std::string>> stack; // (indent of the key, key) of open maps
    const auto path = [&](const std::string& key) {
        std::string p;
        for (const auto& [indent, k] : stack)
            p += (p.empty() ? "" : ".") + k;
        return key.empty() ? p : p.empty() ? key : p + "." + key;
    };
    for (const QString& raw : lines) {
        QString line = stripComment(raw);
        if (line.trimmed().isEmpty() || line.trimmed() == "---")
            continue;
        qsizetype indent = 0;
        while (indent < line.size() && line[indent] == ' ')
            ++indent;
        QString content = line.mid(indent).trimmed();
        while (content.startsWith("- ") || content == "-") { // a list item: its keys sit after "- "
            indent += 2;
            content = content.mid(2).trimmed();
        }
        while (!stack.empty() && stack.back().first >= indent)
            stack.pop_back();
        if (content.isEmpty())
            continue;
        qsizetype colon = content.indexOf(": ");
        if (colon < 0 && content.endsWith(':'))
            colon = content.size() - 1;
        if (colon <= 0) {
            out.emplace_back(path(""), unquote(content).toStdString()); // a scalar list item
            continue;
        }
        const std::string key = unquote(content.left(colon)).toStdString();
        const QString value = content.mid(colon + 1).trimmed();
        if (value.isEmpty())
            stack.emplace_back(indent, key);
        else
            out.emplace_back(path(key), unquote(value).toStdString());
    }
    return out;
}

// find returns the first value whose dotted path ends with `suffix` (whole components,
// case-insensitive).
std::optional<std::string> find(const Flat& flat, const std::string& suffix)
{
    const std::string want = lower(suffix);
    for (const auto& [path, value] : flat) {
        const std::string p = lower(path);
        if (p == want || (p.size() > want.size() && p.ends_with(want) && p[p.size() - want.size() - 1] == '.'))
            return value;
    }
    return std::nullopt;
}

// product evaluates "15 * 60 * 1000" as express-rate-limit options are often written.
std::string product(const std::string& text)
{
    if (text.find('*') == std::string::npos)
        return text;
    Int128 total = 1;
    for (const QString& part : QString::fromStdString(text).split('*')) {
        total *= parseIntegerIn(part.trimmed().toStdString(), 0, LimiterConfig::kMaxLimit);
        if (total > Int128(kMaxNanos))
            throw InputError("the value " + ratelab::quoted(text) + " is too large");
    }
    return std::to_string(static_cast<long long>(total));
}

ImportedConfig productScenario(Algorithm a, std::string productName, const Flat& flat,
                               std::initializer_list<std::pair<const char*, const char*>> names)
{
    ImportedConfig out;
    out.product = std::move(productName);
    std::vector<ProductOption> options;
    for (const auto& [fileName, optionName] : names)
        if (const auto v = find(flat, fileName)) {
            const std::string value = a == Algorithm::ExpressRateLimit ? product(*v) : *v;
            out.wrote.emplace_back(fileName, *v);
            options.push_back({optionName, value});
        }
    out.scenario.algorithms = {a};
    out.scenario.config = LimiterConfig{}.withProductOptions(std::move(options));
    checkProductOptions(out.scenario.config, out.scenario.algorithms); // the product refuses bad values
    return out;
}

ImportedConfig nginxScenario(const QString& text)
{
    static const QRegularExpression zone(R"(limit_req_zone\s+[^;]*?zone=([\w-]+):\S+\s+[^;]*?rate=(\d+)r/([sm]))");
    static const QRegularExpression req(R"(limit_req\s+zone=([\w-]+)([^;]*);)");
    const auto z = zone.match(text);
    if (!z.hasMatch())
        throw InputError("nginx: no limit_req_zone ... rate=Nr/s (or r/m) line found");
    const std::int64_t n = parseIntegerIn(z.captured(2).toStdString(), 1, LimiterConfig::kMaxLimit);
    const Nanos per = z.captured(3) == "s" ? kNanosPerSecond : 60 * kNanosPerSecond;
    ImportedConfig out;
    out.product = "nginx limit_req";
    out.wrote.emplace_back("rate", z.captured(2).toStdString() + "r/" + z.captured(3).toStdString());
    NginxOptions options;
    options.burst = 0; // nginx's own default: no burst
    auto it = req.globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        if (m.captured(1) != z.captured(1))
            continue;
        const QString args = m.captured(2);
        static const QRegularExpression burst(R"(burst=(\d+))");
        static const QRegularExpression delay(R"(delay=(\d+))");
        if (const auto b = burst.match(args); b.hasMatch()) {
            options.burst = parseIntegerIn(b.captured(1).toStdString(), 0, LimiterConfig::kMaxLimit);
            out.wrote.emplace_back("burst", b.captured(1).toStdString());
        }
        if (args.contains(QRegularExpression(R"(\bnodelay\b)"))) {
            options.nodelay = true;
            out.wrote.emplace_back("nodelay", "");
        } else if (const auto d = delay.match(args); d.hasMatch()) {
            options.delay = parseIntegerIn(d.captured(1).toStdString(), 0, LimiterConfig::kMaxLimit);
            out.wrote.emplace_back("delay", d.captured(1).toStdString());
        }
        break;
    }
    out.scenario.algorithms = {Algorithm::NginxLimitReq};
    out.scenario.config = LimiterConfig::make(n, per, *options.burst + 1, Rate::reduced(n, per)).withNginx(options);
    return out;
}

} // namespace

std::vector<std::pair<std::string, std::string>> flattenConfig(const QByteArray& text)
{
    const QByteArray trimmed = text.trimmed();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(trimmed, &error);
        if (error.error == QJsonParseError::NoError) {
            Flat out;
            flattenJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), "", out);
            return out;
        }
    }
    const QStringList lines = QString::fromUtf8(text).split('\n');
    static const QRegularExpression tomlKey(R"(^\s*[\w."-]+\s*=)");
    static const QRegularExpression yamlKey(R"(^\s*(- )?[\w."-]+:(\s|$))");
    qsizetype toml = 0, yaml = 0;
    for (const QString& l : lines) {
        toml += tomlKey.match(l).hasMatch() ? 1 : 0;
        yaml += yamlKey.match(l).hasMatch() ? 1 : 0;
    }
    return toml > yaml ? flattenToml(lines) : flattenYaml(lines);
}

ImportedConfig importConfiguration(const QByteArray& text)
{
    const QString s = QString::fromUtf8(text);
    if (s.contains(QRegularExpression(R"(\blimit_req_zone\b)")))
        return nginxScenario(s);
    const Flat flat = flattenConfig(text);
    if (find(flat, "token_bucket.max_tokens") || find(flat, "max_tokens"))
        return productScenario(Algorithm::EnvoyLocal, "Envoy local_ratelimit", flat,
                               {{"max_tokens", "max_tokens"}, {"tokens_per_fill", "tokens_per_fill"},
                                {"fill_interval", "fill_interval"}});
    if (find(flat, "rateLimit.average") || find(flat, "rateLimit.burst"))
        return productScenario(Algorithm::Traefik, "Traefik rateLimit", flat,
                               {{"rateLimit.average", "average"}, {"rateLimit.period", "period"}, {"rateLimit.burst", "burst"}});
    if (find(flat, "replenishRate") || find(flat, "redis-rate-limiter.replenishRate"))
        return productScenario(Algorithm::SpringGateway, "Spring Cloud Gateway RedisRateLimiter", flat,
                               {{"replenishRate", "replenishRate"}, {"burstCapacity", "burstCapacity"},
                                {"requestedTokens", "requestedTokens"}});
    const bool kong = std::any_of(flat.begin(), flat.end(), [](const auto& kv) { return kv.second == "rate-limiting"; });
    if (kong) {
        ImportedConfig out = productScenario(Algorithm::Kong, "Kong rate-limiting", flat,
                                             {{"config.second", "second"}, {"config.minute", "minute"},
                                              {"config.hour", "hour"}, {"config.day", "day"},
                                              {"config.month", "month"}, {"config.year", "year"}});
        if (const auto policy = find(flat, "config.policy"); policy && *policy != "local")
            out.wrote.emplace_back("policy", *policy + " (modelled as local: one node's counters)");
        return out;
    }
    if (find(flat, "windowMs"))
        return productScenario(Algorithm::ExpressRateLimit, "express-rate-limit", flat,
                               {{"windowMs", "windowMs"}, {"max", "max"}, {"limit", "limit"}});
    if (find(flat, "points") && find(flat, "duration"))
        return productScenario(Algorithm::RateLimiterFlexible, "rate-limiter-flexible", flat,
                               {{"points", "points"}, {"duration", "duration"}, {"blockDuration", "blockDuration"}});
    throw InputError("no rate limit found: expected an nginx limit_req_zone, an Envoy token_bucket, a Traefik "
                     "rateLimit, a Spring redis-rate-limiter, a Kong rate-limiting plugin or express-rate-limit options");
}

ImportedConfig importConfigurationFile(const QString& path)
{
    constexpr qint64 kMaxBytes = 4 * 1024 * 1024;
    const std::string name = ratelab::quoted(path.toStdString());
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly))
        throw InputError("cannot read " + name);
    const QByteArray text = file.read(kMaxBytes + 1);
    if (text.size() > kMaxBytes)
        throw InputError(name + " is larger than 4 MiB");
    ImportedConfig imported = importConfiguration(text);
    imported.scenario.title = "Imported: " + imported.product;
    std::vector<Nanos> page;
    for (int i = 0; i < 27; ++i)
        page.push_back(i * 2'000'000);
    imported.scenario.explicitArrivals = page; // the page load the explanation starts with
    imported.scenario.lesson = "Read from " + QFileInfo(path).fileName().toStdString() + ".\n\n" + whatYouGet(imported);
    return imported;
}

} // namespace ratelab::io
