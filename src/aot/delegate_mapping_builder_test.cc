// Ports ExecuTorch's exir/backend/test/test_delegate_map_builder.py and adds
// the cases where our builder is stricter (see delegate_mapping_builder.h).
#include "glassbox/aot/delegate_mapping_builder.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <vector>

#include "glassbox/aot/graph_builder.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;
using testing::node_named;

// ExecuTorch's test model: x -> sin -> cos, so sin has handle 1, cos 2.
class DelegateMappingBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GraphBuilder b;
    ValueId x = b.input("x", ScalarType::kFloat, {2, 2});
    b.output(b.cos(b.sin(x)));
    StatusOr<Graph> built = b.build();
    ASSERT_THAT(built, IsOk());
    graph_ = std::move(built).value();
  }

  const Node& sin() const { return node_named(graph_, "sin"); }
  const Node& cos() const { return node_named(graph_, "cos"); }
  std::vector<const Node*> both() const { return {&sin(), &cos()}; }
  DebugHandle sin_handle() const { return sin().debug_handle; }
  DebugHandle cos_handle() const { return cos().debug_handle; }

  Graph graph_;
};

TEST_F(DelegateMappingBuilderTest, GeneratedIdentifiersCountFromZeroInOrder) {
  DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(both()), DelegateDebugIdentifier(int64_t{0}));
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(sin()), DelegateDebugIdentifier(int64_t{1}));
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(cos()), DelegateDebugIdentifier(int64_t{2}));
  // Handles are equivalent to the nodes that carry them.
  const std::array handles{cos_handle(), sin_handle()};
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(std::span<const DebugHandle>(handles)),
            DelegateDebugIdentifier(int64_t{3}));

  const DebugHandleMap expected = {
      {int64_t{0}, {sin_handle(), cos_handle()}},
      {int64_t{1}, {sin_handle()}},
      {int64_t{2}, {cos_handle()}},
      {int64_t{3}, {sin_handle(), cos_handle()}},
  };
  EXPECT_EQ(builder.get_delegate_mapping(), expected);
}

TEST_F(DelegateMappingBuilderTest, ManualIntIdentifierIsReturnedAsGiven) {
  constexpr int64_t kId = 22;
  DelegateMappingBuilder from_nodes;
  EXPECT_EQ(*from_nodes.insert_delegate_mapping_entry(both(), kId), DelegateDebugIdentifier(kId));
  DelegateMappingBuilder from_handles;
  const std::array handles{sin_handle(), cos_handle()};
  EXPECT_EQ(*from_handles.insert_delegate_mapping_entry(std::span<const DebugHandle>(handles), kId),
            DelegateDebugIdentifier(kId));
  EXPECT_EQ(from_nodes.get_delegate_mapping(), from_handles.get_delegate_mapping());
  EXPECT_EQ(from_nodes.get_delegate_mapping().at(kId),
            (std::vector<DebugHandle>{sin_handle(), cos_handle()}));
}

TEST_F(DelegateMappingBuilderTest, ManualStringIdentifierIsReturnedAsGiven) {
  const std::string kId = "Fancy Fusion";
  DelegateMappingBuilder from_nodes;
  EXPECT_EQ(*from_nodes.insert_delegate_mapping_entry(both(), kId), DelegateDebugIdentifier(kId));
  DelegateMappingBuilder from_handles;
  const std::array handles{sin_handle(), cos_handle()};
  EXPECT_EQ(*from_handles.insert_delegate_mapping_entry(std::span<const DebugHandle>(handles), kId),
            DelegateDebugIdentifier(kId));
  EXPECT_EQ(from_nodes.get_delegate_mapping(), from_handles.get_delegate_mapping());
}

TEST_F(DelegateMappingBuilderTest, RejectsManualIdentifierWhenGenerated) {
  DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  EXPECT_THAT(builder.insert_delegate_mapping_entry(sin(), int64_t{1}),
              ErrorIs(Error::kInvalidArgument, {"generated identifiers"}));
  EXPECT_THAT(builder.upsert_delegate_mapping_entry(sin(), std::string("a")),
              ErrorIs(Error::kInvalidArgument, {"generated identifiers"}));
  EXPECT_TRUE(builder.get_delegate_mapping().empty());
}

TEST_F(DelegateMappingBuilderTest, RejectsMissingIdentifierWhenManual) {
  DelegateMappingBuilder builder;
  EXPECT_THAT(builder.insert_delegate_mapping_entry(sin()),
              ErrorIs(Error::kInvalidArgument, {"no identifier"}));
  EXPECT_THAT(builder.upsert_delegate_mapping_entry(sin()),
              ErrorIs(Error::kInvalidArgument, {"no identifier"}));
}

