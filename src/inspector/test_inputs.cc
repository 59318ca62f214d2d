#include "src/inspector/test_inputs.h"

#include <vector>

namespace glassbox::inspector::testing {
namespace {

aot::Node node(const std::string& name, const std::string& op, std::uint32_t handle,
               std::vector<aot::ModuleFrame> modules, std::uint32_t line) {
  aot::Node n;
  n.name = name;
  n.op = op;
  n.debug_handle = DebugHandle(handle);
  n.module_hierarchy = std::move(modules);
  n.source_location = {"demo_model.cc", line, "forward"};
  return n;
}

std::vector<aot::ModuleFrame> in(const std::string& leaf, const std::string& type) {
  return {{"conv_layer", "SimpleConvNet"}, {"conv_layer." + leaf, type}};
}

etdump::ProfileEvent event(std::int32_t instruction, Ticks start, Ticks end, std::int32_t thread) {
  etdump::ProfileEvent e;
  e.chain_index = instruction < 0 ? -1 : 0;
  e.instruction_id = InstructionId(instruction);
  e.start_time = start;
  e.end_time = end;
  e.thread_index = thread;
  e.time_source = etdump::TimeSource::kMeasured;
  return e;
}

}  // namespace

etrecord::ETRecord demo_record(Ids ids) {
  etrecord::ETRecord record;
  record.fingerprint = kFingerprint;
  aot::Graph graph;
  graph.nodes = {node("conv2d", "conv2d", 1, in("conv1", "Conv2d"), 41),
                 node("relu", "relu", 2, in("relu1", "ReLU"), 55),
                 node("conv2d_1", "conv2d", 3, in("conv2", "Conv2d"), 41),
                 node("relu_1", "relu", 4, in("relu2", "ReLU"), 60), node("tan", "tan", 5, {}, 63)};
  record.edge_graphs["forward"] = graph;
  const InstructionId delegate(0);
  record.debug_handle_map["forward"][delegate] = {DebugHandle(1), DebugHandle(2), DebugHandle(3),
                                                  DebugHandle(4), DebugHandle(5)};
  aot::DebugHandleMap map;
  const std::vector<std::vector<std::uint32_t>> handles = {{1, 2}, {3, 4}, {5}, {5}, {5}};
  const std::vector<std::string> names = {"conv_relu_1", "conv_relu_2", "tan.sin", "tan.cos",
                                          "tan.div"};
  for (std::size_t i = 0; i < handles.size(); ++i) {
    std::vector<DebugHandle> h;
    for (std::uint32_t v : handles[i]) h.push_back(DebugHandle(v));
    if (ids == Ids::kInt) {
      map[aot::DelegateDebugIdentifier(kFirstIntId + static_cast<std::int64_t>(i))] = h;
    } else {
      map[aot::DelegateDebugIdentifier(names[i])] = h;
    }
  }
  record.delegate_map["forward"][delegate] = aot::DelegateMapEntry{"DemoBackend", map};
  record.instruction_id_to_num_outs_map["forward"][delegate] = 1;
  return record;
}

DumpBuilder::DumpBuilder() {
  file_.tick_ratio = TickRatio{1, 1};
  file_.program_fingerprint = kFingerprint;
  file_.dropped_events = 0;
  file_.producer = "glassbox test";
}

DumpBuilder& DumpBuilder::run(const std::string& name) {
  etdump::RunData run;
  run.name = name;
  run.dropped_events = 0;
  run.rejected_events = 0;
  run.tensor_data_dropped = 0;
  file_.runs.push_back(std::move(run));
  return *this;
}

DumpBuilder& DumpBuilder::op(const std::string& name, std::int32_t instruction, Ticks start,
                             Ticks end, std::int32_t thread) {
  etdump::ProfileEvent e = event(instruction, start, end, thread);
  e.name = name;
  file_.runs.back().events.push_back({e});
  return *this;
}

DumpBuilder& DumpBuilder::int_event(std::int32_t id, std::int32_t instruction, Ticks start,
                                    Ticks end, std::int32_t thread) {
  etdump::ProfileEvent e = event(instruction, start, end, thread);
  e.delegate_debug_id_int = DelegateDebugIntId(id);
  e.delegate_debug_metadata = std::vector<std::uint8_t>{};
  file_.runs.back().events.push_back({e});
  return *this;
}

DumpBuilder& DumpBuilder::str_event(const std::string& id, std::int32_t instruction, Ticks start,
                                    Ticks end, std::int32_t thread) {
  etdump::ProfileEvent e = event(instruction, start, end, thread);
  e.delegate_debug_id_str = id;
  e.delegate_debug_metadata = std::vector<std::uint8_t>{};
  file_.runs.back().events.push_back({e});
  return *this;
}

DumpBuilder& DumpBuilder::no_extensions() {
  file_.tick_ratio.reset();
  file_.program_fingerprint.reset();
  file_.dropped_events.reset();
  file_.producer.reset();
  for (etdump::RunData& run : file_.runs) {
    run.dropped_events.reset();
    run.rejected_events.reset();
    run.tensor_data_dropped.reset();
    for (etdump::Event& e : run.events) {
      if (auto* p = std::get_if<etdump::ProfileEvent>(&e.data)) {
        p->thread_index.reset();
        p->time_source.reset();
      }
    }
  }
  return *this;
}

etdump::ETDumpFile demo_dump(Ids ids, int runs) {
  DumpBuilder b;
  b.run("Default").op("Method::init", -1, 10, 510);
  const std::vector<std::string> names = {"conv_relu_1", "conv_relu_2", "tan.sin", "tan.cos",
                                          "tan.div"};
  Ticks t = 1000;
  for (int r = 0; r < runs; ++r) {
    const auto rr = static_cast<Ticks>(r);
    const std::vector<Ticks> durations = {1000 + 10 * rr, 2000 + 20 * rr, 300, 200, 100};
    b.run("Execute");
    const Ticks execute_start = t;
    const Ticks call_start = t + 10;
    Ticks cursor = call_start + 20;
    for (std::size_t i = 0; i < durations.size(); ++i) {
      if (ids == Ids::kInt) {
        b.int_event(static_cast<std::int32_t>(kFirstIntId) + static_cast<std::int32_t>(i), 0,
                    cursor, cursor + durations[i]);
      } else {
        b.str_event(names[i], 0, cursor, cursor + durations[i]);
      }
      cursor += durations[i] + 5;  // 5 ticks between events: 25 in all
    }
    const Ticks call_end = cursor + 5;  // 20 + 25 + 5 = 50 ticks of gap
    b.op("DELEGATE_CALL", 0, call_start, call_end);
    b.op("Method::execute", -1, execute_start, call_end + 15);  // 25 ticks around
    t = call_end + 1000;
  }
  return b.build();
}

}  // namespace glassbox::inspector::testing
