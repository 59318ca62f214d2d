// Shape inference of the recurrent layers (lstm, gru, rnn): ONNX's
// LSTM/GRU/RNN with every input present, layouts 0 and 1.

#include "glassbox/aot/recurrent_attributes.h"
#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {

StatusOr<std::vector<TensorType>> infer_recurrent(std::string_view op,
                                                  std::span<const TensorType> in,
                                                  const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(RecurrentAttributes a, read_recurrent_attributes(op, attrs));
  const std::string name(op);
  const std::int64_t hidden = a.hidden_size;
  const std::int64_t dirs = a.num_directions;
  const bool batch_major = a.batch_major;
  GLASSBOX_RETURN_IF_ERROR(expect_rank(in[a.inputs.x], 3, name + " input x"));
  const Shape& x = in[a.inputs.x].shape;
  const std::int64_t steps = batch_major ? x[1] : x[0];
  const std::int64_t batch = batch_major ? x[0] : x[1];
  const std::int64_t gh = a.gate_count * hidden;
  const Shape state = batch_major ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[a.inputs.w], {dirs, gh, x[2]}, name + " weight w"));
  GLASSBOX_RETURN_IF_ERROR(
      expect_shape(in[a.inputs.r], {dirs, gh, hidden}, name + " recurrence r"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[a.inputs.b], {dirs, 2 * gh}, name + " bias b"));
  GLASSBOX_RETURN_IF_ERROR(
      expect_shape(in[a.inputs.sequence_lens], {batch}, name + " sequence_lens"));
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[a.inputs.initial_h], state, name + " initial_h"));
  const TensorType y{ScalarType::kFloat, batch_major ? Shape{batch, steps, dirs, hidden}
                                                     : Shape{steps, dirs, batch, hidden}};
  const TensorType y_h{ScalarType::kFloat, state};
  if (a.kind != RecurrentKind::kLstm) return std::vector<TensorType>{y, y_h};
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[*a.inputs.initial_c], state, name + " initial_c"));
  GLASSBOX_RETURN_IF_ERROR(
      expect_shape(in[*a.inputs.peepholes], {dirs, 3 * hidden}, name + " peepholes p"));
  return std::vector<TensorType>{y, y_h, y_h};
}

}  // namespace glassbox::aot::ops_internal

namespace glassbox::aot {

bool is_recurrent_op(std::string_view name) { return recurrent_kind(name).has_value(); }

}  // namespace glassbox::aot
