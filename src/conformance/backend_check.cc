// check_backend (conformance.h): lower once, run once per log mode and
// profiling level in memory, lint each dump with check_artifacts, compare
// the intermediate outputs with the portable reference, time the hooks.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "backends/demo/aot/demo_model.h"
#include "frontends/onnx/importer.h"
#include "glassbox/conformance/conformance.h"
#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/runner/loaded_program.h"

namespace glassbox::conformance {
namespace {

using runtime::DelegateLogMode;
using runtime::ProfilingLevel;

// `value` with `digits` decimals: report lines stay short and stable.
std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return text;
}

// Debug data of the numerics run: the small models log a few KiB.
constexpr std::size_t kDebugDataBytes = std::size_t{64} << 20;

struct Mode {
  DelegateLogMode mode;
  const char* name;
};
constexpr Mode kModes[] = {{DelegateLogMode::kRealTime, "realtime"},
                           {DelegateLogMode::kPostTime, "posttime"}};

// What one lowering gives every run.
struct Lowered {
  std::vector<std::uint8_t> program;
  etrecord::ETRecord record;
  std::vector<runner::HostTensor> inputs;
};

std::vector<runner::HostTensor> host_tensors(const std::vector<etrecord::ReferenceTensor>& refs) {
  std::vector<runner::HostTensor> tensors;
  for (const etrecord::ReferenceTensor& r : refs) {
    runner::HostTensor t{ScalarType::kFloat, r.sizes, std::vector<std::uint8_t>(r.data.size() * 4)};
    std::memcpy(t.bytes.data(), r.data.data(), t.bytes.size());
    tensors.push_back(std::move(t));
  }
  return tensors;
}

StatusOr<aot::Graph> load_model(const BackendCheckOptions& options, std::string* name) {
  if (options.model_path.empty() && options.backend == "demo") {
    *name = "the demo model";
    return backends::demo::build_conv_relu_tan_model();
  }
  const std::string path =
      options.model_path.empty() ? GLASSBOX_CONFORMANCE_DEFAULT_MODEL : options.model_path;
  *name = path;
  StatusOr<aot::Graph> model = frontends::onnx::import_onnx(path);
  // The default model is the source tree's: an installed glassbox away
  // from it needs --model.
  if (!model.ok() && options.model_path.empty()) {
    return model.status().with_context("the default model (give --model M.onnx)");
  }
  return model;
}

// A dump of `executions` runs of `lowered` under `settings` at `level`;
// `debug_data` (may be null) receives the logged tensors.
StatusOr<etdump::ETDumpFile> record_runs(const Lowered& lowered,
                                         const backends::RunSettings& settings,
                                         ProfilingLevel level, int executions,
                                         etdump::BufferDataSink* debug_data) {
  GLASSBOX_ASSIGN_OR_RETURN(runner::LoadedProgram program,
                            runner::LoadedProgram::load(lowered.program, "<lowered program>"));
  etdump::ETDumpGenOptions gen_options;
  gen_options.clock = Clock::tsc();
  etdump::ETDumpGen gen(gen_options);
  gen.set_profiling_level(level);
  if (debug_data != nullptr) {
    gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
    gen.set_data_sink(debug_data);
  }
  GLASSBOX_ASSIGN_OR_RETURN(runner::LoadedMethod method, program.load_method(&gen, settings));
  GLASSBOX_RETURN_IF_ERROR(method.set_inputs(lowered.inputs));
  for (int i = 0; i < executions; ++i) GLASSBOX_RETURN_IF_ERROR(method.execute());
  Result<Span<const std::uint8_t>> bytes = gen.get_etdump_data();
  if (!bytes.ok()) return Status(bytes.error_info());
  return etdump::parse_etdump({bytes->data(), bytes->size()}, "<check-backend run>");
}

// (instruction, identifier) -> events logged, over the whole dump.
std::map<std::pair<std::int32_t, std::string>, std::size_t> identifier_counts(
    const etdump::ETDumpFile& dump) {
  std::map<std::pair<std::int32_t, std::string>, std::size_t> counts;
  for (const etdump::RunData& run : dump.runs) {
    for (const etdump::Event& event : run.events) {
      const etdump::ProfileEvent* e = event.profile();
      if (e == nullptr) continue;
      if (e->delegate_debug_id_int.value != -1) {
        ++counts[{e->instruction_id.value, std::to_string(e->delegate_debug_id_int.value)}];
      } else if (e->delegate_debug_id_str) {
        ++counts[{e->instruction_id.value, "\"" + *e->delegate_debug_id_str + "\""}];
      }
    }
  }
  return counts;
}

std::size_t profile_events(const etdump::ETDumpFile& dump) {
  std::size_t n = 0;
  for (const etdump::RunData& run : dump.runs) {
    for (const etdump::Event& event : run.events) n += event.profile() != nullptr;
  }
  return n;
}

// The artifact rules of several runs as one line each: a failure in any run
// fails the rule, naming the run; a pass keeps the first run's detail.
void merge_rules(const std::vector<std::vector<RuleResult>>& per_run,
                 const std::vector<std::string>& run_names, std::vector<RuleResult>* out) {
  if (per_run.empty()) return;
  for (std::size_t r = 0; r < per_run[0].size(); ++r) {
    RuleResult merged = per_run[0][r];
    std::string failures;
    for (const std::vector<RuleResult>& results : per_run) {
      if (results[r].outcome == Outcome::kFail) {
        failures += (failures.empty() ? "" : " | ") + results[r].detail;
      }
    }
    if (!failures.empty()) {
      merged = {merged.rule, Outcome::kFail, failures};
    } else {
      std::string names;
      for (const std::string& n : run_names) names += (names.empty() ? "" : " and ") + n;
      merged.detail += " (" + names + ")";
    }
    out->push_back(std::move(merged));
  }
}

RuleResult numerics(const Lowered& lowered, const backends::RunSettings& settings,
                    const BackendCheckOptions& options) {
  const std::string rule = "numerics";
  std::vector<std::uint8_t> buffer(kDebugDataBytes);
  Result<etdump::BufferDataSink> sink =
      etdump::BufferDataSink::create({buffer.data(), buffer.size()});
  if (!sink.ok()) return {rule, Outcome::kFail, "cannot create the debug data sink"};
  StatusOr<etdump::ETDumpFile> dump =
      record_runs(lowered, settings, ProfilingLevel::kAllEvents, 1, &*sink);
  if (!dump.ok())
    return {rule, Outcome::kFail,
            "the run at debug level intermediates failed: " + dump.status().message()};
  inspector::NumericOptions numeric_options;
  numeric_options.threshold_metric = inspector::Comparator::kMaxAbs;
  numeric_options.threshold = options.tolerance;
  numeric_options.comparators = {inspector::Comparator::kMaxAbs};
  const Span<const std::uint8_t> data = sink->data();
  StatusOr<inspector::NumericReport> report = inspector::compare_numerics(
      *dump, lowered.record, {data.data(), data.size()}, numeric_options);
  if (!report.ok()) {
    return {rule, Outcome::kSkip,
            "no intermediate output to compare (" + report.status().message() + ")"};
  }
  std::size_t compared = 0, exceeding = 0;
  std::string worst;
  double worst_error = -1;
  for (const inspector::NumericRow& row : report->rows) {
    if (row.kind != inspector::NumericRowKind::kDelegateInternal ||
        row.status != inspector::NumericStatus::kCompared) {
      continue;
    }
    ++compared;
    if (row.exceeds) ++exceeding;
    if (row.exceeds && row.threshold_value > worst_error) {
      worst_error = row.threshold_value;
      std::string ids;
      for (const aot::DelegateDebugIdentifier& id : row.identifiers) {
        ids += (ids.empty() ? "" : ", ") + aot::describe(id);
      }
      worst = "identifier " + ids + " at instruction " + std::to_string(row.instruction.value) +
              " (" + row.reference_op + ") differs by " + fixed(row.threshold_value, 6);
    }
  }
  if (compared == 0) {
    return {rule, Outcome::kSkip,
            "the backend logs no intermediate output per identifier at debug level "
            "intermediates: nothing to compare with the portable kernels"};
  }
  const std::string tolerance = fixed(options.tolerance, 6);
  if (exceeding > 0) {
    return {rule, Outcome::kFail,
            std::to_string(exceeding) + " of " + std::to_string(compared) +
                " logged intermediate outputs differ from the portable reference by more than " +
                tolerance + "; worst: " + worst};
  }
  return {rule, Outcome::kPass,
          std::to_string(compared) +
              " logged intermediate outputs match the portable reference "
              "(max abs error <= " +
              tolerance + ")"};
}

RuleResult hooks_cost(const Lowered& lowered, const backends::RunSettings& settings, int executions,
                      std::size_t delegate_events_per_execution) {
  const std::string rule = "hooks.cost";
  auto failed = [&](const Status& s) {
    return RuleResult{rule, Outcome::kInfo, "not measured: " + s.message()};
  };
  StatusOr<runner::LoadedProgram> program =
      runner::LoadedProgram::load(lowered.program, "<lowered program>");
  if (!program.ok()) return failed(program.status());
  etdump::ETDumpGenOptions gen_options;
  gen_options.clock = Clock::tsc();
  etdump::ETDumpGen gen(gen_options);
  StatusOr<runner::LoadedMethod> method = program->load_method(&gen, settings);
  if (!method.ok()) return failed(method.status());
  if (Status s = method->set_inputs(lowered.inputs); !s.ok()) return failed(s);
  using Clock = std::chrono::steady_clock;
  // The fastest execution of each mode: a machine's noise (other processes,
  // frequency changes) only ever adds time, so minima compare the two
  // modes where means would compare the noise.
  Clock::duration on = Clock::duration::max(), off = Clock::duration::max();
  // One untimed execution of each first: caches and lazy allocations.
  for (int i = -1; i < executions; ++i) {
    for (const bool traced : {true, false}) {
      method->method().set_event_tracer(traced ? &gen : nullptr);
      const Clock::time_point start = Clock::now();
      if (Status s = method->execute(); !s.ok()) return failed(s);
      if (i >= 0) {
        Clock::duration& best = traced ? on : off;
        best = std::min(best, Clock::now() - start);
      }
    }
  }
  const auto ns = [](Clock::duration d) {
    return std::chrono::duration<double, std::nano>(d).count();
  };
  const double on_ns = ns(on), off_ns = ns(off);
  std::string detail = "tracing on " + fixed(on_ns / 1e3, 1) + " us, off " +
                       fixed(off_ns / 1e3, 1) + " us per execution (fastest of " +
                       std::to_string(executions) + ", wall clock)";
  if (delegate_events_per_execution > 0) {
    // Everything tracing costs in an execution (its block, the call's and
    // the method's events too), spread over the delegate's events.
    detail +=
        "; " + std::to_string(delegate_events_per_execution) + " delegate events per execution: " +
        fixed(std::max(on_ns - off_ns, 0.0) / static_cast<double>(delegate_events_per_execution),
              0) +
        " ns per event, all of the execution's tracing cost counted";
  }
  return {rule, Outcome::kInfo, detail};
}

}  // namespace

