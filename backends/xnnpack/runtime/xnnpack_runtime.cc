#include "backends/xnnpack/runtime/xnnpack_runtime.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstdio>
#include <cstring>

#include "backends/common/operator_profiler.h"
#include "backends/xnnpack/runtime/buffer_plan.h"
#include "backends/xnnpack/runtime/concat_in_place.h"
#include "backends/xnnpack/runtime/layout_transpose.h"
#include "backends/xnnpack/runtime/program_parser.h"
#include "backends/xnnpack/runtime/xnn_operators.h"
#include "backends/xnnpack/xnnpack_format.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends::xnnpack {
namespace {

using runtime::EventTracer;
using runtime::Tensor;

constexpr std::size_t kBufferAlignment = 64;
constexpr std::uint32_t kMaxThreadCount = runtime::kMaxDelegateThreads;

struct XnnDelegate {
  const ParsedProgram* program = nullptr;
  float** buffers = nullptr;  // one per slot
  CompiledOp* ops = nullptr;
  std::uint32_t num_compiled = 0;
  pthreadpool_t pool = nullptr;
  runtime::DelegateLogMode mode = runtime::DelegateLogMode::kRealTime;
  // A deliberate fault for numeric debugging (compile spec "perturb"): per
  // operator, whether its output gets runtime::kPerturbation added.
  bool* perturbed = nullptr;
  // Per operator: whether it logs its output, i.e. it is the last of a run
  // of operators sharing one identifier (one source op decomposed, such
  // as hardsigmoid: the earlier ones hold partial results).
  bool* logs_output = nullptr;
  // Each operator's identifiers and type, as its events log them.
  backends::OperatorEvents events;
  // Per operator: its index in `events`. A kRecurrentState has no event
  // (its layer writes it: recurrent_layer.h) and the next operator's index.
  std::uint32_t* event_of = nullptr;
  // Convolution outputs written into their concatenation's buffer.
  InPlaceSlices slices;
};

bool same_identifier(const ParsedOp& a, const ParsedOp& b) {
  if (a.name != nullptr || b.name != nullptr) {
    return a.name != nullptr && b.name != nullptr && std::strcmp(a.name, b.name) == 0;
  }
  return a.int_id.value == b.int_id.value;
}

void release(XnnDelegate* d) {
  for (std::uint32_t i = 0; i < d->num_compiled; ++i) delete_compiled(&d->ops[i]);
  d->num_compiled = 0;
  d->pool = nullptr;  // Shared: owned by XnnpackBackendRuntime.
}

// The graph's type of a slot: float, int8 or uint8 (format 1.6).
ScalarType scalar_type(const SlotDesc& desc) {
  switch (desc.dtype) {
    case XnnDType::kQs8: return ScalarType::kChar;
    case XnnDType::kQu8: return ScalarType::kByte;
    case XnnDType::kF32: break;
  }
  return ScalarType::kFloat;
}

// A kQu8 slot holds uint8 values minus 128: flipping the top bit converts
// either way.
void copy_flipping(const void* from, void* to, std::size_t bytes, bool flip) {
  if (!flip) {
    if (from != to) std::memcpy(to, from, bytes);
    return;
  }
  const auto* src = static_cast<const std::uint8_t*>(from);
  auto* dst = static_cast<std::uint8_t*>(to);
  for (std::size_t i = 0; i < bytes; ++i) dst[i] = static_cast<std::uint8_t>(src[i] ^ 0x80u);
}

TensorView view_of(const SlotDesc& desc, const void* data) {
  return TensorView{scalar_type(desc), Span<const std::int64_t>(desc.dims, desc.rank), {}, data};
}

// Logs op `i`'s output, in logical (NCHW) order so it compares with the
// portable kernels' intermediate outputs.
// Whether it tried (then it took time of its own between operators).
bool log_output(EventTracer* tracer, runtime::BackendExecutionContext& context,
                const XnnDelegate& d, std::uint32_t i) {
  if (!runtime::event_tracer_records_delegate_outputs(tracer) || !d.logs_output[i]) return false;
  const ParsedOp& op = d.program->ops[i];
  const std::uint32_t slot = d.program->first_op_slot() + i;
  const SlotDesc& desc = d.program->slots[slot];
  const float* data = d.buffers[slot];
  const bool in_place = d.slices.in_place(slot);
  const bool aliases = !in_place && (desc.dims[1] == 1 || desc.pixels() == 1);
  if (desc.quantized()) {
    // int8 in logical order, uint8 ones back to their uint8 values, so the
    // Inspector dequantizes them with the graph's scale and zero point.
    const auto numel = static_cast<std::size_t>(desc.numel);
    auto* logical = static_cast<std::int8_t*>(context.allocate(numel, kBufferAlignment));
    if (logical == nullptr) return true;  // scratch exhausted: skip the debug copy
    const auto* bytes = reinterpret_cast<const std::int8_t*>(data);
    if (desc.layout == XnnLayout::kNhwc && !aliases) {
      nhwc_to_nchw(bytes, logical, desc.dims[0], desc.dims[1], desc.pixels());
      bytes = logical;
    }
    copy_flipping(bytes, logical, numel, desc.dtype == XnnDType::kQu8);
    (void)runtime::event_tracer_log_output_delegate(tracer, op.name, op.int_id,
                                                    view_of(desc, logical));
    return true;
  }
  if (desc.layout == XnnLayout::kNhwc && !aliases) {
    auto* logical = static_cast<float*>(
        context.allocate(static_cast<std::size_t>(desc.numel) * sizeof(float), kBufferAlignment));
    if (logical == nullptr) return true;  // scratch exhausted: skip the debug copy
    nhwc_to_nchw(data, logical, desc.dims[0], desc.dims[1], desc.pixels(),
                 pixel_stride(*d.program, d.slices, slot));
    data = logical;
  }
  (void)runtime::event_tracer_log_output_delegate(tracer, op.name, op.int_id, view_of(desc, data));
  return true;
}

// A tensor of the slot's type with exactly its shape and buffer size.
bool matches(const Tensor& t, const SlotDesc& desc) {
  if (t.dtype != scalar_type(desc) || t.sizes.size() != desc.rank || t.data == nullptr ||
      t.nbytes != static_cast<std::size_t>(desc.numel) * desc.element_size()) {
    return false;
  }
  for (std::size_t k = 0; k < desc.rank; ++k) {
    if (t.sizes[k] != desc.dims[k]) return false;
  }
  return true;
}

}  // namespace

