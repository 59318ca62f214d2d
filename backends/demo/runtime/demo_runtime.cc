#include "backends/demo/runtime/demo_runtime.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "backends/demo/demo_format.h"
#include "glassbox/core/byte_reader.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/elementwise.h"

namespace glassbox::backends::demo {
namespace {

using runtime::EventTracer;
using runtime::Tensor;

constexpr std::size_t kMaxRank = 6;
constexpr std::size_t kMaxOperands = 2;
constexpr std::uint32_t kMaxOps = 4096;
// Delegate call inputs and outputs; keeps slot counts far from u32 overflow.
constexpr std::uint32_t kMaxCallValues = 4096;
constexpr std::int64_t kMaxWeights = std::int64_t{1} << 28;
// kind, identifier tag + int id, operand count + one slot.
constexpr std::size_t kMinOpBytes = 1 + 1 + 8 + 1 + 4;

struct Shape {
  std::int64_t dims[kMaxRank] = {};
  std::size_t rank = 0;
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
};

// One op, decoded once at init into method-lifetime memory.
struct Op {
  DemoOpKind kind;
  const char* name;           // string identifier, or null for an int one
  DelegateDebugIntId int_id;  // int identifier, or unset
  const char* label;          // metadata: what the op is
  std::uint8_t num_operands;
  std::uint32_t operands[kMaxOperands];
  runtime::kernels::Conv2dParams conv;
  runtime::kernels::Shape4 weight_shape;
  const float* weight = nullptr;  // copied, aligned
  const float* bias = nullptr;
  bool perturbed = false;  // compile spec "perturb" names this op
};

struct DemoState {
  std::uint32_t num_inputs;
  std::uint32_t num_outputs;
  std::uint32_t num_ops;
  Op* ops;
  std::uint32_t* output_slots;
  Shape* slot_shapes;  // scratch for prepare: one per slot
  runtime::DelegateLogMode mode;
  bool cycles;  // stamps ops with read_cycles(), not the tracer's clock
  Ticks (*read_cycles)();
};

// The stand-in for an NPU's cycle counter: 250 MHz, from steady_clock.
Ticks demo_cycles() {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
  return static_cast<Ticks>(ns) * kDemoCycleTime.denominator / kDemoCycleTime.numerator;
}

// Spec "clock": "tracer" (default) or "cycles".
Result<bool> parse_clock_spec(Span<const runtime::CompileSpecView> specs) {
  bool cycles = false;
  for (const runtime::CompileSpecView& spec : specs) {
    if (std::strcmp(spec.key, kDemoClockSpecKey) != 0) continue;
    if (runtime::compile_spec_value_is(spec, "cycles")) {
      cycles = true;
    } else if (runtime::compile_spec_value_is(spec, "tracer")) {
      cycles = false;
    } else {
      return make_error(Error::kInvalidArgument, "compile spec 'clock' must be tracer or cycles");
    }
  }
  return cycles;
}

ErrorInfo bad(const char* what) { return make_error(Error::kCorruptData, what); }

// Reads one op; `slots_defined` is how many slots exist before it.
ErrorInfo read_op(ByteReader& in, runtime::MemoryAllocator* memory, std::uint32_t slots_defined,
                  Op* op) {
  std::uint8_t kind = 0, tag = 0;
  if (!in.read(&kind) || demo_op_kind_name(static_cast<DemoOpKind>(kind)) == nullptr) {
    return bad("demo program: unknown op kind");
  }
  op->kind = static_cast<DemoOpKind>(kind);
  op->label = demo_op_kind_name(op->kind);
  if (!in.read(&tag)) return bad("demo program: truncated op identifier");
  if (tag == static_cast<std::uint8_t>(DemoIdentifierTag::kInt)) {
    std::int64_t id = 0;
    if (!in.read(&id) || id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
      return bad("demo program: int identifier missing or out of range");
    }
    op->int_id = DelegateDebugIntId(static_cast<std::int32_t>(id));
  } else if (tag == static_cast<std::uint8_t>(DemoIdentifierTag::kString)) {
    std::uint32_t length = 0;
    const std::uint8_t* text = nullptr;
    if (!in.read(&length) || length == 0 || (text = in.take(length)) == nullptr) {
      return bad("demo program: string identifier missing or truncated");
    }
    auto* name = static_cast<char*>(memory->allocate(length + 1, 1));
    if (name == nullptr) return make_error(Error::kMemoryAllocationFailed, "demo: out of memory");
    std::memcpy(name, text, length);
    name[length] = '\0';
    if (std::strlen(name) != length) return bad("demo program: NUL in identifier");
    op->name = name;
  } else {
    return bad("demo program: unknown identifier tag");
  }
  const std::uint8_t expected = op->kind == DemoOpKind::kDiv ? 2 : 1;
  if (!in.read(&op->num_operands) || op->num_operands != expected) {
    return bad("demo program: wrong operand count for the op");
  }
  for (std::uint8_t i = 0; i < op->num_operands; ++i) {
    if (!in.read(&op->operands[i]) || op->operands[i] >= slots_defined) {
      return bad("demo program: operand slot not yet defined");
    }
  }
  if (op->kind != DemoOpKind::kConv && op->kind != DemoOpKind::kConvRelu) {
    return kOk;
  }
  std::int64_t p[7], w[4];
  std::uint8_t has_bias = 0;
  if (!in.read(p, sizeof(p)) || !in.read(w, sizeof(w))) {
    return bad("demo program: truncated conv parameters");
  }
  op->conv.stride_h = p[0];
  op->conv.stride_w = p[1];
  op->conv.pad_top = op->conv.pad_bottom = p[2];
  op->conv.pad_left = op->conv.pad_right = p[3];
  op->conv.dilation_h = p[4];
  op->conv.dilation_w = p[5];
  op->conv.groups = p[6];
  op->weight_shape = {w[0], w[1], w[2], w[3]};
  // Multiplied step by step with a cap, so a corrupt shape can neither
  // overflow nor make us reserve gigabytes; then checked against the bytes
  // actually present.
  std::int64_t count = 1;
  for (std::int64_t d : w) {
    if (d <= 0 || d > kMaxWeights || count > kMaxWeights / d) {
      return bad("demo program: bad weight shape");
    }
    count *= d;
  }
  if (count > kMaxWeights || static_cast<std::size_t>(count) > in.remaining() / sizeof(float)) {
    return bad("demo program: conv weight larger than the blob");
  }
  auto* weight = memory->allocate_array<float>(static_cast<std::size_t>(count));
  if (weight == nullptr || !in.read(weight, static_cast<std::size_t>(count) * sizeof(float))) {
    return bad("demo program: truncated conv weight");
  }
  op->weight = weight;
  if (!in.read(&has_bias) || has_bias > 1) return bad("demo program: bad bias flag");
  if (has_bias == 1) {
    auto* bias = memory->allocate_array<float>(static_cast<std::size_t>(w[0]));
    if (bias == nullptr || !in.read(bias, static_cast<std::size_t>(w[0]) * sizeof(float))) {
      return bad("demo program: truncated conv bias");
    }
    op->bias = bias;
  }
  return kOk;
}

runtime::EventTracerEntry start_event(EventTracer* tracer, const Op& op) {
  return runtime::event_tracer_start_profiling_delegate(tracer, op.name, op.int_id);
}

void end_event(EventTracer* tracer, const Op& op, const runtime::EventTracerEntry& entry) {
  (void)runtime::event_tracer_end_profiling_delegate(tracer, entry, op.label,
                                                     std::strlen(op.label));
}

void log_post_time(EventTracer* tracer, const Op& op, Ticks start, Ticks end) {
  (void)runtime::event_tracer_log_profiling_delegate(tracer, op.name, op.int_id, start, end,
                                                     op.label, std::strlen(op.label));
}

Error run_op(const Op& op, const float* const* slots, const Shape* shapes, float* out,
             Shape* out_shape, runtime::BackendExecutionContext& context) {
  using namespace runtime::kernels;
  const Shape& in_shape = shapes[op.operands[0]];
  const float* in = slots[op.operands[0]];
  switch (op.kind) {
    case DemoOpKind::kConv:
    case DemoOpKind::kConvRelu: {
      if (in_shape.rank != 4) return Error::kInvalidArgument;
      const Shape4 x{in_shape.dims[0], in_shape.dims[1], in_shape.dims[2], in_shape.dims[3]};
      Result<Shape4> y = conv2d_output_shape(x, op.weight_shape, op.conv);
      if (!y.ok()) return y.error();
      const std::size_t scratch_bytes = conv2d_scratch_bytes(x, op.weight_shape, op.conv);
      auto* scratch = static_cast<float*>(context.allocate(scratch_bytes, 64));
      if (scratch == nullptr && scratch_bytes > 0) return Error::kMemoryAllocationFailed;
      const Error e = conv2d(in, x, op.weight, op.weight_shape, op.bias, op.conv, out,
                             Span<float>(scratch, scratch_bytes / sizeof(float)));
      if (e != Error::kOk) return e;
      *out_shape = Shape{{y->n, y->c, y->h, y->w}, 4};
      if (op.kind == DemoOpKind::kConvRelu) return relu(out, out, y->numel());
      return Error::kOk;
    }
    case DemoOpKind::kRelu: *out_shape = in_shape; return relu(in, out, in_shape.numel());
    case DemoOpKind::kSin: *out_shape = in_shape; return sin(in, out, in_shape.numel());
    case DemoOpKind::kCos: *out_shape = in_shape; return cos(in, out, in_shape.numel());
    case DemoOpKind::kDiv: {
      const Shape& b = shapes[op.operands[1]];
      if (b.rank != in_shape.rank || b.numel() != in_shape.numel()) {
        return Error::kInvalidArgument;
      }
      *out_shape = in_shape;
      return div(in, Span<const std::int64_t>(in_shape.dims, in_shape.rank), slots[op.operands[1]],
                 Span<const std::int64_t>(b.dims, b.rank), out);
    }
  }
  return Error::kInternal;
}

}  // namespace

Result<runtime::DelegateHandle*> DemoBackendRuntime::init(
    runtime::BackendInitContext& context, Span<const std::uint8_t> processed,
    Span<const runtime::CompileSpecView> specs) {
  runtime::MemoryAllocator* memory = context.allocator();
  ByteReader in(processed);
  char magic[4];
  std::uint32_t version = 0;
  auto* program = memory->allocate_array<DemoState>(1);
  if (program == nullptr) return make_error(Error::kMemoryAllocationFailed, "demo: out of memory");
  if (!in.read(magic, 4) || std::memcmp(magic, kDemoMagic, 4) != 0) {
    return bad("demo program: bad magic (not a DemoBackend blob)");
  }
  if (!in.read(&version) || version != kDemoFormatVersion) {
    return make_error(Error::kVersionMismatch, "demo program: unsupported version");
  }
  if (!in.read(&program->num_ops) || !in.read(&program->num_inputs) ||
      !in.read(&program->num_outputs) || program->num_ops > kMaxOps || program->num_inputs == 0 ||
      program->num_inputs > kMaxCallValues || program->num_outputs == 0 ||
      program->num_outputs > kMaxCallValues || program->num_ops > in.remaining() / kMinOpBytes) {
    return bad("demo program: bad header counts");
  }
  Result<runtime::DelegateSpecs> common = runtime::parse_delegate_specs(specs);
  if (!common.ok()) return common.error_info();
  Result<bool> cycles = parse_clock_spec(specs);
  if (!cycles.ok()) return cycles.error_info();
  // A board's counter, when given, is the only clock (set_cycle_counter).
  const DemoCycleCounter counter =
      has_counter_ ? counter_ : DemoCycleCounter{demo_cycles, kDemoCycleTime};
  program->cycles = *cycles || has_counter_;
  program->read_cycles = counter.read;
  // Cycles are the delegate's own time: they can only be logged post-time.
  program->mode = program->cycles ? runtime::DelegateLogMode::kPostTime
                  : has_override_ ? override_
                                  : common->log_mode;
  if (program->cycles) {
    // A tracer that keeps no time scales still gets the events.
    (void)runtime::event_tracer_set_delegate_time_scale(context.event_tracer(), kDemoBackendName,
                                                        counter.ns_per_tick);
  }
  program->ops = memory->allocate_array<Op>(program->num_ops);
  program->output_slots = memory->allocate_array<std::uint32_t>(program->num_outputs);
  program->slot_shapes = memory->allocate_array<Shape>(program->num_inputs + program->num_ops);
  if ((program->ops == nullptr && program->num_ops > 0) || program->output_slots == nullptr ||
      program->slot_shapes == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "demo: out of memory");
  }
  for (std::uint32_t i = 0; i < program->num_ops; ++i) {
    Op& op = program->ops[i];
    const ErrorInfo e = read_op(in, memory, program->num_inputs + i, &op);
    if (e.code != Error::kOk) return e;
    op.perturbed = common->perturbs(op.int_id, op.name);
  }
  const std::uint32_t num_slots = program->num_inputs + program->num_ops;
  for (std::uint32_t i = 0; i < program->num_outputs; ++i) {
    if (!in.read(&program->output_slots[i]) || program->output_slots[i] >= num_slots) {
      return bad("demo program: bad output slot");
    }
  }
  if (!in.at_end()) return bad("demo program: trailing bytes");
  return static_cast<runtime::DelegateHandle*>(program);
}

