#include "glassbox/runtime/method.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "glassbox/runtime/event_tracer_hooks.h"
#include "program_generated.h"

namespace glassbox::runtime {

struct Method::Instruction {
  const Kernel* kernel = nullptr;  // null for a delegate call
  std::size_t delegate = 0;        // index into delegates_
  KernelAttributes attributes{nullptr};
  Tensor** inputs = nullptr;
  std::size_t num_inputs = 0;
  Tensor** outputs = nullptr;
  std::size_t num_outputs = 0;
  // "native_call_<op>", built once so the tracer sees a stable pointer.
  const char* native_name = nullptr;
  // A kernel call with an input sized by data: its prepare runs again
  // before each run, checking the actual sizes and sizing its outputs.
  bool prepare_each_run = false;
};

struct Method::Delegate {
  BackendInterface* backend = nullptr;
  DelegateHandle* handle = nullptr;
};

namespace {

constexpr std::size_t kArenaAlignment = 64;

ErrorInfo out_of_memory(Diagnostics* d, const char* what) {
  report(d, "the method allocator ran out of memory for %s", what);
  return make_error(Error::kMemoryAllocationFailed, "method allocator full");
}

// Runs a kernel call's prepare: at load, and again before each run of a
// call fed by a value sized by data. A refusal is reported as
// "instruction N: <the kernel's message>".
Result<std::size_t> prepare_kernel(const Method::Instruction& instr, std::size_t index,
                                   Diagnostics* diagnostics) {
  const KernelArgs args{Span<Tensor* const>(instr.inputs, instr.num_inputs),
                        Span<Tensor* const>(instr.outputs, instr.num_outputs), &instr.attributes};
  Diagnostics kernel_diag;
  Result<std::size_t> scratch = instr.kernel->prepare(args, &kernel_diag);
  // Kernel messages start with the op name already.
  if (!scratch.ok()) report(diagnostics, "instruction %zu: %s", index, kernel_diag.message);
  return scratch;
}

// Resolves value indices into Tensor pointers, in memory that lives as long
// as the method.
Tensor** resolve(const flatbuffers::Vector<std::int32_t>* indices, Tensor* values,
                 MemoryAllocator* allocator) {
  auto** out = allocator->allocate_array<Tensor*>(indices->size() + 1);
  if (out == nullptr) return nullptr;
  for (flatbuffers::uoffset_t i = 0; i < indices->size(); ++i) {
    out[i] = &values[indices->Get(i)];
  }
  return out;
}

const char* make_native_name(const char* op, MemoryAllocator* allocator) {
  static constexpr char kPrefix[] = "native_call_";
  const std::size_t length = sizeof(kPrefix) - 1 + std::strlen(op) + 1;
  auto* name = static_cast<char*>(allocator->allocate(length, 1));
  if (name != nullptr) std::snprintf(name, length, "%s%s", kPrefix, op);
  return name;
}

}  // namespace

Method::Method(Method&& other) noexcept
    : name_(other.name_),
      tracer_(other.tracer_),
      temp_(other.temp_),
      values_(other.values_),
      num_values_(other.num_values_),
      inputs_(other.inputs_),
      outputs_(other.outputs_),
      num_inputs_(other.num_inputs_),
      num_outputs_(other.num_outputs_),
      instructions_(other.instructions_),
      num_instructions_(other.num_instructions_),
      delegates_(std::exchange(other.delegates_, nullptr)),
      num_delegates_(std::exchange(other.num_delegates_, 0)),
      scratch_(other.scratch_) {}

Method::~Method() {
  for (std::size_t i = 0; i < num_delegates_; ++i) {
    if (delegates_[i].backend != nullptr && delegates_[i].handle != nullptr) {
      delegates_[i].backend->destroy(delegates_[i].handle);
    }
  }
}

Result<Method> Method::load(const Program& program, const char* name,
                            MemoryAllocator* method_allocator, MemoryAllocator* temp_allocator,
                            EventTracer* tracer, Diagnostics* diagnostics) {
  Result<std::size_t> index = program.method_index(name);
  if (!index.ok()) {
    report(diagnostics, "the program has no method '%s'", name);
    return index.error_info();
  }
  const auto* root = static_cast<const gbx::Program*>(program.root());
  const gbx::Method* fb = root->methods()->Get(static_cast<flatbuffers::uoffset_t>(*index));

  // Load-time events go to a "Default" block, as in ExecuTorch.
  event_tracer_create_event_block(tracer, "Default");
  EventTracerProfileMethodScope init_scope(tracer, "Method::init");

  Method method;
  method.name_ = fb->name()->c_str();
  method.tracer_ = tracer;
  method.temp_ = temp_allocator;

  // Values: constants point into the program, the rest into the arena.
  // (A 32-bit target cannot address an arena past size_t: out of memory.)
  auto* arena = std::in_range<std::size_t>(fb->arena_bytes())
                    ? static_cast<std::uint8_t*>(method_allocator->allocate(
                          static_cast<std::size_t>(fb->arena_bytes()), kArenaAlignment))
                    : nullptr;
  if (arena == nullptr && fb->arena_bytes() > 0) {
    return out_of_memory(diagnostics, "the activation arena");
  }
  method.num_values_ = fb->values()->size();
  method.values_ = method_allocator->allocate_array<Tensor>(method.num_values_);
  if (method.values_ == nullptr) return out_of_memory(diagnostics, "values");
  for (flatbuffers::uoffset_t v = 0; v < fb->values()->size(); ++v) {
    const gbx::Tensor* t = fb->values()->Get(v);
    Tensor& slot = method.values_[v];
    slot.dtype = static_cast<ScalarType>(t->scalar_type());
    slot.sizes = Span<const std::int64_t>(t->sizes()->data(), t->sizes()->size());
    slot.nbytes = static_cast<std::size_t>(slot.numel()) * element_size(slot.dtype);
    if (t->dynamic()) {
      // Sizes its kernel rewrites at each execution; the bound until then.
      slot.bound = slot.sizes;
      slot.dynamic_sizes = method_allocator->allocate_array<std::int64_t>(slot.bound.size() + 1);
      if (slot.dynamic_sizes == nullptr) return out_of_memory(diagnostics, "dynamic sizes");
      for (std::size_t d = 0; d < slot.bound.size(); ++d) slot.dynamic_sizes[d] = slot.bound[d];
      slot.sizes = Span<const std::int64_t>(slot.dynamic_sizes, slot.bound.size());
    }
    if (t->constant_index() >= 0) {
      // Verified by Program::load: the buffer exists and has nbytes.
      const gbx::Buffer* buffer =
          root->constants()->Get(static_cast<flatbuffers::uoffset_t>(t->constant_index()));
      slot.data = const_cast<std::uint8_t*>(buffer->data()->data());
      slot.is_constant = true;
    } else {
      slot.data = arena + t->arena_offset();
    }
  }
  method.num_inputs_ = fb->inputs()->size();
  method.num_outputs_ = fb->outputs()->size();
  method.inputs_ = resolve(fb->inputs(), method.values_, method_allocator);
  method.outputs_ = resolve(fb->outputs(), method.values_, method_allocator);
  if (method.inputs_ == nullptr || method.outputs_ == nullptr) {
    return out_of_memory(diagnostics, "inputs and outputs");
  }

  // Delegates: each backend parses and validates its blob once.
  method.num_delegates_ = fb->delegates() ? fb->delegates()->size() : 0;
  method.delegates_ = method_allocator->allocate_array<Delegate>(method.num_delegates_);
  if (method.delegates_ == nullptr && method.num_delegates_ > 0) {
    return out_of_memory(diagnostics, "delegates");
  }
  for (std::size_t d = 0; d < method.num_delegates_; ++d) {
    const gbx::BackendDelegate* delegate =
        fb->delegates()->Get(static_cast<flatbuffers::uoffset_t>(d));
    const std::size_t num_specs = delegate->compile_specs() ? delegate->compile_specs()->size() : 0;
    auto* specs = method_allocator->allocate_array<CompileSpecView>(num_specs);
    if (specs == nullptr && num_specs > 0) {
      return out_of_memory(diagnostics, "compile specs");
    }
    for (std::size_t s = 0; s < num_specs; ++s) {
      const gbx::CompileSpec* spec =
          delegate->compile_specs()->Get(static_cast<flatbuffers::uoffset_t>(s));
      specs[s].key = spec->key() ? spec->key()->c_str() : "";
      if (spec->value() != nullptr) {
        specs[s].value = Span<const std::uint8_t>(spec->value()->data(), spec->value()->size());
      }
    }
    BackendInterface* backend = find_backend(delegate->backend()->c_str());
    BackendInitContext context(method_allocator, tracer, method.name_);
    Result<DelegateHandle*> handle = backend->init(
        context,
        Span<const std::uint8_t>(delegate->processed()->data(), delegate->processed()->size()),
        Span<const CompileSpecView>(specs, num_specs));
    if (!handle.ok()) {
      report(diagnostics, "delegate %zu (backend '%s') failed to initialise: %s", d,
             delegate->backend()->c_str(), handle.message());
      return handle.error_info();
    }
    method.delegates_[d] = Delegate{backend, *handle};
  }

  // Instructions: kernels are prepared (validated) now, never at run time.
  method.num_instructions_ = fb->instructions()->size();
  method.instructions_ = method_allocator->allocate_array<Instruction>(method.num_instructions_);
  if (method.instructions_ == nullptr && method.num_instructions_ > 0) {
    return out_of_memory(diagnostics, "instructions");
  }
  std::size_t scratch_bytes = 0;
  for (flatbuffers::uoffset_t i = 0; i < fb->instructions()->size(); ++i) {
    const gbx::Instruction* fb_instr = fb->instructions()->Get(i);
    Instruction& instr = method.instructions_[i];
    const flatbuffers::Vector<std::int32_t>* ins = nullptr;
    const flatbuffers::Vector<std::int32_t>* outs = nullptr;
    if (const gbx::KernelCall* call = fb_instr->args_as_KernelCall()) {
      instr.kernel = find_kernel(call->op()->c_str());
      instr.attributes = KernelAttributes(call->attributes());
      instr.native_name = make_native_name(call->op()->c_str(), method_allocator);
      ins = call->inputs();
      outs = call->outputs();
    } else {
      const gbx::DelegateCall* delegate_call = fb_instr->args_as_DelegateCall();
      instr.delegate = static_cast<std::size_t>(delegate_call->delegate_index());
      ins = delegate_call->inputs();
      outs = delegate_call->outputs();
    }
    instr.inputs = resolve(ins, method.values_, method_allocator);
    instr.outputs = resolve(outs, method.values_, method_allocator);
    instr.num_inputs = ins->size();
    instr.num_outputs = outs->size();
    if (instr.inputs == nullptr || instr.outputs == nullptr ||
        (instr.kernel != nullptr && instr.native_name == nullptr)) {
      return out_of_memory(diagnostics, "instruction tables");
    }
    for (std::size_t o = 0; o < instr.num_outputs; ++o) {
      if (instr.outputs[o]->is_constant) {
        report(diagnostics, "instruction %u writes to a constant", static_cast<unsigned>(i));
        return make_error(Error::kCorruptData, "program writes a constant");
      }
    }
    if (instr.kernel != nullptr) {
      Result<std::size_t> scratch = prepare_kernel(instr, i, diagnostics);
      if (!scratch.ok()) return scratch.error_info();
      if (*scratch > scratch_bytes) scratch_bytes = *scratch;
      for (std::size_t in = 0; in < instr.num_inputs; ++in) {
        if (instr.inputs[in]->is_dynamic()) instr.prepare_each_run = true;
      }
    } else {
      const Delegate& delegate = method.delegates_[instr.delegate];
      const ErrorInfo checked = delegate.backend->prepare(
          delegate.handle, Span<Tensor* const>(instr.inputs, instr.num_inputs),
          Span<Tensor* const>(instr.outputs, instr.num_outputs));
      if (checked.code != Error::kOk) {
        report(diagnostics, "instruction %u: delegate %zu: %s", static_cast<unsigned>(i),
               instr.delegate, checked.message);
        return checked;
      }
    }
  }
  if (scratch_bytes > 0) {
    auto* scratch =
        static_cast<std::uint8_t*>(method_allocator->allocate(scratch_bytes, kArenaAlignment));
    if (scratch == nullptr) return out_of_memory(diagnostics, "kernel scratch");
    method.scratch_ = Span<std::uint8_t>(scratch, scratch_bytes);
  }
  return method;
}

Error Method::set_input(std::size_t index, const void* data, std::size_t nbytes) {
  if (index >= num_inputs_ || data == nullptr) return Error::kInvalidArgument;
  Tensor& t = *inputs_[index];
  if (nbytes != t.nbytes) return Error::kInvalidArgument;
  std::memcpy(t.data, data, nbytes);
  return Error::kOk;
}

Error Method::prepare_for_actual_sizes(std::size_t index, Diagnostics* diagnostics) {
  Result<std::size_t> scratch = prepare_kernel(instructions_[index], index, diagnostics);
  if (!scratch.ok()) return scratch.error();
  // Load prepared it at the bounds; smaller sizes never need more scratch,
  // but a kernel that did would overrun it.
  if (*scratch > scratch_.size()) {
    report(diagnostics, "instruction %zu: needs %zu bytes of scratch at these sizes, %zu reserved",
           index, *scratch, scratch_.size());
    return Error::kInvalidArgument;
  }
  return Error::kOk;
}

Error Method::run_instruction(std::size_t index, Diagnostics* diagnostics) {
  Instruction& instr = instructions_[index];
  const Span<Tensor* const> outputs(instr.outputs, instr.num_outputs);
  Error error = Error::kOk;
  if (instr.kernel != nullptr) {
    EventTracerProfileOpScope op(tracer_, "OPERATOR_CALL");
    if (instr.prepare_each_run) {
      error = prepare_for_actual_sizes(index, diagnostics);
      if (error != Error::kOk) return error;
    }
    {
      EventTracerProfileOpScope native(tracer_, instr.native_name);
      error = instr.kernel->run(KernelArgs{Span<Tensor* const>(instr.inputs, instr.num_inputs),
                                           outputs, &instr.attributes},
                                scratch_);
    }
    for (Tensor* t : outputs) event_tracer_log_value(tracer_, ValueView::of_tensor(t->view()));
  } else {
    EventTracerProfileOpScope call(tracer_, "DELEGATE_CALL");
    Delegate& delegate = delegates_[instr.delegate];
    BackendExecutionContext context(temp_, tracer_, name_);
    error = delegate.backend->execute(context, delegate.handle,
                                      Span<Tensor* const>(instr.inputs, instr.num_inputs), outputs);
    for (Tensor* t : outputs) event_tracer_log_value(tracer_, ValueView::of_tensor(t->view()));
  }
  temp_->reset();
  if (error != Error::kOk) {
    report(diagnostics, "instruction %zu failed: %s", index, to_string(error).data());
  }
  return error;
}

Error Method::execute(Diagnostics* diagnostics) {
  event_tracer_create_event_block(tracer_, "Execute");
  {
    EventTracerProfileMethodScope method_scope(tracer_, "Method::execute");
    for (std::size_t i = 0; i < num_instructions_; ++i) {
      EventTracerProfileInstructionScope scope(tracer_, ChainId(0),
                                               InstructionId(static_cast<std::int32_t>(i)));
      const Error error = run_instruction(i, diagnostics);
      if (error != Error::kOk) return error;
    }
  }
  for (std::size_t o = 0; o < num_outputs_; ++o) {
    event_tracer_log_value_output(tracer_, ValueView::of_tensor(outputs_[o]->view()));
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime
