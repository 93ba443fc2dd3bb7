#pragma once
// What a lock wrapper's misuse reports on the host: std reports it with std::system_error
// ([thread.lock.unique.locking], [thread.lock.shared.locking]), and so do unisync's
// unique_lock and shared_lock, in every build.

#include <gtest/gtest.h>

#include <string>
#include <system_error>

namespace unisync::test {

/// Whether `operation` throws std::system_error with the error condition `expected` and a
/// message that names `misuse` and where it happened (function, file and line).
template <class Operation>
::testing::AssertionResult reports_misuse(Operation operation, std::errc expected, std::string const& misuse)
{
  try {
    operation();
  } catch (std::system_error const& reported) {
    std::string const message = reported.what();
    bool const names_it = message.find("unisync lock misused: ") != std::string::npos &&
                          message.find(misuse) != std::string::npos;
    bool const names_place =
        message.find(" (in ") != std::string::npos && message.find("unisync/") != std::string::npos;
    if (reported.code() == std::make_error_code(expected) && names_it && names_place) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "std::system_error " << reported.code() << " \"" << message
                                         << "\", expected " << std::make_error_code(expected) << " naming \""
                                         << misuse << "\" and where";
  }
  return ::testing::AssertionFailure() << "nothing thrown, expected std::system_error naming \"" << misuse << "\"";
}

}  // namespace unisync::test
