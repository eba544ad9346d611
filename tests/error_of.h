// errorOf runs f and returns the InputError message it throws, or "(no error)": the tests'
// one way to read a refusal's words.
#pragma once

#include "arithmetic/decimal.h"

#include <functional>
#include <string>

inline std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const ratelab::InputError& e) {
        return e.what();
    }
    return "(no error)";
}
