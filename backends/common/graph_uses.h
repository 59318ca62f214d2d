#pragma once
/// @file
/// Who uses which value of a partition, for the AOT halves' partitioners
/// and lowerings: the queries that decide whether a node may be fused into
/// its producer (it is the value's only use, and the value is no output).

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::backends {

/// Whether `id` is computed (an input or a node output, not a constant).
bool is_computed(const aot::Graph& graph, aot::ValueId id);

/// Whether `id` is a float constant with all its data recorded.
bool is_float_constant(const aot::Graph& graph, aot::ValueId id);

/// The node whose output `id` is, or null.
const aot::Node* producer_of(const aot::Graph& graph, aot::ValueId id);

/// How many node inputs and graph outputs read `id`.
int count_users(const aot::Graph& graph, aot::ValueId id);

/// A gather of one constant index along one axis (ViT's class token,
/// `x[:, 0]`), which a backend runs as a slice of size 1 there (and a
/// reshape dropping that dim for a 0-d index). Both non-negative.
struct ConstantGather {
  std::size_t axis = 0;
  std::int64_t index = 0;
};

/// `node`'s (a gather's) axis and index, or why it is not such a gather:
/// "gather of other than one constant index", "gather axis out of range"
/// or "gather index out of range".
std::variant<ConstantGather, std::string> constant_gather(const aot::Graph& graph,
                                                          const aot::Node& node);

/// The uses of every value of one graph, and which nodes a lowering has
/// absorbed into an earlier operator. `graph` must outlive it.
class GraphUses {
 public:
  explicit GraphUses(const aot::Graph& graph);

  /// The node that is the only use of `id`, if any (a graph output is a
  /// use that cannot be fused away).
  const aot::Node* sole_user(aot::ValueId id) const;
  /// The nodes reading `id` (a node reading it twice is listed twice), and
  /// whether it is a graph output.
  std::vector<const aot::Node*> users(aot::ValueId id) const;
  bool is_output(aot::ValueId id) const { return output_uses_.contains(id.value); }
  void absorb(const aot::Node& node);
  bool absorbed(std::size_t node_index) const { return absorbed_[node_index]; }

 private:
  const aot::Graph& graph_;
  std::unordered_map<std::int32_t, std::vector<std::size_t>> users_;  // value -> nodes
  std::unordered_map<std::int32_t, int> output_uses_;
  std::vector<bool> absorbed_;
};

/// While lowering, constant k has the provisional slot
/// kProvisionalConstant + k and operator i the slot num_inputs + i
/// (constants come before the operators in the blob, but are only all
/// known at the end); final_slot renumbers.
inline constexpr std::uint32_t kProvisionalConstant = 1u << 31;

inline void final_slot(std::uint32_t num_inputs, std::uint32_t num_constants, std::uint32_t* slot) {
  if (*slot >= kProvisionalConstant) {
    *slot = num_inputs + (*slot - kProvisionalConstant);
  } else if (*slot >= num_inputs) {
    *slot += num_constants;
  }
}

/// final_slot on every operand of `ops` (each with `.operands`) and on
/// `outputs`.
template <typename Op>
void number_slots(std::size_t num_inputs, std::size_t num_constants, std::vector<Op>* ops,
                  std::vector<std::uint32_t>* outputs) {
  const auto inputs = static_cast<std::uint32_t>(num_inputs);
  const auto constants = static_cast<std::uint32_t>(num_constants);
  for (Op& op : *ops) {
    for (std::uint32_t& slot : op.operands) final_slot(inputs, constants, &slot);
  }
  for (std::uint32_t& slot : *outputs) final_slot(inputs, constants, &slot);
}

}  // namespace glassbox::backends
