// libFuzzer target for the reader of ExecuTorch's ETRecords. A zip input
// ("PK...", e.g. the testdata/executorch seeds) goes through
// ETRecord::load_from_memory whole. Any other input is one entry's text:
// its first byte picks the entry (edge program, debug_handle_map,
// delegate_map, num-outs map), the rest replaces it in a small valid
// record, so mutations reach the JSON readers instead of dying in the zip
// layer. Either way: a record or an error, never a crash, hang or unbounded
// allocation, and what loads is valid.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

#include "glassbox/etrecord/etrecord.h"
#include "src/etrecord/executorch_etrecord.h"

namespace {

using glassbox::etrecord::ETRecord;
using glassbox::etrecord::internal::ZipEntries;

constexpr std::array<std::string_view, 4> kEntries = {"edge_dialect_exported_program",
                                                      "debug_handle_map", "delegate_map",
                                                      "instruction_id_to_num_outs_map"};

std::vector<std::uint8_t> bytes_of(std::string_view text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

ZipEntries base_entries() {
  ZipEntries entries;
  entries["ETRECORD_V0"] = {};
  entries["edge_dialect_exported_program"] = bytes_of(
      R"({"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}],
        "nodes": [{"name": "n", "target": "executorch.exir.dialects.edge.ops.aten.tan.default",
                   "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
                   "outputs": [{"as_tensor": {"name": "n"}}],
                   "metadata": {"debug_handle": "1", "nn_module_stack": "m,m,torch.nn.Tanh",
                                "stack_trace": "  File \"/a.py\", line 3, in f\n"}}],
        "outputs": [{"as_tensor": {"name": "n"}}]}}})");
  entries["debug_handle_map"] = bytes_of(R"({"forward": {"0": [1]}})");
  entries["delegate_map"] =
      bytes_of(R"({"forward": {"0": {"name": "B", "delegate_map": {"0": [1]}}}})");
  entries["instruction_id_to_num_outs_map"] = bytes_of(R"({"forward": {"0": 1}})");
  return entries;
}

void check(const glassbox::StatusOr<ETRecord>& record) {
  if (record.ok() && !record->validate().ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
    check(ETRecord::load_from_memory(std::span<const std::uint8_t>(data, size), "fuzz.etrecord"));
    return 0;
  }
  if (size == 0) return 0;
  static const ZipEntries base = base_entries();
  ZipEntries entries = base;
  entries[std::string(kEntries[data[0] % kEntries.size()])] =
      std::vector<std::uint8_t>(data + 1, data + size);
  check(glassbox::etrecord::internal::read_executorch_etrecord(entries, "fuzz.etrecord"));
  return 0;
}
