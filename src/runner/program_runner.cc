#include "glassbox/runner/program_runner.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include "backends/common/backend_plugin.h"
#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/delegate_output_filter.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/io/file.h"
#include "glassbox/io/output_files.h"
#include "glassbox/npy/npy.h"
#include "glassbox/runner/loaded_program.h"
#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "glassbox/runtime/method.h"

namespace glassbox::runner {
namespace {

// Compares output 0 with the reference, element by element as NumPy's
// allclose does: |actual - expected| <= tolerance + rtol * |expected|, a NaN
// on either side failing. Error::kMismatch naming the worst element.
Status check_expected(const RunOptions& options, RunSummary* summary) {
  GLASSBOX_ASSIGN_OR_RETURN(npy::Array expected, npy::read_file(options.expect_path));
  if (expected.shape != summary->output_shapes.at(0)) {
    return Status(Error::kMismatch, options.expect_path + ": shape " + shape_text(expected.shape) +
                                        " differs from output 0's " +
                                        shape_text(summary->output_shapes[0]));
  }
  double worst = 0;
  std::optional<std::size_t> first_failure;
  const std::vector<float>& actual = summary->outputs[0];
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double reference = double(expected.data[i]);
    const double error = std::abs(double(actual[i]) - reference);
    // NaN compares false: count it as the worst possible error.
    if (!(error <= worst)) worst = std::isnan(error) ? INFINITY : error;
    if (!first_failure && !(error <= options.tolerance + options.rtol * std::abs(reference))) {
      first_failure = i;
    }
  }
  summary->max_abs_error = worst;
  if (first_failure) {
    const std::size_t i = *first_failure;
    return Status(Error::kMismatch, "output 0 differs from " + options.expect_path + ": element " +
                                        std::to_string(i) + " is " + std::to_string(actual[i]) +
                                        ", expected " + std::to_string(expected.data[i]) +
                                        " (allowed: tolerance " +
                                        std::to_string(options.tolerance) + " + rtol " +
                                        std::to_string(options.rtol) +
                                        " x |expected|); max abs error " + std::to_string(worst));
  }
  return Status();
}

// An input's bytes in its own dtype from float values, or from the exact
// integers when the .npy had them (BOOL: nonzero is true). kNotSupported
// for a dtype with no conversion (HALF, quantized types).
StatusOr<std::vector<std::uint8_t>> input_bytes(const runtime::Tensor& t, std::size_t index,
                                                const std::vector<float>& data,
                                                const std::vector<std::int64_t>& ints) {
  const auto n = static_cast<std::int64_t>(data.size());
  std::vector<std::uint8_t> bytes(data.size() * element_size(t.dtype));
  const bool exact =
      ints.size() == data.size() && t.dtype != ScalarType::kFloat && t.dtype != ScalarType::kDouble;
  const Error converted =
      exact ? runtime::kernels::cast(ints.data(), ScalarType::kLong, bytes.data(), t.dtype, n)
            : runtime::kernels::cast(data.data(), ScalarType::kFloat, bytes.data(), t.dtype, n);
  if (converted != Error::kOk) {
    return Status(Error::kNotSupported, "input " + std::to_string(index) + " has dtype " +
                                            std::string(to_string(t.dtype)) +
                                            ", which glassbox run cannot fill");
  }
  return bytes;
}

// Output `t` as float values for --expect and, for -o, in its own dtype:
// integers and bools exactly, each element read at its dtype's width.
// kNotSupported for a dtype with no conversion (HALF, quantized types).
StatusOr<npy::Array> output_array(const runtime::Tensor& t, std::size_t index) {
  npy::Array array{{t.sizes.begin(), t.sizes.end()}, {}};
  const std::int64_t n = t.numel();
  array.data.resize(static_cast<std::size_t>(n));
  if (runtime::kernels::cast(t.data, t.dtype, array.data.data(), ScalarType::kFloat, n) !=
      Error::kOk) {
    return Status(Error::kNotSupported, "output " + std::to_string(index) + " has dtype " +
                                            std::string(to_string(t.dtype)) +
                                            ", which glassbox run cannot read");
  }
  if (t.dtype != ScalarType::kFloat && t.dtype != ScalarType::kDouble) {
    array.int_data.resize(array.data.size());
    (void)runtime::kernels::cast(t.data, t.dtype, array.int_data.data(), ScalarType::kLong, n);
    array.int_dtype = t.dtype;
  }
  return array;
}

// Whether `path` is a NumPy file: its extension in any case (X.NPY), or
// the .npy magic at its start whatever its name.
bool is_npy(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".npy") return true;
  char magic[6] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(magic, sizeof(magic)) && std::memcmp(magic, "\x93NUMPY", sizeof(magic)) == 0;
}

