// Fuzz target: the config readers, what an engineer hands `ratelab import` and `replay --config`:
// nginx's grammar, YAML (libyaml), TOML and JSON into the one config document, the one product
// detector, each product's routes and rules, and the regexes in them (PCRE2, RE2).
//
// Neither reader throws anything but InputError, whose message is one printable line, and what
// the importer accepts it can explain (whatYouGet).
#include "config_dry_run.h"
#include "config_import.h"
#include "fuzz_check.h"

#include "arithmetic/decimal.h"

#include <cstdint>
#include <exception>
#include <string>

using namespace ratelab;

namespace {

template <typename F>
void refusesCleanly(const char* what, F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        fuzz::checkMessage(e.what());
    } catch (const std::exception& e) {
        fuzz::fail(what, e.what());
    } catch (...) {
        fuzz::fail(what, "a non-standard exception");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    refusesCleanly("importConfiguration threw", [&] {
        const io::ImportedConfig imported = io::importConfiguration(bytes);
        FUZZ_CHECK(!imported.product.empty(), "an import without a product");
        FUZZ_CHECK(!io::whatYouGet(imported).empty(), imported.product);
    });
    refusesCleanly("dryRunConfigText threw", [&] {
        (void)io::dryRunConfigText(bytes, "ip");
    });
    return 0;
}
