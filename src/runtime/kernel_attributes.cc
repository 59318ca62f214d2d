#include <string_view>

#include "glassbox/runtime/kernel_registry.h"
#include "program_generated.h"

// KernelAttributes, apart from the kernel table (kernel_registry.cc): a
// device build that links its own find_kernel (tests/size/size_program.cc)
// keeps the table out of its link while its kernels still read attributes.
namespace glassbox::runtime {
namespace {

using AttributeVector = flatbuffers::Vector<flatbuffers::Offset<gbx::Attribute>>;

// Instructions carry a handful of attributes, so a linear scan beats any
// index we could build without allocating.
const gbx::Attribute* find_attribute(const void* attributes, std::string_view name) {
  if (attributes == nullptr) return nullptr;
  for (const gbx::Attribute* a : *static_cast<const AttributeVector*>(attributes)) {
    if (a != nullptr && a->name() != nullptr &&
        std::string_view(a->name()->c_str(), a->name()->size()) == name) {
      return a;
    }
  }
  return nullptr;
}

constexpr ErrorInfo kWrongKind{Error::kInvalidArgument, "attribute has another kind"};

}  // namespace

Result<std::int64_t> KernelAttributes::get_int(const char* name, std::int64_t fallback) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return fallback;
  if (a->kind() != gbx::AttributeKind::Int) return kWrongKind;
  return a->int_value();
}

Result<double> KernelAttributes::get_float(const char* name, double fallback) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return fallback;
  // Exporters write whole-number floats (clamp(min=0)) as ints.
  if (a->kind() == gbx::AttributeKind::Int) {
    return static_cast<double>(a->int_value());
  }
  if (a->kind() != gbx::AttributeKind::Float) return kWrongKind;
  return a->float_value();
}

Result<Span<const std::int64_t>> KernelAttributes::get_ints(const char* name) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return Span<const std::int64_t>();
  if (a->kind() != gbx::AttributeKind::Ints) return kWrongKind;
  if (a->ints() == nullptr) return Span<const std::int64_t>();
  return Span<const std::int64_t>(a->ints()->data(), a->ints()->size());
}

Result<const char*> KernelAttributes::get_string(const char* name, const char* fallback) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return fallback;
  if (a->kind() != gbx::AttributeKind::String) return kWrongKind;
  if (a->string_value() == nullptr) return "";
  return a->string_value()->c_str();
}

}  // namespace glassbox::runtime
