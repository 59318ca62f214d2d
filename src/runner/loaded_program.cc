#include "glassbox/runner/loaded_program.h"

#include <algorithm>
#include <cstring>

#include "glassbox/io/file.h"
#include "glassbox/runtime/program.h"

namespace glassbox::runner {

// The bytes and the Program that points into them, kept together: a
// method's Program must outlive it, so every LoadedMethod shares this.
struct LoadedProgram::State {
  std::vector<std::uint8_t> bytes;
  std::optional<runtime::Program> program;
};

std::string shape_text(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

StatusOr<LoadedProgram> LoadedProgram::load(std::vector<std::uint8_t> bytes,
                                            std::string source_name) {
  // std::vector's storage is malloc-aligned, as the verifier requires; it
  // does not move when the vector is moved into the state.
  // Verification checks that every delegate's backend is registered, so
  // the runtime halves are registered first (run settings come with
  // load_method).
  GLASSBOX_RETURN_IF_ERROR(backends::prepare_backend_runtimes({}));
  auto state = std::make_shared<State>();
  state->bytes = std::move(bytes);
  runtime::Diagnostics diagnostics;
  Result<runtime::Program> program = runtime::Program::load(state->bytes, &diagnostics);
  if (!program.ok()) return Status(program.error(), source_name + ": " + diagnostics.message);
  state->program.emplace(std::move(*program));
  LoadedProgram loaded;
  loaded.state_ = std::move(state);
  loaded.source_name_ = std::move(source_name);
  return loaded;
}

StatusOr<LoadedProgram> LoadedProgram::load_file(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, io::read_file(path));
  return load(std::move(bytes), path);
}

const char* LoadedProgram::fingerprint() const { return state_->program->fingerprint(); }

StatusOr<LoadedMethod> LoadedProgram::load_method(etdump::ETDumpGen* tracer,
                                                  const backends::RunSettings& settings) const {
  GLASSBOX_RETURN_IF_ERROR(backends::prepare_backend_runtimes(settings));
  if (tracer != nullptr) tracer->set_program_fingerprint(fingerprint());
  LoadedMethod loaded;
  loaded.program_ = state_;
  loaded.source_name_ = source_name_;
  loaded.method_memory_ = std::make_unique<runtime::MemoryAllocator>();
  loaded.temp_memory_ = std::make_unique<runtime::MemoryAllocator>();
  runtime::Diagnostics diagnostics;
  Result<runtime::Method> method =
      runtime::Method::load(*state_->program, "forward", loaded.method_memory_.get(),
                            loaded.temp_memory_.get(), tracer, &diagnostics);
  if (!method.ok()) return Status(method.error(), source_name_ + ": " + diagnostics.message);
  loaded.method_.emplace(std::move(*method));
  return loaded;
}

std::vector<TensorSpec> LoadedMethod::input_specs() const {
  std::vector<TensorSpec> specs;
  for (std::size_t i = 0; i < method_->num_inputs(); ++i) {
    const runtime::Tensor& t = method_->input(i);
    specs.push_back({t.dtype, {t.sizes.begin(), t.sizes.end()}});
  }
  return specs;
}

Status LoadedMethod::set_inputs(std::span<const HostTensor> inputs) {
  if (inputs.size() != method_->num_inputs()) {
    return Status(Error::kInvalidArgument, source_name_ + ": the program takes " +
                                               std::to_string(method_->num_inputs()) +
                                               " input(s), got " + std::to_string(inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const runtime::Tensor& t = method_->input(i);
    const HostTensor& given = inputs[i];
    if (given.dtype != t.dtype ||
        !std::equal(given.shape.begin(), given.shape.end(), t.sizes.begin(), t.sizes.end())) {
      return Status(Error::kInvalidArgument,
                    "input " + std::to_string(i) + ": " + std::string(to_string(given.dtype)) +
                        " " + shape_text(given.shape) + " given, the program takes " +
                        std::string(to_string(t.dtype)) + " " +
                        shape_text({t.sizes.begin(), t.sizes.end()}));
    }
    if (method_->set_input(i, given.bytes.data(), given.bytes.size()) != Error::kOk) {
      return Status(Error::kInvalidArgument,
                    "input " + std::to_string(i) + ": " + std::to_string(given.bytes.size()) +
                        " bytes, the program takes " + std::to_string(t.nbytes));
    }
  }
  return Status();
}

Status LoadedMethod::execute() {
  runtime::Diagnostics diagnostics;
  if (method_->execute(&diagnostics) != Error::kOk) {
    return Status(Error::kInternal, source_name_ + ": " + diagnostics.message);
  }
  return Status();
}

std::vector<HostTensor> LoadedMethod::outputs() const {
  std::vector<HostTensor> outputs;
  for (std::size_t o = 0; o < method_->num_outputs(); ++o) {
    const runtime::Tensor& t = method_->output(o);
    HostTensor out{t.dtype, {t.sizes.begin(), t.sizes.end()}, std::vector<std::uint8_t>(t.nbytes)};
    if (t.nbytes > 0) std::memcpy(out.bytes.data(), t.data, t.nbytes);
    outputs.push_back(std::move(out));
  }
  return outputs;
}

}  // namespace glassbox::runner
