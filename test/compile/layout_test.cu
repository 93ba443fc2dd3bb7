// The same primitives, compiled by nvcc here and by g++ in host_only_test.cpp, have the
// same layout.

#include "layout.hpp"

#include <gtest/gtest.h>

TEST(Layout, SameUnderNvccAndTheHostCompiler)
{
  EXPECT_EQ(unisync::test::layout_of_primitives(), unisync::test::layout_seen_by_host_compiler());
}