TEST_F(DelegateMappingBuilderTest, RejectsReinsertedIdentifierWhateverTheNodes) {
  DelegateMappingBuilder builder;
  const std::string kId = "fused";
  ASSERT_THAT(builder.insert_delegate_mapping_entry(sin(), kId), IsOk());
  const DebugHandleMap before = builder.get_delegate_mapping();
  EXPECT_THAT(builder.insert_delegate_mapping_entry(sin(), kId),
              ErrorIs(Error::kInvalidArgument, {"\"fused\"", "already inserted"}));
  EXPECT_THAT(builder.insert_delegate_mapping_entry(cos(), kId), ErrorIs(Error::kInvalidArgument));
  const std::array handles{cos_handle()};
  EXPECT_THAT(builder.insert_delegate_mapping_entry(std::span<const DebugHandle>(handles), kId),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_EQ(builder.get_delegate_mapping(), before);
}

// ExecuTorch's test_passing_both_nodes_and_handles has no counterpart: each
// overload takes nodes or handles, so passing both does not compile.

TEST_F(DelegateMappingBuilderTest, RejectsNodeWithoutHandleInsteadOfDroppingIt) {
  Node unhandled = sin();
  unhandled.name = "no_handle";
  unhandled.debug_handle = kUnsetDebugHandle;
  DelegateMappingBuilder builder;
  const std::vector<const Node*> nodes{&sin(), &unhandled};
  EXPECT_THAT(builder.insert_delegate_mapping_entry(nodes, int64_t{0}),
              ErrorIs(Error::kInvalidArgument, {"'no_handle' has no debug handle"}));
  const std::vector<const Node*> null_node{nullptr};
  EXPECT_THAT(builder.insert_delegate_mapping_entry(null_node, int64_t{0}),
              ErrorIs(Error::kInvalidArgument, {"null node"}));
}

TEST_F(DelegateMappingBuilderTest, RejectsHandleZeroAndEmptyInput) {
  DelegateMappingBuilder builder;
  const std::array handles{sin_handle(), kUnsetDebugHandle};
  EXPECT_THAT(
      builder.insert_delegate_mapping_entry(std::span<const DebugHandle>(handles), int64_t{0}),
      ErrorIs(Error::kInvalidArgument, {"debug handle 0"}));
  EXPECT_THAT(builder.insert_delegate_mapping_entry(std::span<const DebugHandle>(), int64_t{0}),
              ErrorIs(Error::kInvalidArgument, {"no nodes or debug handles"}));
  EXPECT_THAT(builder.insert_delegate_mapping_entry(std::span<const Node* const>(), int64_t{0}),
              ErrorIs(Error::kInvalidArgument, {"no nodes or debug handles"}));
}

TEST_F(DelegateMappingBuilderTest, FailedInsertDoesNotConsumeAGeneratedId) {
  DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  const std::array zero{kUnsetDebugHandle};
  ASSERT_FALSE(builder.insert_delegate_mapping_entry(std::span<const DebugHandle>(zero)).ok());
  ASSERT_FALSE(builder.insert_delegate_mapping_entry(sin(), int64_t{7}).ok());
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(sin()), DelegateDebugIdentifier(int64_t{0}));
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(cos()), DelegateDebugIdentifier(int64_t{1}));
}

TEST_F(DelegateMappingBuilderTest, RejectsMixingIntAndStringIdentifiers) {
  DelegateMappingBuilder builder;
  ASSERT_THAT(builder.insert_delegate_mapping_entry(sin(), int64_t{1}), IsOk());
  EXPECT_THAT(builder.insert_delegate_mapping_entry(cos(), std::string("cos")),
              ErrorIs(Error::kInvalidArgument, {"\"cos\" is string", "are int"}));
  EXPECT_THAT(builder.upsert_delegate_mapping_entry(cos(), std::string("cos")),
              ErrorIs(Error::kInvalidArgument));
}

TEST_F(DelegateMappingBuilderTest, RejectsIdentifiersTheRuntimeCannotLog) {
  DelegateMappingBuilder builder;
  const int64_t too_large = int64_t{std::numeric_limits<int32_t>::max()} + 1;
  EXPECT_THAT(builder.insert_delegate_mapping_entry(sin(), int64_t{-1}),
              ErrorIs(Error::kInvalidArgument, {"outside [0, INT32_MAX]"}));
  EXPECT_THAT(builder.insert_delegate_mapping_entry(sin(), too_large),
              ErrorIs(Error::kInvalidArgument, {"outside [0, INT32_MAX]"}));
  EXPECT_THAT(builder.insert_delegate_mapping_entry(sin(), std::string()),
              ErrorIs(Error::kInvalidArgument, {"empty string"}));
}

TEST_F(DelegateMappingBuilderTest, EntriesAreSortedAndDeduplicated) {
  DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  const std::array handles{cos_handle(), sin_handle(), cos_handle()};
  ASSERT_THAT(builder.insert_delegate_mapping_entry(std::span<const DebugHandle>(handles)), IsOk());
  EXPECT_EQ(builder.get_delegate_mapping().at(int64_t{0}),
            (std::vector<DebugHandle>{sin_handle(), cos_handle()}));
}

TEST_F(DelegateMappingBuilderTest, UpsertAppendsToAnExistingIdentifier) {
  DelegateMappingBuilder builder;
  const std::string kId = "fusion";
  EXPECT_EQ(*builder.upsert_delegate_mapping_entry(cos(), kId), DelegateDebugIdentifier(kId));
  EXPECT_EQ(*builder.upsert_delegate_mapping_entry(both(), kId), DelegateDebugIdentifier(kId));
  EXPECT_EQ(*builder.upsert_delegate_mapping_entry(sin(), std::string("other")),
            DelegateDebugIdentifier(std::string("other")));
  const DebugHandleMap expected = {
      {kId, {sin_handle(), cos_handle()}},
      {std::string("other"), {sin_handle()}},
  };
  EXPECT_EQ(builder.get_delegate_mapping(), expected);
}

TEST_F(DelegateMappingBuilderTest, UpsertInGeneratedModeAlwaysAddsAnEntry) {
  DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  EXPECT_EQ(*builder.upsert_delegate_mapping_entry(sin()), DelegateDebugIdentifier(int64_t{0}));
  EXPECT_EQ(*builder.insert_delegate_mapping_entry(sin()), DelegateDebugIdentifier(int64_t{1}));
  EXPECT_EQ(*builder.upsert_delegate_mapping_entry(cos()), DelegateDebugIdentifier(int64_t{2}));
  EXPECT_EQ(builder.get_delegate_mapping().size(), 3u);
}

}  // namespace
}  // namespace glassbox::aot
