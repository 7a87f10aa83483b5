// Test helpers for the strict readers' refusals: the InputError a call throws, and a substring check on its text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace loom {

// The InputError `f` throws (a failure if it throws none).
template <typename F>
InputError error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", "");
}

}  // namespace loom

#define EXPECT_IN(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)
