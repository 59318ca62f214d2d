// Shape inference of the recurrent layers (lstm, gru, rnn): ONNX's
// LSTM/GRU/RNN with every input present, layouts 0 and 1.

#include <cmath>

#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {
namespace {

struct Cell {
  std::string_view op;
  std::int64_t gates;
  std::int64_t activations;  // per direction
};

constexpr Cell kCells[] = {{op::kLstm, 4, 3}, {op::kGru, 3, 2}, {op::kRnn, 1, 1}};

StatusOr<std::int64_t> directions(const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string direction, string_attr(attrs, "direction"));
  if (direction == "forward" || direction == "reverse") return 1;
  if (direction == "bidirectional") return 2;
  return invalid("direction '" + direction +
                 "' is not one of \"forward\", \"reverse\", \"bidirectional\"");
}

std::int64_t count_entries(const std::string& list) {
  std::int64_t n = 1;
  for (char ch : list) n += ch == ',' ? 1 : 0;
  return n;
}

}  // namespace

StatusOr<std::vector<TensorType>> infer_recurrent(std::string_view op,
                                                  std::span<const TensorType> in,
                                                  const AttributeMap& attrs) {
  const Cell* cell = nullptr;
  for (const Cell& c : kCells) {
    if (c.op == op) cell = &c;
  }
  if (cell == nullptr) return invalid("not a recurrent op: " + std::string(op));
  const std::string name(op);
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t hidden, int_attr(attrs, "hidden_size"));
  if (hidden < 1) return invalid(name + " hidden_size must be >= 1");
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t dirs, directions(attrs));
  GLASSBOX_ASSIGN_OR_RETURN(bool batch_major, flag_attr(attrs, "layout", false));
  GLASSBOX_ASSIGN_OR_RETURN(std::string activations, string_attr(attrs, "activations"));
  if (count_entries(activations) != cell->activations * dirs) {
    return invalid(name + " activations '" + activations + "' must list " +
                   std::to_string(cell->activations * dirs) + " functions");
  }
  if (attrs.contains("clip")) {
    GLASSBOX_ASSIGN_OR_RETURN(double clip, float_attr(attrs, "clip"));
    if (!(clip > 0) || std::isinf(clip)) return invalid(name + " clip must be positive and finite");
  }
  GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "input_forget", false).status());
  GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "linear_before_reset", false).status());

  GLASSBOX_RETURN_IF_ERROR(expect_rank(in[0], 3, name + " input x"));
  const Shape& x = in[0].shape;
  const std::int64_t steps = batch_major ? x[1] : x[0];
  const std::int64_t batch = batch_major ? x[0] : x[1];
  const std::int64_t gh = cell->gates * hidden;
  const Shape state = batch_major ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[1], {dirs, gh, x[2]}, name + " weight w"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[2], {dirs, gh, hidden}, name + " recurrence r"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[3], {dirs, 2 * gh}, name + " bias b"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[4], {batch}, name + " sequence_lens"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[5], state, name + " initial_h"));
  const TensorType y{ScalarType::kFloat, batch_major ? Shape{batch, steps, dirs, hidden}
                                                     : Shape{steps, dirs, batch, hidden}};
  const TensorType y_h{ScalarType::kFloat, state};
  if (op != op::kLstm) return std::vector<TensorType>{y, y_h};
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[6], state, name + " initial_c"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[7], {dirs, 3 * hidden}, name + " peepholes p"));
  return std::vector<TensorType>{y, y_h, y_h};
}

}  // namespace glassbox::aot::ops_internal

namespace glassbox::aot {

bool is_recurrent_op(std::string_view name) {
  return name == op::kLstm || name == op::kGru || name == op::kRnn;
}

}  // namespace glassbox::aot
