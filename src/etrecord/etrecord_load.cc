// Reading an ETRecord: every check before anything is trusted, and every
// error names the source and, when one entry is at fault, the entry.

#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <set>

#include "glassbox/aot/graph_json.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/io/file.h"
#include "src/etrecord/entry_names.h"
#include "src/etrecord/executorch_etrecord.h"
#include "src/etrecord/map_json.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

using internal::ZipEntries;

std::string_view text_of(const std::vector<std::uint8_t>& bytes) {
  return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

class Reader {
 public:
  Reader(const ZipEntries& entries, std::string_view source) : entries_(entries), source_(source) {}

  StatusOr<ETRecord> read() {
    ETRecord record;
    GLASSBOX_RETURN_IF_ERROR(read_marker(&record));
    GLASSBOX_ASSIGN_OR_RETURN(const std::vector<std::uint8_t>* fingerprint,
                              entry(internal::kFingerprintEntry));
    record.fingerprint = std::string(text_of(*fingerprint));
    GLASSBOX_RETURN_IF_ERROR(read_graphs(&record));
    GLASSBOX_ASSIGN_OR_RETURN(
        record.debug_handle_map,
        parse(internal::kDebugHandleMapEntry, &internal::parse_debug_handle_map_entry));
    GLASSBOX_ASSIGN_OR_RETURN(record.delegate_map, parse(internal::kDelegateMapEntry,
                                                         &internal::parse_delegate_map_entry));
    GLASSBOX_ASSIGN_OR_RETURN(
        record.instruction_id_to_num_outs_map,
        parse(internal::kNumOutsMapEntry, &internal::parse_num_outs_map_entry));
    GLASSBOX_ASSIGN_OR_RETURN(record.reference_inputs, read_tensors(internal::kInputs));
    GLASSBOX_ASSIGN_OR_RETURN(record.reference_outputs, read_tensors(internal::kOutputs));
    GLASSBOX_ASSIGN_OR_RETURN(record.reference_op_outputs, read_op_outputs(internal::kOpsPrefix));
    GLASSBOX_ASSIGN_OR_RETURN(record.float_op_outputs, read_op_outputs(internal::kFloatOpsPrefix));
    GLASSBOX_ASSIGN_OR_RETURN(record.isolated_op_outputs,
                              read_op_outputs(internal::kIsolatedOpsPrefix));
    GLASSBOX_RETURN_IF_ERROR(check_no_stray_references());
    Status valid = record.validate();
    if (!valid.ok()) return corrupt("inconsistent contents: " + valid.message());
    return record;
  }

 private:
  Status corrupt(const std::string& problem) const {
    return Status(Error::kCorruptData, std::string(source_) + ": " + problem);
  }

  StatusOr<const std::vector<std::uint8_t>*> entry(std::string_view name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) return corrupt("missing entry '" + std::string(name) + "'");
    return &it->second;
  }

  Status read_marker(ETRecord* record) const {
    auto it = entries_.find(kMarkerEntry);
    if (it == entries_.end()) {
      return corrupt("not an ETRecord (the zip has neither Glassbox's '" +
                     std::string(kMarkerEntry) + "' entry nor ExecuTorch's '" +
                     std::string(kExecuTorchMarkerEntry) + "')");
    }
    const std::string_view text = text_of(it->second);
    if (text == std::to_string(kETRecordVersion)) {
      record->version = kETRecordVersion;
      return Status();
    }
    const bool number = !text.empty() && text.size() < 10 &&
                        text.find_first_not_of("0123456789") == std::string_view::npos;
    if (number) {
      return Status(Error::kVersionMismatch, std::string(source_) + ": ETRecord version " +
                                                 std::string(text) +
                                                 " is not supported (this build reads version " +
                                                 std::to_string(kETRecordVersion) + ")");
    }
    return corrupt("entry '" + std::string(kMarkerEntry) + "' does not hold a version number");
  }

  Status read_graphs(ETRecord* record) const {
    const std::string_view prefix = internal::kMethodsPrefix;
    const std::string_view suffix = internal::kEdgeGraphSuffix;
    for (const auto& [name, bytes] : entries_) {
      if (!name.starts_with(prefix)) continue;
      if (!name.ends_with(suffix) || name.size() <= prefix.size() + suffix.size()) {
        return corrupt("unexpected entry '" + name + "'");
      }
      const std::string method =
          name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      StatusOr<aot::Graph> graph = aot::graph_from_json(text_of(bytes));
      if (!graph.ok()) {
        return Status(graph.error() == Error::kVersionMismatch ? Error::kVersionMismatch
                                                               : Error::kCorruptData,
                      std::string(source_) + ": entry '" + name + "': " + graph.message());
      }
      record->edge_graphs[method] = std::move(graph).value();
    }
    if (record->edge_graphs.empty()) {
      return corrupt("missing entry '" + internal::edge_graph_entry(aot::kForwardMethod) + "'");
    }
    return Status();
  }

  template <typename T>
  StatusOr<T> parse(std::string_view name, StatusOr<T> (*parser)(std::string_view)) const {
    GLASSBOX_ASSIGN_OR_RETURN(const std::vector<std::uint8_t>* bytes, entry(name));
    StatusOr<T> parsed = parser(text_of(*bytes));
    if (!parsed.ok()) return corrupt("entry '" + std::string(name) + "': " + parsed.message());
    return parsed;
  }

  // Reads stem_of(i) + ".bin" / ".json" for i = 0, 1, ... until both are
  // absent.
  StatusOr<std::vector<ReferenceTensor>> read_numbered(
      const std::function<std::string(std::size_t)>& stem_of) {
    std::vector<ReferenceTensor> tensors;
    for (std::size_t i = 0;; ++i) {
      const std::string stem = stem_of(i);
      const bool has_bin = entries_.contains(stem + ".bin");
      const bool has_json = entries_.contains(stem + ".json");
      if (!has_bin && !has_json) break;
      GLASSBOX_ASSIGN_OR_RETURN(const std::vector<std::uint8_t>* bin, entry(stem + ".bin"));
      GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::int64_t> sizes,
                                parse(stem + ".json", &internal::parse_tensor_meta_entry));
      ReferenceTensor tensor{std::move(sizes), {}};
      if (bin->size() % sizeof(float) != 0) {
        return corrupt("entry '" + stem + ".bin' is not a whole number of float32 values");
      }
      tensor.data.resize(bin->size() / sizeof(float));
      if (!bin->empty()) std::memcpy(tensor.data.data(), bin->data(), bin->size());
      tensors.push_back(std::move(tensor));
      seen_references_ += 2;
    }
    return tensors;
  }

  StatusOr<std::vector<ReferenceTensor>> read_tensors(std::string_view kind) {
    return read_numbered([kind](std::size_t i) { return internal::reference_stem(kind, i); });
  }

  // "<prefix><handle>/<k>.*" (prefix "reference/ops/", ".../float_ops/" or
  // ".../isolated_ops/"): the handles are whatever entries name (canonical
  // decimal only); each handle's outputs are numbered from 0.
  StatusOr<std::map<DebugHandle, std::vector<ReferenceTensor>>> read_op_outputs(
      std::string_view prefix) {
    std::set<std::uint32_t> handles;
    for (const auto& [name, bytes] : entries_) {
      if (!name.starts_with(prefix)) continue;
      const std::string rest = name.substr(prefix.size());
      const std::size_t slash = rest.find('/');
      const std::string digits = rest.substr(0, slash);
      const bool canonical = !digits.empty() && digits.size() < 10 &&
                             digits.find_first_not_of("0123456789") == std::string::npos &&
                             (digits == "0" || digits[0] != '0');
      if (slash == std::string::npos || !canonical) {
        return corrupt("unexpected entry '" + name + "'");
      }
      handles.insert(static_cast<std::uint32_t>(std::stoul(digits)));
    }
    std::map<DebugHandle, std::vector<ReferenceTensor>> outputs;
    for (std::uint32_t h : handles) {
      GLASSBOX_ASSIGN_OR_RETURN(std::vector<ReferenceTensor> tensors,
                                read_numbered([h, prefix](std::size_t k) {
                                  return internal::op_output_stem(h, k, prefix);
                                }));
      outputs[DebugHandle(h)] = std::move(tensors);
    }
    return outputs;
  }

  // A reference entry the loops above did not take (a gap in the numbering,
  // a misspelt name) would otherwise be dropped without a word.
  Status check_no_stray_references() const {
    std::size_t count = 0;
    for (const auto& [name, bytes] : entries_) {
      if (name.starts_with(internal::kReferencePrefix)) ++count;
    }
    if (count != seen_references_) {
      return corrupt("reference entries are not numbered 0, 1, 2, ... in .bin/.json pairs");
    }
    return Status();
  }

  const ZipEntries& entries_;
  std::string_view source_;
  std::size_t seen_references_ = 0;
};

}  // namespace

StatusOr<ETRecord> ETRecord::load_from_memory(std::span<const std::uint8_t> bytes,
                                              std::string_view source_name) {
  // nlohmann and the standard library may throw (bad_alloc on a hostile
  // size); no exception leaves this function.
  try {
    GLASSBOX_ASSIGN_OR_RETURN(internal::ZipEntries entries, internal::read_zip(bytes, source_name));
    // Ours first: an archive with both markers is ours (we never write
    // ExecuTorch's), and ours is the stricter reader.
    if (!entries.contains(kMarkerEntry) && entries.contains(kExecuTorchMarkerEntry)) {
      return internal::read_executorch_etrecord(entries, source_name);
    }
    return Reader(entries, source_name).read();
  } catch (const std::exception& e) {
    return Status(Error::kCorruptData, std::string(source_name) + ": cannot read: " + e.what());
  }
}

StatusOr<ETRecord> ETRecord::load(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, io::read_file(path));
  return load_from_memory(bytes, path);
}

}  // namespace glassbox::etrecord