Status fill_inputs(const RunOptions& options, runtime::Method& method) {
  if (!options.input_path.empty() && method.num_inputs() == 0) {
    return Status(Error::kInvalidArgument, "--input: the program has no inputs to feed");
  }
  const bool input_is_npy = !options.input_path.empty() && is_npy(options.input_path);
  std::mt19937 rng(options.seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (std::size_t i = 0; i < method.num_inputs(); ++i) {
    const runtime::Tensor& t = method.input(i);
    std::vector<float> data(static_cast<std::size_t>(t.numel()));
    std::vector<std::int64_t> ints;
    if (i == 0 && input_is_npy) {
      GLASSBOX_ASSIGN_OR_RETURN(npy::Array array, npy::read_file(options.input_path));
      if (!std::equal(array.shape.begin(), array.shape.end(), t.sizes.begin(), t.sizes.end())) {
        return Status(Error::kInvalidArgument, options.input_path + ": shape " +
                                                   shape_text(array.shape) +
                                                   " does not match input 0's " +
                                                   shape_text({t.sizes.begin(), t.sizes.end()}));
      }
      data = std::move(array.data);
      ints = std::move(array.int_data);
    } else if (i == 0 && !options.input_path.empty()) {
      if (t.dtype != ScalarType::kFloat) {
        return Status(Error::kInvalidArgument, options.input_path + ": input 0 is " +
                                                   std::string(to_string(t.dtype)) +
                                                   "; give it as .npy");
      }
      GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, io::read_file(options.input_path));
      if (bytes.size() != t.nbytes) {
        return Status(Error::kInvalidArgument,
                      options.input_path + ": " + std::to_string(bytes.size()) +
                          " bytes, but input 0 takes " + std::to_string(t.nbytes) + " (float32)");
      }
      std::memcpy(data.data(), bytes.data(), bytes.size());
    } else if (t.dtype == ScalarType::kFloat) {
      for (float& v : data) v = uniform(rng);
    } else {
      // Integer inputs are ids or indices, bool ones masks: 0 is a valid
      // index into any table, and an all-true mask keeps everything.
      std::fill(data.begin(), data.end(), t.dtype == ScalarType::kBool ? 1.0f : 0.0f);
    }
    GLASSBOX_ASSIGN_OR_RETURN(const std::vector<std::uint8_t> bytes, input_bytes(t, i, data, ints));
    if (method.set_input(i, bytes.data(), bytes.size()) != Error::kOk) {
      return Status(Error::kInternal, "cannot set input " + std::to_string(i));
    }
  }
  return Status();
}

// The --capture-ids and --capture-names of `options` into `filter`.
Status configure_capture(const RunOptions& options, etdump::IdentifierFilter* filter) {
  for (const std::string& pattern : options.capture_names) {
    if (filter->add_name_pattern(pattern.c_str()) != Error::kOk) {
      return Status(Error::kInvalidArgument, "--capture-names: bad pattern '" + pattern + "'");
    }
  }
  if (!options.capture_id_range.empty()) {
    const auto colon = options.capture_id_range.find(':');
    char* end_a = nullptr;
    char* end_b = nullptr;
    const std::string a = options.capture_id_range.substr(0, colon);
    const std::string b =
        colon == std::string::npos ? "" : options.capture_id_range.substr(colon + 1);
    const long begin = std::strtol(a.c_str(), &end_a, 10);
    const long end = std::strtol(b.c_str(), &end_b, 10);
    if (colon == std::string::npos || a.empty() || b.empty() || *end_a != '\0' || *end_b != '\0' ||
        begin < 0 || end > INT32_MAX ||
        filter->set_int_range(DelegateDebugIntId(static_cast<std::int32_t>(begin)),
                              DelegateDebugIntId(static_cast<std::int32_t>(end))) != Error::kOk) {
      return Status(Error::kInvalidArgument,
                    "--capture-ids: want BEGIN:END with 0 <= BEGIN < END, got '" +
                        options.capture_id_range + "'");
    }
  }
  return Status();
}

}  // namespace

Status check_capture_options(const RunOptions& options) {
  etdump::IdentifierFilter filter;
  return configure_capture(options, &filter);
}