ErrorInfo DemoBackendRuntime::prepare(runtime::DelegateHandle* handle, Span<Tensor* const> inputs,
                                      Span<Tensor* const> outputs) const {
  auto* program = static_cast<DemoState*>(handle);
  if (inputs.size() != program->num_inputs || outputs.size() != program->num_outputs) {
    return make_error(Error::kInvalidArgument,
                      "demo delegate: the call's input or output count differs from the blob's");
  }
  Shape* shapes = program->slot_shapes;
  for (std::uint32_t i = 0; i < program->num_inputs; ++i) {
    const Tensor& t = *inputs[i];
    if (t.dtype != ScalarType::kFloat || t.sizes.size() > kMaxRank ||
        !runtime::kernels::checked_numel(t.sizes).ok()) {
      return make_error(Error::kInvalidArgument,
                        "demo delegate: an input is not a float32 tensor of rank <= 6");
    }
    shapes[i] = Shape{};
    shapes[i].rank = t.sizes.size();
    for (std::size_t d = 0; d < t.sizes.size(); ++d) shapes[i].dims[d] = t.sizes[d];
  }
  // Each op's output shape, as execute will compute it; conv's is
  // overflow-checked, the others keep their operand's shape.
  for (std::uint32_t i = 0; i < program->num_ops; ++i) {
    const Op& op = program->ops[i];
    const Shape& x = shapes[op.operands[0]];
    Shape& y = shapes[program->num_inputs + i];
    y = x;
    if (op.kind == DemoOpKind::kConv || op.kind == DemoOpKind::kConvRelu) {
      if (x.rank != 4) return bad("demo program: conv operand is not 4-d");
      Result<runtime::kernels::Shape4> conv = runtime::kernels::conv2d_output_shape(
          {x.dims[0], x.dims[1], x.dims[2], x.dims[3]}, op.weight_shape, op.conv);
      if (!conv.ok()) return make_error(Error::kCorruptData, conv.message());
      y = Shape{{conv->n, conv->c, conv->h, conv->w}, 4};
    } else if (op.kind == DemoOpKind::kDiv) {
      const Shape& b = shapes[op.operands[1]];
      if (b.rank != x.rank || !std::equal(x.dims, x.dims + x.rank, b.dims)) {
        return bad("demo program: div operands differ in shape");
      }
    }
  }
  for (std::uint32_t i = 0; i < program->num_outputs; ++i) {
    const Shape& s = shapes[program->output_slots[i]];
    const Tensor& out = *outputs[i];
    if (out.dtype != ScalarType::kFloat || out.sizes.size() != s.rank ||
        !std::equal(s.dims, s.dims + s.rank, out.sizes.data()) ||
        out.nbytes != static_cast<std::size_t>(s.numel()) * sizeof(float)) {
      return bad("demo program: an output's shape differs from its planned tensor");
    }
  }
  return kOk;
}