bool XnnpackBackendRuntime::is_available() const {
  return xnn_initialize(nullptr) == xnn_status_success;
}

Result<runtime::DelegateHandle*> XnnpackBackendRuntime::init(
    runtime::BackendInitContext& context, Span<const std::uint8_t> processed,
    Span<const runtime::CompileSpecView> specs) {
  if (xnn_initialize(nullptr) != xnn_status_success) {
    return make_error(Error::kNotSupported, "xnnpack: xnn_initialize failed on this CPU");
  }
  runtime::MemoryAllocator* memory = context.allocator();
  Result<runtime::DelegateSpecs> common = runtime::parse_delegate_specs(specs);
  if (!common.ok()) return common.error_info();
  Result<ParsedProgram*> program = parse_xnn_program(processed, memory);
  if (!program.ok()) return program.error_info();

  auto* d = memory->allocate_array<XnnDelegate>(1);
  const std::uint32_t num_slots = (*program)->num_slots();
  if (d == nullptr) return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  d->program = *program;
  d->mode = log_mode(*common);
  d->buffers = memory->allocate_array<float*>(num_slots);
  d->ops = memory->allocate_array<CompiledOp>((*program)->num_ops);
  d->logs_output = memory->allocate_array<bool>((*program)->num_ops);
  d->perturbed = memory->allocate_array<bool>((*program)->num_ops);
  d->event_of = memory->allocate_array<std::uint32_t>((*program)->num_ops);
  std::uint32_t num_events = 0;
  for (std::uint32_t i = 0; i < (*program)->num_ops; ++i) {
    num_events += (*program)->ops[i].kind != XnnOpKind::kRecurrentState ? 1 : 0;
  }
  if (d->buffers == nullptr || d->ops == nullptr || d->logs_output == nullptr ||
      d->perturbed == nullptr || d->event_of == nullptr || !d->events.init(*memory, num_events)) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  }
  num_events = 0;
  for (std::uint32_t i = 0; i < d->program->num_ops; ++i) {
    const ParsedOp& op = d->program->ops[i];
    const char* type = xnn_op_type_name(op.kind);
    d->event_of[i] = num_events;
    if (op.kind != XnnOpKind::kRecurrentState) {
      d->events.set(num_events++, op.name, op.int_id, type, std::strlen(type));
    }
    d->perturbed[i] = common->perturbs(d->program->ops[i].int_id, d->program->ops[i].name);
    d->logs_output[i] = i + 1 == d->program->num_ops ||
                        !same_identifier(d->program->ops[i], d->program->ops[i + 1]) ||
                        d->program->ops[i + 1].kind == XnnOpKind::kRecurrentState;
  }
  if (const ErrorInfo e = plan_in_place_slices(*d->program, d->perturbed, memory, &d->slices);
      e.code != Error::kOk) {
    return e;
  }
  // XNNPACK may read (never use) up to XNN_EXTRA_BYTES past an input.
  BufferPlan plan;
  if (const ErrorInfo e = plan_buffers(*d->program, XNN_EXTRA_BYTES, memory, &plan, &d->slices);
      e.code != Error::kOk) {
    return e;
  }
  auto** storage = memory->allocate_array<float*>(plan.num_buffers);
  if (storage == nullptr)
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  for (std::uint32_t b = 0; b < plan.num_buffers; ++b) {
    storage[b] = static_cast<float*>(memory->allocate(plan.bytes[b], kBufferAlignment));
    if (storage[b] == nullptr) {
      return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory for tensors");
    }
  }
  for (std::uint32_t s = 0; s < num_slots; ++s) {
    d->buffers[s] = storage[plan.buffer_of[s]];
    if (d->slices.in_place(s)) d->buffers[s] += d->slices.first_channel[s];
  }
  // Constants get buffers like every slot (aligned, with the slack), filled
  // once here, so operators read them like inputs.
  for (std::uint32_t k = 0; k < d->program->num_constants; ++k) {
    const std::uint32_t s = d->program->num_inputs + k;
    std::memcpy(d->buffers[s], d->program->constant_data[k],
                static_cast<std::size_t>(d->program->slots[s].numel) * sizeof(float));
  }
  const std::uint32_t thread_count = threads(*common);
  if (thread_count > 1) {
    d->pool = shared_pool(thread_count);
    if (d->pool == nullptr) {
      return make_error(Error::kMemoryAllocationFailed, "xnnpack: cannot create the thread pool");
    }
  }
  for (std::uint32_t i = 0; i < d->program->num_ops; ++i) {
    const std::uint32_t slot = d->program->first_op_slot() + i;
    const std::size_t stride =
        d->slices.in_place(slot)
            ? static_cast<std::size_t>(pixel_stride(*d->program, d->slices, slot))
            : 0;
    const ErrorInfo e =
        compile_operator(*d->program, i, d->buffers, d->pool, memory, &d->ops[i], stride);
    if (e.code != Error::kOk) {
      release(d);
      return e;
    }
    d->num_compiled = i + 1;
  }
  return static_cast<runtime::DelegateHandle*>(d);
}

