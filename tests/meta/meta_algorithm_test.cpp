// GstCclAlgorithm against the engine's registry (ccl/algorithms.def), from which the
// build generates it: the same algorithms in the same order under the same nicks, so
// that the element's algorithm property reaches every labeler and the meta's ABI
// keeps the values it had.
#include <gst/ccl/gstcclmeta.h>
#include <gtest/gtest.h>

#include <string>

#include "ccl/types.h"

namespace {

class AlgorithmEnum : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(G_TYPE_IS_ENUM(GST_TYPE_CCL_ALGORITHM));
    klass_ = static_cast<GEnumClass*>(g_type_class_ref(GST_TYPE_CCL_ALGORITHM));
  }
  void TearDown() override {
    if (klass_) g_type_class_unref(klass_);
  }
  GEnumClass* klass_ = nullptr;
};

TEST_F(AlgorithmEnum, ListsTheRegistryInOrder) {
  const auto& registry = ccl::algorithms();
  ASSERT_EQ(klass_->n_values, registry.size());
  for (guint i = 0; i < klass_->n_values; ++i) {
    const GEnumValue& v = klass_->values[i];
    const ccl::AlgorithmInfo& a = registry[i];
    SCOPED_TRACE(a.nick);
    EXPECT_EQ(v.value, int(i));
    EXPECT_EQ(int(a.id), int(i));
    EXPECT_STREQ(v.value_nick, a.nick);
    EXPECT_STREQ(v.value_name, a.title);
    // The element maps a value to the engine through its nick.
    ccl::Algorithm parsed;
    ASSERT_TRUE(ccl::parse(v.value_nick, &parsed));
    EXPECT_EQ(parsed, a.id);
  }
}

TEST_F(AlgorithmEnum, ValueNamesFollowTheNicks) {
  // GST_CCL_ALGORITHM_<nick in upper case, '-' as '_'>: what C code spells.
  EXPECT_EQ(int(GST_CCL_ALGORITHM_HA4), int(ccl::Algorithm::HA));
  EXPECT_EQ(int(GST_CCL_ALGORITHM_KOMURA), int(ccl::Algorithm::Komura));
  EXPECT_EQ(int(GST_CCL_ALGORITHM_STAVA), int(ccl::Algorithm::Stava));
  EXPECT_EQ(int(GST_CCL_ALGORITHM_LABEL_EQUIVALENCE), int(ccl::Algorithm::LabelEquivalence));
  EXPECT_EQ(int(GST_CCL_ALGORITHM_ROW_COL_UNIFY), int(ccl::Algorithm::RowColUnify));
  EXPECT_EQ(int(GST_CCL_ALGORITHM_UNION_FIND), int(ccl::Algorithm::UnionFind));
}

TEST_F(AlgorithmEnum, KeepsItsAbi) {
  // The meta's values recorded by applications: the registry only appends.
  EXPECT_EQ(GST_CCL_ALGORITHM_HA4, 0);
  EXPECT_EQ(GST_CCL_ALGORITHM_KOMURA, 1);
  EXPECT_EQ(g_enum_get_value_by_nick(klass_, "ha4")->value, GST_CCL_ALGORITHM_HA4);
  EXPECT_EQ(g_enum_get_value_by_nick(klass_, "komura")->value, GST_CCL_ALGORITHM_KOMURA);
}

}  // namespace
