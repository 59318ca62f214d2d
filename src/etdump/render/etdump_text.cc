#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "glassbox/etdump/etdump_render.h"
#include "glassbox/io/printable.h"
#include "src/etdump/render/debug_values.h"

namespace glassbox::etdump {
namespace {

std::string where(std::size_t run, std::size_t event) {
  return fmt::format("event {} of run {}", event, run);
}

// "250 ns", "1.5 us", "12.25 ms", "3 s".
std::string format_ns(double ns) {
  const double magnitude = std::fabs(ns);
  if (magnitude < 1e3) return fmt::format("{:.4g} ns", ns);
  if (magnitude < 1e6) return fmt::format("{:.4g} us", ns / 1e3);
  if (magnitude < 1e9) return fmt::format("{:.4g} ms", ns / 1e6);
  return fmt::format("{:.4g} s", ns / 1e9);
}

std::string time_unit_line(const ETDumpFile& file) {
  if (!file.tick_ratio) {
    return "time unit: none recorded (an ExecuTorch-written file?): times are "
           "raw ticks, nanoseconds with ExecuTorch's default clock";
  }
  return fmt::format("time unit: 1 tick = {} (tick ratio {}/{})",
                     format_ns(file.tick_ratio->ns_per_tick()), file.tick_ratio->numerator,
                     file.tick_ratio->denominator);
}

// How an event names itself: its name, its delegate identifier, or both.
std::string label(const std::optional<std::string>& name, DelegateDebugIntId int_id,
                  const std::optional<std::string>& str_id) {
  std::vector<std::string> parts;
  if (name) parts.push_back(fmt::format("\"{}\"", io::printable(*name)));
  if (int_id.is_set()) parts.push_back(fmt::format("delegate id {}", int_id.value));
  if (str_id) parts.push_back(fmt::format("delegate id \"{}\"", io::printable(*str_id)));
  if (parts.empty()) return "(unnamed)";
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string profile_line(const ETDumpFile& file, const ProfileEvent& p) {
  std::string line = fmt::format("profile     {}  chain {}  instruction {}  start {}  end {}",
                                 label(p.name, p.delegate_debug_id_int, p.delegate_debug_id_str),
                                 p.chain_index, p.instruction_id.value, p.start_time, p.end_time);
  if (const auto ns = duration_ns(file, p)) {
    line += fmt::format(" ticks  ({})", format_ns(*ns));
  } else {
    line += fmt::format("  ({} ticks)",
                        static_cast<double>(p.end_time) - static_cast<double>(p.start_time));
  }
  if (p.delegate_debug_metadata) {
    const auto& meta = *p.delegate_debug_metadata;
    // Metadata is opaque bytes; most delegates log a short name, so show
    // printable ASCII as text and anything else as hex.
    const bool printable = std::all_of(
        meta.begin(), meta.end(), [](std::uint8_t c) { return c >= 0x20 && c < 0x7f && c != '"'; });
    line += meta.empty() ? "  metadata (empty)"
            : printable  ? "  metadata \"" + std::string(meta.begin(), meta.end()) + "\""
                         : "  metadata " + to_hex(meta);
  }
  if (p.thread_index) line += fmt::format("  thread {}", *p.thread_index);
  if (p.time_source) {
    line += fmt::format("  time {}", time_source_name(*p.time_source));
  }
  for (const Counter& c : p.counters) {
    line += fmt::format("  {}={}", io::printable(counter_name(file, c)), c.value);
  }
  return line;
}

StatusOr<std::string> tensor_text(const Tensor& t, const DebugData* debug_data, TensorValues mode,
                                  const std::string& at) {
  std::string text = fmt::format("{} [{}]", dtype_name(t), fmt::join(t.sizes, ", "));
  if (!t.strides.empty()) {
    text += fmt::format(" strides [{}]", fmt::join(t.strides, ", "));
  }
  text += fmt::format(" offset {}", t.offset);
  GLASSBOX_ASSIGN_OR_RETURN(auto values, tensor_values(t, debug_data, at));
  if (values) {
    // By default enough values to recognise a tensor.
    const std::size_t shown =
        mode == TensorValues::kAll ? values->size() : std::min(values->size(), kSummaryValues);
    text += fmt::format(
        " = [{}",
        fmt::join(values->begin(), values->begin() + static_cast<std::ptrdiff_t>(shown), ", "));
    text += shown < values->size() ? fmt::format(", ... ({} values)]", values->size()) : "]";
  }
  return text;
}

StatusOr<std::string> value_text(const Value& v, const DebugData* debug_data, TensorValues mode,
                                 const std::string& at) {
  std::string text;
  switch (v.type) {
    case ValueType::kNull: text = "null"; break;
    case ValueType::kString: text = "string"; break;
    case ValueType::kInt: text = fmt::format("int {}", *v.int_value); break;
    case ValueType::kBool: text = fmt::format("bool {}", *v.bool_value); break;
    case ValueType::kFloat: text = fmt::format("float {}", *v.float_value); break;
    case ValueType::kDouble: text = fmt::format("double {}", *v.double_value); break;
    case ValueType::kTensor: {
      GLASSBOX_ASSIGN_OR_RETURN(std::string t, tensor_text(*v.tensor, debug_data, mode, at));
      text = "tensor " + t;
      break;
    }
    case ValueType::kTensorList: {
      std::vector<std::string> items;
      for (const Tensor& tensor : *v.tensor_list) {
        GLASSBOX_ASSIGN_OR_RETURN(std::string t, tensor_text(tensor, debug_data, mode, at));
        items.push_back(std::move(t));
      }
      text = fmt::format("tensor list ({}) {{{}}}", items.size(), fmt::join(items, "; "));
      break;
    }
  }
  if (v.output) text += *v.output ? "  (program output)" : "  (output: false)";
  return text;
}

StatusOr<std::string> debug_line(const DebugEvent& d, const DebugData* debug_data,
                                 TensorValues mode, const std::string& at) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string value, value_text(d.value, debug_data, mode, at));
  return fmt::format("debug       {}  chain {}  instruction {}  value {}",
                     label(d.name, d.delegate_debug_id_int, d.delegate_debug_id_str), d.chain_index,
                     d.instruction_id.value, value);
}

std::string run_header(std::size_t index, const RunData& run) {
  std::string header = fmt::format("run {} \"{}\": {} event{}", index, io::printable(run.name),
                                   run.events.size(), run.events.size() == 1 ? "" : "s");
  if (run.bundled_input_index != -1) {
    header += fmt::format(", bundled input {}", run.bundled_input_index);
  }
  if (!run.allocators.empty()) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < run.allocators.size(); ++i) {
      names.push_back(fmt::format("{}={}", i + 1, io::printable(run.allocators[i])));
    }
    header += fmt::format(", allocators {}", fmt::join(names, " "));
  }
  if (run.dropped_events) header += fmt::format(", dropped {}", *run.dropped_events);
  if (run.rejected_events) {
    header += fmt::format(", rejected {}", *run.rejected_events);
  }
  if (run.tensor_data_dropped) {
    header += fmt::format(", tensor data dropped {}", *run.tensor_data_dropped);
  }
  return header;
}

}  // namespace

