// lstm, gru, rnn: ONNX's recurrent layers, the only kernels with several
// outputs (y, y_h and for lstm y_c). Inputs as include/glassbox/aot/ops.h
// lists them, every one present.

#include <cstdio>
#include <cstring>

#include "glassbox/runtime/kernels/recurrent.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::RnnCell;

constexpr std::size_t kLengthsInput = 4;

struct Op {
  const char* name;
  RnnCell cell;
  std::size_t inputs;
  std::size_t outputs;
};
constexpr Op kLstm{"lstm", RnnCell::kLstm, 8, 3};
constexpr Op kGru{"gru", RnnCell::kGru, 6, 2};
constexpr Op kRnn{"rnn", RnnCell::kRnn, 6, 2};

// args with only output `o`, so the one-output checks of
// portable_ops_common.cc apply to each output in turn.
KernelArgs with_output(const KernelArgs& args, std::size_t o) {
  return KernelArgs{args.inputs, Span<Tensor* const>(&args.outputs[o], 1), args.attributes};
}

// The activations string ("Sigmoid,Tanh,Tanh") and each one's parameters.
bool read_activations(const Op& op, const KernelArgs& args, std::size_t count,
                      kernels::RnnParams* p, Diagnostics* d) {
  const KernelAttributes none(nullptr);
  const KernelAttributes& attrs = args.attributes != nullptr ? *args.attributes : none;
  // ONNX's defaults, for one direction and for two.
  static constexpr const char* kDefaults[][2] = {
      {"Sigmoid,Tanh,Tanh", "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh"},
      {"Sigmoid,Tanh", "Sigmoid,Tanh,Sigmoid,Tanh"},
      {"Tanh", "Tanh,Tanh"}};
  const std::size_t cell = op.cell == RnnCell::kLstm ? 0 : op.cell == RnnCell::kGru ? 1 : 2;
  const char* fallback = kDefaults[cell][count > kernels::rnn_activation_count(op.cell) ? 1 : 0];
  Result<const char*> list = attrs.get_string("activations", fallback);
  if (!list.ok()) {
    report(d, "%s: attribute 'activations' must be a string", op.name);
    return false;
  }
  const char* s = *list;
  std::size_t n = 0;
  while (true) {
    const char* end = std::strchr(s, ',');
    const std::size_t length = end != nullptr ? static_cast<std::size_t>(end - s) : std::strlen(s);
    if (n == count || !kernels::rnn_activation_from_name(s, length, &p->activations[n])) {
      report(d, "%s: activations \"%.60s\" must be %zu of the functions ONNX lists for it", op.name,
             *list, count);
      return false;
    }
    char key[32];
    std::snprintf(key, sizeof(key), "activation_alpha_%zu", n);
    if (!read_float(op.name, args, key, p->activations[n].alpha, &p->activations[n].alpha, d)) {
      return false;
    }
    std::snprintf(key, sizeof(key), "activation_beta_%zu", n);
    if (!read_float(op.name, args, key, p->activations[n].beta, &p->activations[n].beta, d)) {
      return false;
    }
    ++n;
    if (end == nullptr) break;
    s = end + 1;
  }
  if (n != count) {
    report(d, "%s: activations \"%.60s\" must list %zu functions", op.name, *list, count);
    return false;
  }
  return true;
}

// Attributes and sizes; false after reporting what is wrong.
bool read_params(const Op& op, const KernelArgs& args, kernels::RnnParams* p, Diagnostics* d) {
  static constexpr const char* kDirections[] = {"forward", "reverse", "bidirectional"};
  std::size_t direction = 0;
  std::int64_t hidden = 0, layout = 0, input_forget = 0, before_reset = 0;
  if (!read_int(op.name, args, "hidden_size", 0, &hidden, d) ||
      !read_choice(op.name, args, "direction", kDirections, &direction, d) ||
      !read_int(op.name, args, "layout", 0, &layout, d) ||
      !read_int(op.name, args, "input_forget", 0, &input_forget, d) ||
      !read_int(op.name, args, "linear_before_reset", 0, &before_reset, d) ||
      !read_float(op.name, args, "clip", 0.0, &p->clip, d)) {
    return false;
  }
  if (hidden < 1 || (layout != 0 && layout != 1) || (input_forget != 0 && input_forget != 1) ||
      (before_reset != 0 && before_reset != 1) || !(p->clip >= 0)) {
    report(d,
           "%s: hidden_size must be >= 1, layout, input_forget and linear_before_reset 0 or 1, "
           "clip >= 0",
           op.name);
    return false;
  }
  p->cell = op.cell;
  p->direction = static_cast<kernels::RnnDirection>(direction);
  p->hidden_size = hidden;
  p->batch_major = layout == 1;
  p->input_forget = input_forget == 1;
  p->linear_before_reset = before_reset == 1;
  const std::size_t dirs = direction == 2 ? 2 : 1;
  if (!read_activations(op, args, dirs * kernels::rnn_activation_count(op.cell), p, d)) {
    return false;
  }
  if (!check_rank(op.name, args, 0, "x", 3, d)) return false;
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  p->seq_length = p->batch_major ? x[1] : x[0];
  p->batch = p->batch_major ? x[0] : x[1];
  p->input_size = x[2];
  return true;
}