StatusOr<std::vector<RuleResult>> check_backend(const BackendCheckOptions& options) {
  const backends::BackendPlugin* plugin = backends::find_backend_plugin(options.backend);
  if (plugin == nullptr) {
    return Status(Error::kInvalidArgument, "backend '" + options.backend +
                                               "': no such backend (built in, or loaded with "
                                               "--plugin)");
  }
  if (options.iterations < 1 || options.cost_executions < 1) {
    return Status(Error::kInvalidArgument, "iterations and cost executions must be at least 1");
  }
  std::string model_name;
  GLASSBOX_ASSIGN_OR_RETURN(aot::Graph model, load_model(options, &model_name));
  std::vector<RuleResult> results;

  // Lower: the reference runs the edge graph with its weights, so keep it.
  const aot::Graph edge = model;
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  // Named members, not a designated list: LowerSettings grows (plugin.h).
  backends::LowerSettings lower_settings;
  lower_settings.identifiers = options.identifiers;
  lower_settings.perturb = options.perturb;
  GLASSBOX_RETURN_IF_ERROR(backends::add_to_recipe(*plugin, lower_settings, &recipe));
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(std::move(model), recipe);
  if (!program.ok()) {
    results.push_back({"lower", Outcome::kFail,
                       "lowering " + model_name + " failed: " + program.status().message()});
    return results;
  }
  const std::size_t delegates = program->delegate_map().at(std::string(aot::kForwardMethod)).size();
  if (delegates == 0) {
    results.push_back({"lower", Outcome::kFail,
                       "the partitioner of " + options.backend + " takes no operator of " +
                           model_name +
                           ": nothing to check (give --model with operators it "
                           "takes)"});
    return results;
  }
  Lowered lowered;
  lowered.program = program->buffer();
  GLASSBOX_ASSIGN_OR_RETURN(lowered.record, program->get_etrecord());
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<etrecord::ReferenceTensor> inputs,
                            etrecord::seeded_reference_inputs(edge, options.seed));
  lowered.inputs = host_tensors(inputs);
  GLASSBOX_RETURN_IF_ERROR(etrecord::attach_reference(edge, std::move(inputs), &lowered.record));
  results.push_back({"lower", Outcome::kPass,
                     model_name + ": " + std::to_string(delegates) + " delegate call(s)"});

  // Each log mode at level "all": the artifact rules on its dump.
  std::vector<std::vector<RuleResult>> linted;
  std::vector<std::string> linted_names;
  std::optional<backends::RunSettings> working;  // a mode that ran
  std::map<std::pair<std::int32_t, std::string>, std::size_t> first_ids;
  std::size_t events_per_execution = 0;
  std::vector<std::pair<std::string, backends::RunSettings>> ran;
  for (const Mode& mode : kModes) {
    const std::string rule = std::string("log_mode.") + mode.name;
    backends::RunSettings settings;
    settings.log_mode = mode.mode;
    if (Status s = plugin->prepare_runtime(settings); !s.ok()) {
      const bool unsupported = s.error() == Error::kNotSupported;
      results.push_back(
          {rule, unsupported ? Outcome::kSkip : Outcome::kFail,
           (unsupported ? "the backend does not support it: " : "prepare_runtime failed: ") +
               s.message()});
      continue;
    }
    StatusOr<etdump::ETDumpFile> dump =
        record_runs(lowered, settings, ProfilingLevel::kAllEvents, options.iterations, nullptr);
    if (!dump.ok()) {
      results.push_back({rule, Outcome::kFail, "the run failed: " + dump.status().message()});
      continue;
    }
    ArtifactOptions artifact_options;
    artifact_options.max_metadata_bytes = options.max_metadata_bytes;
    artifact_options.label = std::string(mode.name) + ": ";
    linted.push_back(check_artifacts(*dump, lowered.record, artifact_options));
    linted_names.emplace_back(mode.name);
    ran.emplace_back(mode.name, settings);
    const auto ids = identifier_counts(*dump);
    std::size_t events = 0;
    for (const auto& [key, n] : ids) events += n;
    events /= static_cast<std::size_t>(options.iterations);
    const std::string logged = std::to_string(events) + " delegate events per execution";
    if (!working) {
      working = settings;
      first_ids = ids;
      events_per_execution = events;
      results.push_back({rule, Outcome::kPass, logged});
    } else if (ids != first_ids) {
      results.push_back({rule, Outcome::kFail,
                         logged + ", but not the same identifiers (or counts) as " +
                             ran.front().first + " (" + std::to_string(events_per_execution) +
                             " per execution): both modes must log the same events"});
    } else {
      results.push_back({rule, Outcome::kPass, logged + ", the same as " + ran.front().first});
    }
  }
  merge_rules(linted, linted_names, &results);
  if (!working) return results;

  // The lower levels log only what they allow, in every mode that runs.
  for (const auto& [level, name, allows_framework] :
       {std::tuple{ProfilingLevel::kMethodOnly, "method", true},
        std::tuple{ProfilingLevel::kNone, "none", false}}) {
    const std::string rule = std::string("profiling_level.") + name;
    std::string failures;
    for (const auto& [mode_name, settings] : ran) {
      StatusOr<etdump::ETDumpFile> dump = record_runs(lowered, settings, level, 1, nullptr);
      if (!dump.ok()) {
        failures += std::string(failures.empty() ? "" : "; ") + mode_name +
                    ": the run failed: " + dump.status().message();
        continue;
      }
      const auto ids = identifier_counts(*dump);
      std::size_t delegate_events = 0;
      for (const auto& [key, n] : ids) delegate_events += n;
      const std::size_t all = profile_events(*dump);
      if (delegate_events > 0 || (!allows_framework && all > 0)) {
        failures += std::string(failures.empty() ? "" : "; ") + mode_name + ": " +
                    std::to_string(allows_framework ? delegate_events : all) +
                    (allows_framework ? " delegate" : "") + " profile events logged at level " +
                    name;
      }
    }
    if (failures.empty()) {
      results.push_back({rule, Outcome::kPass,
                         allows_framework ? "no delegate event logged at level method"
                                          : "no profile event logged at level none"});
    } else {
      results.push_back({rule, Outcome::kFail, failures});
    }
  }

  results.push_back(numerics(lowered, *working, options));
  results.push_back(hooks_cost(lowered, *working, options.cost_executions, events_per_execution));
  return results;
}

}  // namespace glassbox::conformance
