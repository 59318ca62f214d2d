#include "glassbox/runtime/program.h"

#include <cstring>
#include <limits>

#include "glassbox/core/scalar_type.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/kernel_registry.h"
#include "program_generated.h"

namespace glassbox::runtime {
namespace {

// Limits that keep every later size computation free of overflow.
constexpr std::size_t kMaxRank = 16;
constexpr std::int64_t kMaxTensorBytes = std::int64_t{1} << 40;

ErrorInfo corrupt(Diagnostics* d, const char* what) {
  report(d, "%s", what);
  return make_error(Error::kCorruptData, "program failed verification");
}

// FlatBuffers' verifier checks a vector's 4-byte length prefix, not that
// 8-byte elements are 8-byte aligned; the runtime reads [long] vectors in
// place (as int64 spans), so a misaligned one is corrupt.
bool aligned_longs(const flatbuffers::Vector<std::int64_t>* v) {
  // An empty vector is never read (and builders need not align it).
  return v == nullptr || v->size() == 0 ||
         reinterpret_cast<std::uintptr_t>(v->data()) % alignof(std::int64_t) == 0;
}

// Byte size of a tensor, or -1 when its dtype or sizes are invalid.
std::int64_t tensor_bytes(const gbx::Tensor& t) {
  const std::size_t element = element_size(static_cast<ScalarType>(t.scalar_type()));
  if (element == 0 || t.sizes() == nullptr || t.sizes()->size() > kMaxRank ||
      !aligned_longs(t.sizes())) {
    return -1;
  }
  std::int64_t bytes = static_cast<std::int64_t>(element);
  for (std::int64_t s : *t.sizes()) {
    if (s < 0 || (s > 0 && bytes > kMaxTensorBytes / s)) return -1;
    bytes *= s;
  }
  return bytes;
}

bool indices_in_range(const flatbuffers::Vector<std::int32_t>* indices, std::size_t num_values) {
  if (indices == nullptr) return false;
  for (std::int32_t i : *indices) {
    if (i < 0 || static_cast<std::size_t>(i) >= num_values) return false;
  }
  return true;
}

ErrorInfo check_values(const gbx::Program& program, const gbx::Method& method, std::size_t m,
                       Diagnostics* d) {
  const auto* values = method.values();
  const std::size_t num_constants = program.constants() ? program.constants()->size() : 0;
  // A plan never needs more than every planned tensor side by side (with
  // alignment); a larger arena_bytes is corrupt, not a reason to allocate.
  std::uint64_t planned_bytes = 0;
  for (std::size_t v = 0; v < values->size(); ++v) {
    const gbx::Tensor* t = values->Get(static_cast<flatbuffers::uoffset_t>(v));
    const std::int64_t bytes = tensor_bytes(*t);
    if (bytes < 0) {
      report(d, "method %zu value %zu: invalid dtype %d or sizes", m, v,
             static_cast<int>(t->scalar_type()));
      return make_error(Error::kCorruptData, "program failed verification");
    }
    // A dynamic value's sizes are its bound (checked above, as any sizes);
    // the method sizes it at run time, which a constant never is.
    if (t->dynamic() && t->constant_index() >= 0) {
      report(d, "method %zu value %zu: a constant cannot be dynamic (sized by data)", m, v);
      return make_error(Error::kCorruptData, "program failed verification");
    }
    if (t->constant_index() >= 0) {
      const auto index = static_cast<std::size_t>(t->constant_index());
      // Constants are read in place by the kernels, so they must be as
      // aligned as the schema asks (force_align: 16); an empty one has no
      // bytes to align (FlatBuffers may place an empty vector anywhere).
      if (index >= num_constants ||
          program.constants()->Get(static_cast<flatbuffers::uoffset_t>(index))->data() == nullptr ||
          (bytes != 0 &&
           reinterpret_cast<std::uintptr_t>(program.constants()
                                                ->Get(static_cast<flatbuffers::uoffset_t>(index))
                                                ->data()
                                                ->data()) %
                   16 !=
               0) ||
          static_cast<std::int64_t>(program.constants()
                                        ->Get(static_cast<flatbuffers::uoffset_t>(index))
                                        ->data()
                                        ->size()) != bytes) {
        report(d,
               "method %zu value %zu: constant %d is missing, misaligned or "
               "not %lld bytes",
               m, v, static_cast<int>(t->constant_index()), static_cast<long long>(bytes));
        return make_error(Error::kCorruptData, "program failed verification");
      }
      continue;
    }
    const std::int64_t offset = t->arena_offset();
    const auto element =
        static_cast<std::int64_t>(element_size(static_cast<ScalarType>(t->scalar_type())));
    if (offset < 0 || offset % element != 0 ||
        static_cast<std::uint64_t>(offset) + static_cast<std::uint64_t>(bytes) >
            method.arena_bytes()) {
      report(d,
             "method %zu value %zu: arena offset %lld (+%lld bytes) is outside "
             "the %llu-byte arena or misaligned",
             m, v, static_cast<long long>(offset), static_cast<long long>(bytes),
             static_cast<unsigned long long>(method.arena_bytes()));
      return make_error(Error::kCorruptData, "program failed verification");
    }
    planned_bytes += (static_cast<std::uint64_t>(bytes) + 63) / 64 * 64 + 64;
  }
  if (method.arena_bytes() > planned_bytes) {
    report(d,
           "method %zu: arena of %llu bytes is larger than all its tensors "
           "together (%llu)",
           m, static_cast<unsigned long long>(method.arena_bytes()),
           static_cast<unsigned long long>(planned_bytes));
    return make_error(Error::kCorruptData, "program failed verification");
  }
  return kOk;
}

ErrorInfo check_instructions(const gbx::Method& method, std::size_t m, Diagnostics* d) {
  const std::size_t num_values = method.values()->size();
  const std::size_t num_delegates = method.delegates() ? method.delegates()->size() : 0;
  for (std::size_t i = 0; i < method.instructions()->size(); ++i) {
    const gbx::Instruction* instr =
        method.instructions()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (const gbx::KernelCall* call = instr->args_as_KernelCall()) {
      if (call->op() == nullptr || !indices_in_range(call->inputs(), num_values) ||
          !indices_in_range(call->outputs(), num_values)) {
        report(d,
               "method %zu instruction %zu: kernel call with a missing op "
               "or a value index out of range",
               m, i);
        return make_error(Error::kCorruptData, "program failed verification");
      }
      if (call->attributes() != nullptr) {
        for (const gbx::Attribute* attribute : *call->attributes()) {
          if (attribute->name() == nullptr || !aligned_longs(attribute->ints())) {
            report(d,
                   "method %zu instruction %zu: an attribute has no name or "
                   "a misaligned int list",
                   m, i);
            return make_error(Error::kCorruptData, "program failed verification");
          }
        }
      }
      if (find_kernel(call->op()->c_str()) == nullptr) {
        report(d, "method %zu instruction %zu: no kernel for op '%s'", m, i, call->op()->c_str());
        return make_error(Error::kNotSupported, "program uses an unknown op");
      }
    } else if (const gbx::DelegateCall* delegate_call = instr->args_as_DelegateCall()) {
      if (delegate_call->delegate_index() < 0 ||
          static_cast<std::size_t>(delegate_call->delegate_index()) >= num_delegates ||
          !indices_in_range(delegate_call->inputs(), num_values) ||
          !indices_in_range(delegate_call->outputs(), num_values)) {
        report(d,
               "method %zu instruction %zu: delegate call with a delegate "
               "or value index out of range",
               m, i);
        return make_error(Error::kCorruptData, "program failed verification");
      }
    } else {
      report(d, "method %zu instruction %zu: no kernel or delegate call", m, i);
      return make_error(Error::kCorruptData, "program failed verification");
    }
  }
  return kOk;
}

ErrorInfo check_delegates(const gbx::Method& method, std::size_t m, Diagnostics* d) {
  if (method.delegates() == nullptr) return kOk;
  for (std::size_t i = 0; i < method.delegates()->size(); ++i) {
    const gbx::BackendDelegate* delegate =
        method.delegates()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (delegate->backend() == nullptr || delegate->processed() == nullptr) {
      report(d, "method %zu delegate %zu: no backend name or processed bytes", m, i);
      return make_error(Error::kCorruptData, "program failed verification");
    }
    const BackendInterface* backend = find_backend(delegate->backend()->c_str());
    if (backend == nullptr) {
      report(d, "delegate backend '%s' is not registered in this runtime",
             delegate->backend()->c_str());
      return make_error(Error::kNotFound, "delegate backend not registered");
    }
    if (!backend->is_available()) {
      report(d, "delegate backend '%s' is not available on this machine",
             delegate->backend()->c_str());
      return make_error(Error::kNotSupported, "delegate backend unavailable");
    }
  }
  return kOk;
}

}  // namespace

Result<Program> Program::load(Span<const std::uint8_t> data, Diagnostics* diagnostics) {
  if (data.size() < 8 || !gbx::ProgramBufferHasIdentifier(data.data())) {
    return corrupt(diagnostics, "not a Glassbox program (file identifier is not 'GBX0')");
  }
  flatbuffers::Verifier verifier(data.data(), data.size());
  if (!gbx::VerifyProgramBuffer(verifier)) {
    return corrupt(diagnostics, "the program's FlatBuffer is corrupt or truncated");
  }
  const gbx::Program* program = gbx::GetProgram(data.data());
  if (program->version() != kVersion) {
    report(diagnostics, "program version %u is not supported (this runtime reads %u)",
           static_cast<unsigned>(program->version()), static_cast<unsigned>(kVersion));
    return make_error(Error::kVersionMismatch, "unsupported program version");
  }
  if (program->methods() == nullptr || program->methods()->size() == 0) {
    return corrupt(diagnostics, "the program has no methods");
  }
  for (std::size_t m = 0; m < program->methods()->size(); ++m) {
    const gbx::Method* method = program->methods()->Get(static_cast<flatbuffers::uoffset_t>(m));
    if (method->name() == nullptr || method->values() == nullptr ||
        method->instructions() == nullptr ||
        !indices_in_range(method->inputs(), method->values()->size()) ||
        !indices_in_range(method->outputs(), method->values()->size())) {
      report(diagnostics,
             "method %zu: missing name, values or instructions, or an input "
             "or output index out of range",
             m);
      return make_error(Error::kCorruptData, "program failed verification");
    }
    for (std::int32_t v : *method->inputs()) {
      if (method->values()->Get(static_cast<flatbuffers::uoffset_t>(v))->dynamic()) {
        report(diagnostics, "method %zu: input %d is dynamic (sized by data); inputs are not", m,
               static_cast<int>(v));
        return make_error(Error::kCorruptData, "program failed verification");
      }
    }
    for (const auto* io : {method->inputs(), method->outputs()}) {
      for (std::int32_t v : *io) {
        if (method->values()->Get(static_cast<flatbuffers::uoffset_t>(v))->constant_index() >= 0) {
          report(diagnostics, "method %zu: input or output %d is a constant", m,
                 static_cast<int>(v));
          return make_error(Error::kCorruptData, "program failed verification");
        }
      }
    }
    // One at a time: a later check must not overwrite the first message.
    ErrorInfo e = check_values(*program, *method, m, diagnostics);
    if (e.code == Error::kOk) e = check_instructions(*method, m, diagnostics);
    if (e.code == Error::kOk) e = check_delegates(*method, m, diagnostics);
    if (e.code != Error::kOk) return e;
  }
  return Program(data, program);
}

std::size_t Program::num_methods() const {
  return static_cast<const gbx::Program*>(root_)->methods()->size();
}

const char* Program::method_name(std::size_t index) const {
  return static_cast<const gbx::Program*>(root_)
      ->methods()
      ->Get(static_cast<flatbuffers::uoffset_t>(index))
      ->name()
      ->c_str();
}

Result<std::size_t> Program::method_index(const char* name) const {
  for (std::size_t i = 0; i < num_methods(); ++i) {
    if (std::strcmp(method_name(i), name) == 0) return i;
  }
  return make_error(Error::kNotFound, "no method with that name");
}

const char* Program::fingerprint() const {
  const auto* fp = static_cast<const gbx::Program*>(root_)->fingerprint();
  return fp ? fp->c_str() : "";
}

}  // namespace glassbox::runtime
