#pragma once
// Test-only helpers for the aot layer's tests: readable checks on Status
// and StatusOr that print the error message when they fail.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/delegate_mapping_builder.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"
#include "src/testing/status_matchers.h"

namespace glassbox::aot::testing {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

// The node named `name` (fails the test if absent).
inline const Node& node_named(const Graph& graph, std::string_view name) {
  const Node* node = graph.find_node(name);
  EXPECT_NE(node, nullptr) << "no node named " << name;
  static const Node kMissing;
  return node != nullptr ? *node : kMissing;
}

// A backend that records what it was given. By default it returns the bytes
// "fake" and one generated identifier covering every node; a handler can
// return anything else.
class FakeBackend : public BackendDetails {
 public:
  using Handler = std::function<StatusOr<PreprocessResult>(const Graph&)>;

  explicit FakeBackend(Handler handler = {}) : handler_(std::move(handler)) {}

  std::string name() const override { return "fake"; }

  StatusOr<PreprocessResult> preprocess(const Graph& subgraph,
                                        std::span<const CompileSpec> specs) override {
    subgraphs.push_back(subgraph);
    specs_seen.emplace_back(specs.begin(), specs.end());
    if (handler_) return handler_(subgraph);
    DelegateMappingBuilder builder(/*generated_identifiers=*/true);
    std::vector<const Node*> nodes;
    for (const Node& node : subgraph.nodes) nodes.push_back(&node);
    GLASSBOX_RETURN_IF_ERROR(builder.insert_delegate_mapping_entry(nodes));
    return PreprocessResult{{'f', 'a', 'k', 'e'}, builder.get_delegate_mapping()};
  }

  std::vector<Graph> subgraphs;
  std::vector<std::vector<CompileSpec>> specs_seen;

 private:
  Handler handler_;
};

}  // namespace glassbox::aot::testing