ErrorInfo XnnpackBackendRuntime::prepare(runtime::DelegateHandle* handle,
                                         Span<Tensor* const> inputs,
                                         Span<Tensor* const> outputs) const {
  const ParsedProgram& program = *static_cast<const XnnDelegate*>(handle)->program;
  if (inputs.size() != program.num_inputs || outputs.size() != program.num_outputs) {
    return make_error(Error::kInvalidArgument,
                      "xnnpack delegate: the call's input or output count differs from the blob's");
  }
  for (std::uint32_t i = 0; i < program.num_inputs; ++i) {
    if (!matches(*inputs[i], program.slots[i])) {
      return make_error(Error::kInvalidArgument,
                        "xnnpack delegate: an input differs from the blob's input shape");
    }
  }
  for (std::uint32_t i = 0; i < program.num_outputs; ++i) {
    if (!matches(*outputs[i], program.slots[program.outputs[i]])) {
      return make_error(Error::kInvalidArgument,
                        "xnnpack delegate: an output differs from the blob's output shape");
    }
  }
  return kOk;
}

Error XnnpackBackendRuntime::execute(runtime::BackendExecutionContext& context,
                                     runtime::DelegateHandle* handle, Span<Tensor* const> inputs,
                                     Span<Tensor* const> outputs) {
  auto* d = static_cast<XnnDelegate*>(handle);
  const ParsedProgram& program = *d->program;
  if (inputs.size() != program.num_inputs || outputs.size() != program.num_outputs) {
    return Error::kInvalidArgument;
  }
  for (std::uint32_t i = 0; i < program.num_inputs; ++i) {
    const Tensor& t = *inputs[i];
    if (!matches(t, program.slots[i])) return Error::kInvalidArgument;
    copy_flipping(t.data, d->buffers[i], t.nbytes, program.slots[i].dtype == XnnDType::kQu8);
  }
  EventTracer* tracer = context.event_tracer();
  backends::OperatorProfiler profiler(d->events, d->mode);
  if (const Error e = profiler.begin(context); e != Error::kOk) return e;
  for (std::uint32_t i = 0; i < program.num_ops; ++i) {
    // Written by its recurrent layer (recurrent_layer.h): no event of its own.
    if (program.ops[i].kind == XnnOpKind::kRecurrentState) continue;
    const Error e = profiler.run(d->event_of[i], [&] { return run_compiled(d->ops[i], d->pool); });
    if (e != Error::kOk) {
      profiler.finish(d->event_of[i]);  // what ran is not lost
      return e;
    }
    if (d->perturbed[i] && !program.slots[program.first_op_slot() + i].quantized()) {
      float* out = d->buffers[program.first_op_slot() + i];
      for (std::int64_t k = 0; k < program.slots[program.first_op_slot() + i].numel; ++k) {
        out[k] += runtime::kPerturbation;
      }
      profiler.interrupt();
    }
    if (log_output(tracer, context, *d, i)) profiler.interrupt();
  }
  profiler.finish(d->events.size());
  for (std::uint32_t i = 0; i < program.num_outputs; ++i) {
    const std::uint32_t slot = program.outputs[i];
    const SlotDesc& desc = program.slots[slot];
    Tensor& out = *outputs[i];
    const std::size_t bytes = static_cast<std::size_t>(desc.numel) * desc.element_size();
    if (!matches(out, desc)) return Error::kInvalidArgument;  // the planned output does not match
    copy_flipping(d->buffers[slot], out.data, bytes, desc.dtype == XnnDType::kQu8);
  }
  return Error::kOk;
}

void XnnpackBackendRuntime::destroy(runtime::DelegateHandle* handle) {
  if (handle != nullptr) release(static_cast<XnnDelegate*>(handle));
}

pthreadpool_t XnnpackBackendRuntime::shared_pool(std::uint32_t threads) {
  static_assert(sizeof(pools_) / sizeof(pools_[0]) == kMaxThreadCount - 1);
  if (threads < 2 || threads > kMaxThreadCount) return nullptr;
  pthreadpool_t& pool = pools_[threads - 2];
  if (pool == nullptr) pool = pthreadpool_create(threads);
  return pool;
}

XnnpackBackendRuntime::~XnnpackBackendRuntime() {
  for (pthreadpool_t& pool : pools_) {
    if (pool != nullptr) pthreadpool_destroy(pool);
    pool = nullptr;
  }
}

XnnpackBackendRuntime& xnnpack_backend_runtime() {
  static XnnpackBackendRuntime backend;
  return backend;
}

Error register_xnnpack_backend_runtime() {
  if (runtime::find_backend(kXnnpackBackendName) == &xnnpack_backend_runtime()) {
    return Error::kOk;
  }
  return runtime::register_backend(kXnnpackBackendName, &xnnpack_backend_runtime());
}

}  // namespace glassbox::backends::xnnpack
