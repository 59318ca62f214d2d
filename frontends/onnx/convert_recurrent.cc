// LSTM, GRU and RNN: each ONNX node becomes one IR node (ops.h's lstm, gru,
// rnn) with every output, so the layer is one source operator and one row
// of the Inspector. Inputs the model leaves out become constants (zeros,
// or the full length for sequence_lens) and the activations are spelled
// out with their parameters, so the IR node says everything it computes.

#include <onnx/onnx_pb.h>

#include "frontends/onnx/converters.h"
#include "glassbox/runtime/kernels/recurrent.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;
namespace kernels = runtime::kernels;

struct Layer {
  std::string_view op;
  kernels::RnnCell cell;
  std::vector<std::string> default_activations;  // one direction's
  std::vector<std::string> outputs;              // the IR node's, in order
};

const Layer kLstmLayer{
    aot::op::kLstm, kernels::RnnCell::kLstm, {"Sigmoid", "Tanh", "Tanh"}, {"y", "y_h", "y_c"}};
const Layer kGruLayer{aot::op::kGru, kernels::RnnCell::kGru, {"Sigmoid", "Tanh"}, {"y", "y_h"}};
const Layer kRnnLayer{aot::op::kRnn, kernels::RnnCell::kRnn, {"Tanh"}, {"y", "y_h"}};

// "activations" with "activation_alpha"/"activation_beta" into the IR's
// attributes: a comma-separated list and each function's parameters. ONNX
// hands the alpha and beta lists out in order to the functions that take
// them; a function left without one gets its ONNX operator's default.
Status add_activations(ImportContext& c, const Layer& layer, std::int64_t dirs,
                       aot::AttributeMap* attrs) {
  const NodeAttributes a = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> names,
                            a.get_strings("activations"));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<std::vector<float>> alphas,
                            a.get_floats("activation_alpha"));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<std::vector<float>> betas,
                            a.get_floats("activation_beta"));
  const std::size_t per_dir = layer.default_activations.size();
  std::vector<std::string> list = names ? *names : layer.default_activations;
  // One direction's functions for a bidirectional layer serve both, as in
  // ONNX Runtime.
  if (dirs == 2 && list.size() == per_dir) {
    const std::vector<std::string> one = list;
    list.insert(list.end(), one.begin(), one.end());
  }
  if (list.size() != per_dir * static_cast<std::size_t>(dirs)) {
    return c.invalid("activations lists " + std::to_string(list.size()) + " functions; " +
                     std::string(layer.op == aot::op::kLstm  ? "LSTM"
                                 : layer.op == aot::op::kGru ? "GRU"
                                                             : "RNN") +
                     " takes " + std::to_string(per_dir) + " per direction");
  }
  std::size_t next_alpha = 0, next_beta = 0;
  std::string joined;
  for (std::size_t i = 0; i < list.size(); ++i) {
    kernels::RnnActivation f;
    if (!kernels::rnn_activation_from_name(list[i].data(), list[i].size(), &f)) {
      return c.unsupported(
          "activation '" + list[i] +
          "' is not supported (Sigmoid, Tanh, Relu, Affine, LeakyRelu, ThresholdedRelu, "
          "ScaledTanh, HardSigmoid, Elu, Softsign, Softplus are)");
    }
    if (kernels::rnn_activation_takes_alpha(f.kind)) {
      if (alphas && next_alpha < alphas->size()) f.alpha = (*alphas)[next_alpha++];
      (*attrs)["activation_alpha_" + std::to_string(i)] = static_cast<double>(f.alpha);
    }
    if (kernels::rnn_activation_takes_beta(f.kind)) {
      if (betas && next_beta < betas->size()) f.beta = (*betas)[next_beta++];
      (*attrs)["activation_beta_" + std::to_string(i)] = static_cast<double>(f.beta);
    }
    joined += (i ? "," : "") + list[i];
  }
  (*attrs)["activations"] = joined;
  return Status();
}