StatusOr<RunSummary> run_program(const RunOptions& options) {
  backends::RunSettings backend_settings;
  backend_settings.threads = options.threads;
  backend_settings.winograd = options.winograd;
  if (!options.delegate_profiling.empty()) {
    backend_settings.log_mode = runtime::delegate_log_mode_named(options.delegate_profiling);
    if (!backend_settings.log_mode) {
      return Status(Error::kInvalidArgument,
                    "delegate profiling must be realtime or posttime, got '" +
                        options.delegate_profiling + "'");
    }
  }
  GLASSBOX_ASSIGN_OR_RETURN(LoadedProgram program, LoadedProgram::load_file(options.program_path));

  // Declared before the tracer, which keeps a pointer to it.
  etdump::IdentifierFilter filter;
  GLASSBOX_RETURN_IF_ERROR(configure_capture(options, &filter));
  etdump::ETDumpGenOptions gen_options;
  gen_options.clock = options.use_tsc ? Clock::tsc() : Clock::steady();
  etdump::ETDumpGen gen(gen_options);
  gen.set_debug_level(options.debug_level);
  gen.set_profiling_level(options.profiling_level);
  gen.set_delegate_output_filter(&filter);
  std::optional<etdump::FileDataSink> sink;
  if (!options.debug_data_path.empty()) {
    Result<etdump::FileDataSink> created =
        etdump::FileDataSink::create(options.debug_data_path.c_str());
    if (!created.ok()) {
      return Status(created.error(), "cannot create " + options.debug_data_path);
    }
    sink.emplace(std::move(*created));
    gen.set_data_sink(&*sink);
  }

  GLASSBOX_ASSIGN_OR_RETURN(LoadedMethod loaded, program.load_method(&gen, backend_settings));
  runtime::Method* method = &loaded.method();
  GLASSBOX_RETURN_IF_ERROR(fill_inputs(options, *method));

  const int total = options.warmup + options.iterations;
  auto last_report = std::chrono::steady_clock::now();
  double traced_seconds = 0;
  int completed = 0;
  bool interrupted = false;
  for (int run = 0; run < total; ++run) {
    // Warm-up runs are not recorded.
    method->set_event_tracer(run < options.warmup ? nullptr : &gen);
    const auto start = std::chrono::steady_clock::now();
    GLASSBOX_RETURN_IF_ERROR(loaded.execute());
    const auto end = std::chrono::steady_clock::now();
    if (run >= options.warmup) {
      traced_seconds += std::chrono::duration<double>(end - start).count();
    }
    if (run >= options.warmup) ++completed;
    // The first recorded execution shows how much the others will log:
    // their storage is allocated now, outside any timed execution.
    if (run == options.warmup)
      gen.reserve_like_last_block(static_cast<std::size_t>(total - run - 1));
    if (options.progress && end - last_report > std::chrono::seconds(1)) {
      options.progress(run + 1, total);
      last_report = end;
    }
    if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) {
      interrupted = true;
      break;
    }
  }

  Result<Span<const std::uint8_t>> dump = gen.get_etdump_data();
  if (!dump.ok()) return Status(dump.error_info());
  GLASSBOX_RETURN_IF_ERROR(
      io::write_file(options.etdump_path,
                     std::string_view(reinterpret_cast<const char*>(dump->data()), dump->size())));
  if (sink.has_value() && sink->close() != Error::kOk) {
    return Status(Error::kAccessFailed,
                  "cannot write all debug data to " + options.debug_data_path +
                      " (is the disk full?); the ETDump's tensor records would point past it");
  }

  RunSummary summary;
  summary.events = gen.num_events();
  summary.dropped = gen.dropped_events();
  summary.completed = completed;
  summary.interrupted = interrupted;
  summary.mean_execute_ms = completed > 0 ? 1e3 * traced_seconds / completed : 0;
  summary.fingerprint = program.fingerprint();
  // Outputs of every dtype as float values (ids and masks are exact up to
  // 2^24), for --expect and -o; -o writes output 0 in its own dtype.
  std::optional<StatusOr<npy::Array>> output0;
  for (std::size_t o = 0; o < method->num_outputs(); ++o) {
    const runtime::Tensor& t = method->output(o);
    StatusOr<npy::Array> array = output_array(t, o);
    summary.outputs.push_back(array.ok() ? array->data : std::vector<float>());
    summary.output_shapes.emplace_back(t.sizes.begin(), t.sizes.end());
    if (o == 0) output0 = std::move(array);
  }
  if (output0.has_value() && !output0->ok() &&
      (!options.output_path.empty() || !options.expect_path.empty())) {
    return output0->status();
  }
  if (!options.output_path.empty() && output0.has_value()) {
    GLASSBOX_RETURN_IF_ERROR(npy::write_file(options.output_path, **output0));
  }
  if (!options.expect_path.empty() && !summary.outputs.empty()) {
    GLASSBOX_RETURN_IF_ERROR(check_expected(options, &summary));
  }
  return summary;
}

}  // namespace glassbox::runner
