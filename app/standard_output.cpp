#include "standard_output.h"

#include "command.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>

#include <unistd.h>

namespace ratelab::app {

namespace {

// StdoutBuffer: 64 KB at a time to file descriptor 1, the first errno kept. After a failure it
// writes nothing more, so the message names the first cause, not a later EBADF.
class StdoutBuffer final : public std::streambuf {
public:
    StdoutBuffer() { setp(m_buffer, m_buffer + sizeof m_buffer); }
    int error() const { return m_error; }

protected:
    int_type overflow(int_type c) override
    {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        if (n > epptr() - pptr()) { // larger than the room left: drain, then write it through
            if (!drain())
                return 0;
            if (n >= std::streamsize(sizeof m_buffer))
                return writeAll(s, std::size_t(n)) ? n : 0;
        }
        std::memcpy(pptr(), s, std::size_t(n));
        pbump(int(n));
        return n;
    }

private:
    bool drain()
    {
        const std::size_t n = std::size_t(pptr() - pbase());
        setp(m_buffer, m_buffer + sizeof m_buffer);
        return writeAll(m_buffer, n);
    }
    bool writeAll(const char* p, std::size_t n)
    {
        while (n > 0 && m_error == 0) {
            const ssize_t w = ::write(STDOUT_FILENO, p, n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                m_error = w < 0 ? errno : EIO;
                break;
            }
            p += w;
            n -= std::size_t(w);
        }
        return m_error == 0;
    }

    char m_buffer[1 << 16];
    int m_error = 0;
};

// Never destroyed: the C++ runtime flushes std::cout after main's statics are gone.
StdoutBuffer& buffer()
{
    static StdoutBuffer* const b = new StdoutBuffer;
    return *b;
}

} // namespace

void checkStandardOutput()
{
    std::ios::sync_with_stdio(false);
    std::cout.rdbuf(&buffer());
}

bool standardOutputFailed()
{
    static bool told = false;
    std::cout.flush();
    if (std::cout && buffer().error() == 0)
        return false;
    if (!told) {
        told = true;
        const int e = buffer().error();
        std::cerr << "ratelab: cannot write to standard output: " << (e ? std::strerror(e) : "the stream failed") << std::endl;
    }
    return true;
}

int finishOutput(int status) { return standardOutputFailed() && status == 0 ? kBadInput : status; }

} // namespace ratelab::app