// Input i, or `fallback` as a constant named `suffix` when the model
// leaves it out.
StatusOr<ValueId> input_or(ImportContext& c, std::size_t i, const std::string& suffix,
                           const HostTensor& fallback) {
  if (c.has_input(i)) return c.value_input(i);
  return c.add_constant(suffix, fallback);
}

Status convert_recurrent(ImportContext& c, const Layer& layer) {
  const NodeAttributes a = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(Shape x, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape r, c.input_shape(2));
  if (x.size() != 3 || r.size() != 3) {
    return c.invalid("X and R must have rank 3");
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::string direction, a.get_string("direction", "forward"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t layout, a.get_int("layout", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t hidden, a.get_int("hidden_size", r[2]));
  if (layout != 0 && layout != 1) return c.invalid("layout must be 0 or 1");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const std::int64_t steps = layout == 1 ? x[1] : x[0];
  const std::int64_t batch = layout == 1 ? x[0] : x[1];
  const std::int64_t gh = kernels::rnn_gate_count(layer.cell) * hidden;

  aot::AttributeMap attrs;
  attrs["hidden_size"] = hidden;
  attrs["direction"] = direction;  // ops.h checks the value
  attrs["layout"] = layout;
  GLASSBOX_RETURN_IF_ERROR(add_activations(c, layer, dirs, &attrs));
  if (a.has("clip")) {
    GLASSBOX_ASSIGN_OR_RETURN(float clip, a.get_float("clip", 0.0f));
    attrs["clip"] = static_cast<double>(clip);
  }
  if (layer.cell == kernels::RnnCell::kLstm) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t input_forget, a.get_int("input_forget", 0));
    attrs["input_forget"] = input_forget;
  }
  if (layer.cell == kernels::RnnCell::kGru) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t before_reset, a.get_int("linear_before_reset", 0));
    attrs["linear_before_reset"] = before_reset;
  }

  const auto zeros = [](Shape shape) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return HostTensor::of_floats(shape, std::vector<float>(static_cast<std::size_t>(n), 0.0f));
  };
  const Shape state = layout == 1 ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  std::vector<ValueId> inputs;
  for (std::size_t i = 0; i < 3; ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId v, c.value_input(i));
    inputs.push_back(v);
  }
  const HostTensor full_length = HostTensor::of_ints(
      {batch}, std::vector<std::int64_t>(static_cast<std::size_t>(batch), steps));
  struct Optional {
    std::size_t index;
    const char* suffix;
    HostTensor fallback;
  };
  std::vector<Optional> optional = {{3, "b", zeros({dirs, 2 * gh})},
                                    {4, "sequence_lens", full_length},
                                    {5, "initial_h", zeros(state)}};
  if (layer.cell == kernels::RnnCell::kLstm) {
    optional.push_back({6, "initial_c", zeros(state)});
    optional.push_back({7, "p", zeros({dirs, 3 * hidden})});
  }
  for (const Optional& o : optional) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId v, input_or(c, o.index, o.suffix, o.fallback));
    inputs.push_back(v);
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      std::vector<ValueId> outs,
      c.emit_outputs(layer.op, std::move(inputs), std::move(attrs), layer.outputs));
  for (std::size_t o = 0; o < outs.size(); ++o) c.set_output(o, outs[o]);
  return Status();
}

Status convert_lstm(ImportContext& c) { return convert_recurrent(c, kLstmLayer); }
Status convert_gru(ImportContext& c) { return convert_recurrent(c, kGruLayer); }
Status convert_rnn(ImportContext& c) { return convert_recurrent(c, kRnnLayer); }

}  // namespace

void add_recurrent_converters(ConverterTable* table) {
  (*table)["LSTM"] = convert_lstm;
  (*table)["GRU"] = convert_gru;
  (*table)["RNN"] = convert_rnn;
}

}  // namespace glassbox::frontends::onnx
