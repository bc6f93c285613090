// The fault-injection counters (ccl/faults.h) that the engine's allocations, launches
// and copies consult: which operation fails, once, and how the environment arms them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ccl/faults.h"

namespace {

using ccl::faults::Fault;

/// Operations of `kind` counted until one fails (0: none of `limit` failed).
int first_failure(Fault kind, int limit) {
  for (int i = 1; i <= limit; ++i)
    if (ccl::faults::fail_here(kind)) return i;
  return 0;
}

class Faults : public testing::Test {
 protected:
  void SetUp() override {
    unsetenv("CCL_FAULT_INJECT");
    ccl::faults::disarm_all();
  }
  void TearDown() override { SetUp(); }
};

TEST_F(Faults, UnarmedNothingFails) {
  for (Fault kind : {Fault::DeviceAlloc, Fault::PinnedAlloc, Fault::Launch, Fault::Copy})
    EXPECT_EQ(first_failure(kind, 1000), 0) << ccl::faults::to_string(kind);
}

TEST_F(Faults, TheKthOperationFailsOnceAndOnlyItsKind) {
  ccl::faults::arm(Fault::Launch, 3);
  EXPECT_EQ(first_failure(Fault::Copy, 10), 0);
  EXPECT_EQ(first_failure(Fault::DeviceAlloc, 10), 0);
  EXPECT_EQ(first_failure(Fault::Launch, 10), 3);
  EXPECT_EQ(first_failure(Fault::Launch, 100), 0) << "a fault fires once";
  ccl::faults::arm(Fault::Copy, 1);
  ccl::faults::arm(Fault::Copy, 0);
  EXPECT_EQ(first_failure(Fault::Copy, 10), 0) << "k = 0 disarms";
}

TEST_F(Faults, ArmsFromText) {
  std::string why;
  ASSERT_TRUE(ccl::faults::arm_from_text("device-alloc:2,copy:1", &why)) << why;
  EXPECT_EQ(first_failure(Fault::Copy, 5), 1);
  EXPECT_EQ(first_failure(Fault::PinnedAlloc, 5), 0);
  EXPECT_EQ(first_failure(Fault::DeviceAlloc, 5), 2);
  for (const char* bad : {"launch", "launch:0", "launch:x", "lunch:1", "copy:1,", "copy:-1"}) {
    ccl::faults::disarm_all();
    why.clear();
    EXPECT_FALSE(ccl::faults::arm_from_text(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
    EXPECT_EQ(first_failure(Fault::Launch, 5) + first_failure(Fault::Copy, 5), 0)
        << bad << " armed something";
  }
}

TEST_F(Faults, ArmsFromTheEnvironmentOnlyWhenSet) {
  std::string why;
  ccl::faults::arm(Fault::PinnedAlloc, 2);
  ASSERT_TRUE(ccl::faults::arm_from_environment(&why)) << why;
  EXPECT_EQ(first_failure(Fault::PinnedAlloc, 5), 2) << "unset: left as armed";
  setenv("CCL_FAULT_INJECT", "pinned-alloc:4", 1);
  ASSERT_TRUE(ccl::faults::arm_from_environment(&why)) << why;
  EXPECT_EQ(first_failure(Fault::PinnedAlloc, 10), 4);
  setenv("CCL_FAULT_INJECT", "pinned-alloc:nope", 1);
  EXPECT_FALSE(ccl::faults::arm_from_environment(&why));
  EXPECT_NE(why.find("pinned-alloc:nope"), std::string::npos) << why;
}

}  // namespace
