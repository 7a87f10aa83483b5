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

// Expects `f` to throw an InputError at `where` whose message contains `what`.
template <class F>
void expect_error(F f, const std::string& where, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no InputError; expected '" << where << "' / '" << what << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

}  // namespace loom

#define EXPECT_IN(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)
