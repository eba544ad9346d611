// How this merges with the cost column (`t,cost`, added in arrivals.cpp by the deployment work):
// the final format is `t[,cost[,client]]`. Once arrivals.cpp parses `t,cost`, its line() takes a
// third field with parseClientField below (moved there), ArrivalsParser returns the clients next
// to the times and costs, and this file shrinks to that field parser: `t,client` is then no longer
// accepted, since a second column means the cost.
#include "arrivals_clients.h"

#include "clients.h"
#include "decimal.h"
#include "pattern.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

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

// parseClientField parses a client column: an integer in 0..kMaxClients - 1.
std::int64_t parseClientField(std::string_view text)
{
    try {
        return parseIntegerIn(text, 0, ClientConfig::kMaxClients - 1);
    } catch (const InputError& e) {
        throw InputError("client " + quoted(text) + ": " + e.what() + " (expected a client number from 0 to "
                         + std::to_string(ClientConfig::kMaxClients - 1) + ")");
    }
}

class Reader {
public:
    explicit Reader(std::string_view name) : m_name(name) {}

    void line(std::string_view text)
    {
        ++m_lineNo;
        if (m_lineNo == 1 && text.starts_with("\xEF\xBB\xBF"))
            text.remove_prefix(3);
        for (const char c : text)
            if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
                fail("binary data, not a list of times in seconds");
        text = trim(text.substr(0, text.find('#')));
        if (text.empty())
            return;
        const auto comma = text.find(',');
        const std::string_view time = trim(text.substr(0, comma));
        const bool named = comma != std::string_view::npos;
        Nanos t = 0;
        try {
            t = parseSeconds(time);
        } catch (const InputError& e) {
            fail(e.what());
        }
        if (t < 0)
            fail("time " + quoted(time) + " is negative");
        if (!m_out.times.empty() && t < m_out.times.back())
            fail("time " + quoted(time) + " is earlier than the line before (" + formatSeconds(m_out.times.back())
                 + " s); times must not go back");
        if (!m_out.times.empty() && named != m_named)
            fail(named ? "names a client, but the lines before do not; name one on every line or on none"
                       : "names no client, but the lines before do; name one on every line or on none");
        m_named = named;
        if (static_cast<std::int64_t>(m_out.times.size()) >= kMaxArrivals)
            fail("more than " + std::to_string(kMaxArrivals) + " arrivals, the most one scenario may hold");
        if (named) {
            const std::string_view client = trim(text.substr(comma + 1));
            if (client.find(',') != std::string_view::npos)
                fail("more than two columns; expected `t` or `t,client`");
            try {
                m_out.clients.push_back(parseClientField(client));
            } catch (const InputError& e) {
                fail(e.what());
            }
        }
        m_out.times.push_back(t);
    }

    ArrivalsWithClients finish() { return std::move(m_out); }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError(m_name + ":" + std::to_string(m_lineNo) + ": " + what);
    }

    std::string m_name;
    std::size_t m_lineNo = 0;
    bool m_named = false;
    ArrivalsWithClients m_out;
};

// kMaxLineBytes bounds one line, so a file without line breaks is refused, not read to the end.
constexpr std::size_t kMaxLineBytes = 64 * 1024;

} // namespace

ArrivalsWithClients parseArrivalsWithClients(std::string_view text, std::string_view name)
{
    Reader reader(name);
    while (!text.empty()) {
        const auto end = text.find('\n');
        reader.line(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    return reader.finish();
}

ArrivalsWithClients readArrivalsWithClientsFile(const std::string& path)
{
    if (path.empty())
        throw InputError("no arrivals file name given");
    const auto cannotRead = [&](int error) {
        return InputError(path + ": cannot read arrivals file (" + std::strerror(error) + ")");
    };
    errno = 0;
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file)
        throw cannotRead(errno);
    Reader reader(path);
    std::string partial;
    std::string buffer(64 * 1024, '\0');
    for (;;) {
        errno = 0;
        const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get());
        std::string_view chunk(buffer.data(), n);
        while (!chunk.empty()) {
            const auto end = chunk.find('\n');
            if (end == std::string_view::npos) {
                partial.append(chunk);
                break;
            }
            partial.append(chunk.substr(0, end));
            reader.line(partial);
            partial.clear();
            chunk.remove_prefix(end + 1);
        }
        if (partial.size() > kMaxLineBytes)
            throw InputError(path + ": a line longer than " + std::to_string(kMaxLineBytes)
                             + " bytes; not a list of times in seconds");
        if (n < buffer.size()) {
            if (std::ferror(file.get()))
                throw cannotRead(errno != 0 ? errno : EIO);
            if (std::feof(file.get()))
                break;
        }
    }
    if (!partial.empty())
        reader.line(partial);
    return reader.finish();
}

} // namespace ratelab