Result<std::size_t> prepare(const Op& op, const KernelArgs& args, Diagnostics* d) {
  if (args.inputs.size() != op.inputs || args.outputs.size() != op.outputs) {
    report(d, "%s: expects %zu inputs and %zu outputs, got %zu and %zu", op.name, op.inputs,
           op.outputs, args.inputs.size(), args.outputs.size());
    return kRejected;
  }
  for (std::size_t o = 0; o < op.outputs; ++o) {
    const KernelArgs one = with_output(args, o);
    if (!check_typed_signature(op.name, one, op.inputs, op.inputs, d) ||
        !check_dtype(op.name, *args.outputs[o], "output", ScalarType::kFloat, d) ||
        !check_no_overlap(op.name, one, InPlace::kNever, d)) {
      return kRejected;
    }
    // Outputs apart from each other too.
    const KernelArgs others{Span<Tensor* const>(args.outputs.data(), o), one.outputs, nullptr};
    if (!check_no_overlap(op.name, others, InPlace::kNever, d)) return kRejected;
  }
  for (std::size_t i = 0; i < op.inputs; ++i) {
    const ScalarType want = i == kLengthsInput ? ScalarType::kLong : ScalarType::kFloat;
    if (!check_dtype(op.name, *args.inputs[i], i == kLengthsInput ? "sequence_lens" : "input", want,
                     d)) {
      return kRejected;
    }
  }
  kernels::RnnParams p;
  if (!read_params(op, args, &p, d)) return kRejected;
  const std::int64_t dirs = p.direction == kernels::RnnDirection::kBidirectional ? 2 : 1;
  const std::int64_t gh = kernels::rnn_gate_count(op.cell) * p.hidden_size;
  const std::int64_t h = p.hidden_size, n = p.batch;
  const std::int64_t w[] = {dirs, gh, p.input_size}, r[] = {dirs, gh, h}, b[] = {dirs, 2 * gh},
                     lens[] = {n}, peep[] = {dirs, 3 * h};
  const std::int64_t state_tm[] = {dirs, n, h}, state_bm[] = {n, dirs, h};
  const Span<const std::int64_t> state =
      p.batch_major ? Span<const std::int64_t>(state_bm) : Span<const std::int64_t>(state_tm);
  const std::int64_t y_tm[] = {p.seq_length, dirs, n, h}, y_bm[] = {n, p.seq_length, dirs, h};
  if (!check_input_shape(op.name, args, 1, "w", w, d) ||
      !check_input_shape(op.name, args, 2, "r", r, d) ||
      !check_input_shape(op.name, args, 3, "b", b, d) ||
      !check_input_shape(op.name, args, 4, "sequence_lens", lens, d) ||
      !check_input_shape(op.name, args, 5, "initial_h", state, d) ||
      (op.cell == RnnCell::kLstm && (!check_input_shape(op.name, args, 6, "initial_c", state, d) ||
                                     !check_input_shape(op.name, args, 7, "p", peep, d))) ||
      !check_output_shape(
          op.name, with_output(args, 0),
          p.batch_major ? Span<const std::int64_t>(y_bm) : Span<const std::int64_t>(y_tm), d)) {
    return kRejected;
  }
  for (std::size_t o = 1; o < op.outputs; ++o) {
    if (!check_output_shape(op.name, with_output(args, o), state, d)) return kRejected;
  }
  const std::size_t bytes = kernels::rnn_scratch_bytes(p);
  if (bytes == 0) {
    report(d, "%s: sizes too large for the kernel", op.name);
    return kRejected;
  }
  return bytes;
}

Error run(const Op& op, const KernelArgs& args, Span<std::uint8_t> scratch) {
  kernels::RnnParams p;
  if (!read_params(op, args, &p, nullptr)) return Error::kInvalidArgument;
  kernels::RnnTensors t;
  t.x = args.inputs[0]->float_data();
  t.w = args.inputs[1]->float_data();
  t.r = args.inputs[2]->float_data();
  t.b = args.inputs[3]->float_data();
  t.seq_lens = static_cast<const std::int64_t*>(args.inputs[kLengthsInput]->data);
  t.initial_h = args.inputs[5]->float_data();
  t.y = args.outputs[0]->float_data();
  t.y_h = args.outputs[1]->float_data();
  if (op.cell == RnnCell::kLstm) {
    t.initial_c = args.inputs[6]->float_data();
    t.p = args.inputs[7]->float_data();
    t.y_c = args.outputs[2]->float_data();
  }
  return kernels::rnn(p, t, float_scratch(scratch));
}

}  // namespace

Result<std::size_t> prepare_lstm(const KernelArgs& args, Diagnostics* d) {
  return prepare(kLstm, args, d);
}
Result<std::size_t> prepare_gru(const KernelArgs& args, Diagnostics* d) {
  return prepare(kGru, args, d);
}
Result<std::size_t> prepare_rnn(const KernelArgs& args, Diagnostics* d) {
  return prepare(kRnn, args, d);
}
Error run_lstm(const KernelArgs& args, Span<std::uint8_t> scratch) {
  return run(kLstm, args, scratch);
}
Error run_gru(const KernelArgs& args, Span<std::uint8_t> scratch) {
  return run(kGru, args, scratch);
}
Error run_rnn(const KernelArgs& args, Span<std::uint8_t> scratch) {
  return run(kRnn, args, scratch);
}

}  // namespace glassbox::runtime::portable