Error DemoBackendRuntime::execute(runtime::BackendExecutionContext& context,
                                  runtime::DelegateHandle* handle, Span<Tensor* const> inputs,
                                  Span<Tensor* const> outputs) {
  const auto* program = static_cast<const DemoState*>(handle);
  if (inputs.size() != program->num_inputs || outputs.size() != program->num_outputs) {
    return Error::kInvalidArgument;
  }
  const std::uint32_t num_slots = program->num_inputs + program->num_ops;
  auto** slots = static_cast<const float**>(context.allocate(num_slots * sizeof(float*)));
  auto* shapes = static_cast<Shape*>(context.allocate(num_slots * sizeof(Shape)));
  auto* times = static_cast<Ticks*>(context.allocate(2 * program->num_ops * sizeof(Ticks)));
  if (slots == nullptr || shapes == nullptr || times == nullptr) {
    return Error::kMemoryAllocationFailed;
  }
  for (std::uint32_t i = 0; i < program->num_inputs; ++i) {
    const Tensor& t = *inputs[i];
    if (t.dtype != ScalarType::kFloat || t.sizes.size() > kMaxRank) {
      return Error::kInvalidArgument;
    }
    slots[i] = t.float_data();
    shapes[i] = Shape{};
    shapes[i].rank = t.sizes.size();
    for (std::size_t d = 0; d < t.sizes.size(); ++d) shapes[i].dims[d] = t.sizes[d];
  }
  EventTracer* tracer = context.event_tracer();
  const bool post_time = program->mode == runtime::DelegateLogMode::kPostTime;
  // Post time: timestamps read only when the hooks record; the ops that
  // ran logged after the loop, also when one failed (what ran is kept).
  const bool timed = post_time && runtime::event_tracer_records_delegate_profiling(tracer);
  auto log_post_times = [&](std::uint32_t ran) {
    for (std::uint32_t i = 0; timed && i < ran; ++i) {
      log_post_time(tracer, program->ops[i], times[2 * i], times[2 * i + 1]);
    }
  };
  for (std::uint32_t i = 0; i < program->num_ops; ++i) {
    const Op& op = program->ops[i];
    // Output size: conv needs its computed shape; the rest match input 0.
    std::int64_t numel = shapes[op.operands[0]].numel();
    if (op.kind == DemoOpKind::kConv || op.kind == DemoOpKind::kConvRelu) {
      const Shape& s = shapes[op.operands[0]];
      if (s.rank != 4) return Error::kInvalidArgument;
      Result<runtime::kernels::Shape4> y = runtime::kernels::conv2d_output_shape(
          {s.dims[0], s.dims[1], s.dims[2], s.dims[3]}, op.weight_shape, op.conv);
      if (!y.ok()) return y.error();
      numel = y->numel();
    }
    auto* out =
        static_cast<float*>(context.allocate(static_cast<std::size_t>(numel) * sizeof(float), 64));
    if (out == nullptr && numel > 0) return Error::kMemoryAllocationFailed;
    const std::uint32_t slot = program->num_inputs + i;

    runtime::EventTracerEntry entry;
    if (timed) {
      times[2 * i] = program->cycles ? program->read_cycles() : tracer->clock().now();
    } else if (!post_time) {
      entry = start_event(tracer, op);
    }
    const Error e = run_op(op, slots, shapes, out, &shapes[slot], context);
    if (timed) {
      times[2 * i + 1] = program->cycles ? program->read_cycles() : tracer->clock().now();
    } else if (!post_time) {
      end_event(tracer, op, entry);
    }
    if (e != Error::kOk) {
      log_post_times(i);
      return e;
    }
    if (op.perturbed) {
      const std::int64_t n = shapes[slot].numel();
      for (std::int64_t k = 0; k < n; ++k) out[k] += runtime::kPerturbation;
    }
    slots[slot] = out;
    const TensorView view{ScalarType::kFloat,
                          Span<const std::int64_t>(shapes[slot].dims, shapes[slot].rank),
                          {},
                          out};
    (void)runtime::event_tracer_log_output_delegate(tracer, op.name, op.int_id, view);
  }
  log_post_times(program->num_ops);
  for (std::uint32_t i = 0; i < program->num_outputs; ++i) {
    const std::uint32_t slot = program->output_slots[i];
    Tensor& out = *outputs[i];
    const std::size_t bytes = static_cast<std::size_t>(shapes[slot].numel()) * sizeof(float);
    if (out.dtype != ScalarType::kFloat || out.nbytes != bytes ||
        out.sizes.size() != shapes[slot].rank) {
      return Error::kInvalidArgument;  // the planned output does not match
    }
    std::memcpy(out.data, slots[slot], bytes);
  }
  return Error::kOk;
}

void DemoBackendRuntime::set_profiling_mode_override(const runtime::DelegateLogMode* mode) {
  has_override_ = mode != nullptr;
  if (mode != nullptr) override_ = *mode;
}

void DemoBackendRuntime::set_cycle_counter(const DemoCycleCounter* counter) {
  has_counter_ = counter != nullptr;
  if (counter != nullptr) counter_ = *counter;
}

DemoBackendRuntime& demo_backend_runtime() {
  static DemoBackendRuntime backend;
  return backend;
}

Error register_demo_backend_runtime() {
  if (runtime::find_backend(kDemoBackendName) == &demo_backend_runtime()) {
    return Error::kOk;
  }
  return runtime::register_backend(kDemoBackendName, &demo_backend_runtime());
}

}  // namespace glassbox::backends::demo