StatusOr<std::string> etdump_to_text(const ETDumpFile& file, const DebugData* debug_data,
                                     TensorValues values) {
  std::string out = fmt::format("ETDump version {}: {} run{}\n", file.version, file.runs.size(),
                                file.runs.size() == 1 ? "" : "s");
  out += time_unit_line(file) + "\n";
  for (const DelegateTimeScale& scale : file.delegate_time_scales) {
    out += fmt::format("delegate time scale: backend \"{}\": 1 tick = {} ({}/{})",
                       io::printable(scale.backend), format_ns(scale.ns_per_tick.ns_per_tick()),
                       scale.ns_per_tick.numerator, scale.ns_per_tick.denominator);
    if (scale.host_offset_ns) {
      out += fmt::format(", host clock offset {} ns", *scale.host_offset_ns);
    }
    out += "\n";
  }
  if (file.producer) out += fmt::format("producer: {}\n", io::printable(*file.producer));
  if (file.program_fingerprint) {
    out += fmt::format("program fingerprint: {}\n", io::printable(*file.program_fingerprint));
  }
  if (file.dropped_events) {
    out += fmt::format("dropped events: {}\n", *file.dropped_events);
  }
  if (file.dropped_blocks.value_or(0) > 0) {
    out += fmt::format("dropped blocks: {}\n", *file.dropped_blocks);
  }
  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    const RunData& run = file.runs[r];
    out += "\n" + run_header(r, run) + "\n";
    for (std::size_t e = 0; e < run.events.size(); ++e) {
      const Event& event = run.events[e];
      std::string line;
      if (const auto* p = event.profile()) {
        line = profile_line(file, *p);
      } else if (const auto* a = event.allocation()) {
        line = fmt::format("allocation  allocator {} ({})  {} bytes", a->allocator_id.value,
                           io::printable(run.allocators[a->allocator_id.value - 1]),
                           a->allocation_size);
      } else {
        GLASSBOX_ASSIGN_OR_RETURN(line,
                                  debug_line(*event.debug(), debug_data, values, where(r, e)));
      }
      out += fmt::format("  #{:<4} {}\n", e, line);
    }
  }
  return out;
}

}  // namespace glassbox::etdump
