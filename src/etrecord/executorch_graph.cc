#include "src/etrecord/executorch_graph.h"

#include <array>
#include <charconv>
#include <map>

#include "src/etrecord/map_json.h"

namespace glassbox::etrecord::internal {
namespace {

// Serialized targets start with the module path of their dialect.
constexpr std::array<std::string_view, 4> kTargetPrefixes = {
    "executorch.exir.dialects.edge.ops.", "executorch.exir.dialects.backend.ops.", "torch.ops.",
    "_operator."};
// Metadata items are joined by this (torch's ST_DELIMITER).
constexpr char kItemDelimiter = ';';

std::vector<std::string_view> split_items(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(kItemDelimiter, start);
    items.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return items;
    start = end + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits at commas outside brackets (a path such as "L['self'].a[0]" may
// hold none today, but torch's own reader allows them), as torch does.
std::optional<std::vector<std::string_view>> split_fields(std::string_view item,
                                                          std::size_t count) {
  std::vector<std::string_view> fields;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < item.size(); ++i) {
    const char c = item[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') {
      if (--depth < 0) return std::nullopt;
    }
    if (c == ',' && depth == 0) {
      fields.push_back(trim(item.substr(start, i - start)));
      start = i + 1;
    }
  }
  fields.push_back(trim(item.substr(start)));
  if (fields.size() != count) return std::nullopt;
  return fields;
}

std::string_view last_component(std::string_view dotted) {
  const std::size_t dot = dotted.find_last_of('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// "L['self'].layers[0]['a']" -> "layers.0.a"; dotted paths stay as they are.
std::string normalised_path(std::string_view path) {
  constexpr std::string_view kSelf = "L['self']";
  if (path.starts_with(kSelf)) path.remove_prefix(kSelf.size());
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '[') {
      if (!out.empty()) out += '.';
    } else if (c != ']' && c != '\'') {
      out += c;
    }
  }
  if (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out;
}

bool is_library_file(std::string_view file) {
  return file.empty() || file.front() == '<' || file.find("/site-packages/") != file.npos ||
         file.find("/dist-packages/") != file.npos || file.find("/lib/python") != file.npos;
}

class GraphReader {
 public:
  explicit GraphReader(std::vector<std::string>* notes) : notes_(notes) {}

  StatusOr<aot::Graph> read(std::string_view text) {
    GLASSBOX_ASSIGN_OR_RETURN(const Json root,
                              aot::internal::parse_json_bounded<Json>(text, "(document)"));
    GLASSBOX_ASSIGN_OR_RETURN(const Json* module, member(root, "", "graph_module"));
    GLASSBOX_ASSIGN_OR_RETURN(const Json* graph, member(*module, "graph_module", "graph"));
    const std::string path = "graph_module.graph";
    GLASSBOX_ASSIGN_OR_RETURN(const Json* nodes, member(*graph, path, "nodes"));
    if (!nodes->is_array()) return corrupt(path + ".nodes", "expected a list");
    if (auto values = graph->find("tensor_values"); values != graph->end() && values->is_object()) {
      tensor_values_ = &*values;
    }
    GLASSBOX_ASSIGN_OR_RETURN(graph_.inputs,
                              arguments(*graph, path, "inputs", aot::ValueKind::kInput));
    for (std::size_t i = 0; i < nodes->size(); ++i) {
      GLASSBOX_RETURN_IF_ERROR(read_node((*nodes)[i], path + ".nodes[" + std::to_string(i) + "]"));
    }
    GLASSBOX_ASSIGN_OR_RETURN(graph_.outputs,
                              arguments(*graph, path, "outputs", aot::ValueKind::kConstant));
    add_notes();
    return std::move(graph_);
  }

 private:
  static StatusOr<const Json*> member(const Json& object, const std::string& path,
                                      std::string_view name) {
    if (!object.is_object())
      return corrupt(path.empty() ? "(document)" : path, "expected an object");
    auto it = object.find(name);
    if (it == object.end()) return corrupt(child(path, name), "missing");
    return &*it;
  }

  // The tensor names an Argument refers to: {"as_tensor": {"name": n}},
  // {"as_tensors": [...]}, {"as_optional_tensors": [{"as_tensor": ...}]};
  // anything else (ints, scalars, none) names no tensor.
  static void tensor_names(const Json& argument, std::vector<std::string>* names) {
    if (!argument.is_object()) return;
    auto add = [names](const Json& tensor) {
      if (!tensor.is_object()) return;
      auto name = tensor.find("name");
      if (name != tensor.end() && name->is_string()) names->push_back(name->get<std::string>());
    };
    if (auto t = argument.find("as_tensor"); t != argument.end()) add(*t);
    for (std::string_view list : {"as_tensors", "as_optional_tensors"}) {
      auto l = argument.find(list);
      if (l == argument.end() || !l->is_array()) continue;
      for (const Json& item : *l) {
        auto inner = item.find("as_tensor");
        add(inner != item.end() ? *inner : item);
      }
    }
  }

  aot::ValueId value_for(const std::string& name, aot::ValueKind kind) {
    auto [it, added] = ids_.try_emplace(name, aot::ValueId(static_cast<std::int32_t>(ids_.size())));
    if (added) {
      aot::Value value;
      value.id = it->second;
      value.name = name;
      value.kind = kind;
      set_shape(&value);
      graph_.values.push_back(std::move(value));
    }
    return it->second;
  }

  // Sizes from tensor_values when all are concrete ints; the dtype is not
  // needed by the join and is not read.
  void set_shape(aot::Value* value) const {
    if (tensor_values_ == nullptr) return;
    auto meta = tensor_values_->find(value->name);
    if (meta == tensor_values_->end() || !meta->is_object()) return;
    auto sizes = meta->find("sizes");
    if (sizes == meta->end() || !sizes->is_array()) return;
    std::vector<std::int64_t> shape;
    for (const Json& size : *sizes) {
      auto as_int = size.is_object() ? size.find("as_int") : size.end();
      if (!size.is_object() || as_int == size.end() || !as_int->is_number_integer()) return;
      shape.push_back(as_int->get<std::int64_t>());
    }
    value->shape = std::move(shape);
  }

  StatusOr<std::vector<aot::ValueId>> arguments(const Json& graph, const std::string& path,
                                                std::string_view name, aot::ValueKind kind) {
    std::vector<aot::ValueId> ids;
    auto list = graph.find(name);
    if (list == graph.end()) return ids;
    if (!list->is_array()) return corrupt(child(path, name), "expected a list");
    std::vector<std::string> names;
    for (const Json& argument : *list) tensor_names(argument, &names);
    for (const std::string& n : names) ids.push_back(value_for(n, kind));
    return ids;
  }

  Status read_node(const Json& j, const std::string& path) {
    if (!j.is_object()) return corrupt(path, "expected an object");
    aot::Node node;
    // Files of 2023 have no node "name"; the node is then named after its
    // first output tensor, which torch names after the node.
    if (j.contains("name")) {
      GLASSBOX_ASSIGN_OR_RETURN(node.name, string_member(j, path, "name"));
    }
    GLASSBOX_ASSIGN_OR_RETURN(const std::string target, string_member(j, path, "target"));
    node.op = op_from_target(target);
    node.attributes["target"] = target;
    std::vector<std::string> names;
    if (auto inputs = j.find("inputs"); inputs != j.end() && inputs->is_array()) {
      for (const Json& named : *inputs) {
        if (named.is_object() && named.contains("arg")) tensor_names(named["arg"], &names);
      }
    }
    for (const std::string& n : names)
      node.inputs.push_back(value_for(n, aot::ValueKind::kConstant));
    names.clear();
    if (auto outputs = j.find("outputs"); outputs != j.end() && outputs->is_array()) {
      for (const Json& argument : *outputs) tensor_names(argument, &names);
    }
    for (const std::string& n : names) node.outputs.push_back(output_value(n));
    if (node.name.empty()) {
      node.name = names.empty() ? "node_" + std::to_string(graph_.nodes.size()) : names.front();
    }
    if (auto metadata = j.find("metadata"); metadata != j.end()) {
      GLASSBOX_RETURN_IF_ERROR(read_metadata(*metadata, child(path, "metadata"), &node));
    }
    graph_.nodes.push_back(std::move(node));
    return Status();
  }

  // A node's output may already be known as an input of an earlier node
  // (ExecuTorch graphs are topological, so only by a malformed file); it is
  // produced here either way.
  aot::ValueId output_value(const std::string& name) {
    const aot::ValueId id = value_for(name, aot::ValueKind::kNodeOutput);
    graph_.values[static_cast<std::size_t>(id.value)].kind = aot::ValueKind::kNodeOutput;
    return id;
  }

  static StatusOr<std::string> string_member(const Json& j, const std::string& path,
                                             std::string_view name) {
    auto it = j.find(name);
    if (it == j.end()) return corrupt(child(path, name), "missing");
    if (!it->is_string()) return corrupt(child(path, name), "expected a string, got " + dump(*it));
    return it->get<std::string>();
  }

  static StatusOr<DebugHandle> debug_handle(const Json& j, const std::string& path) {
    std::uint64_t value = 0;
    if (j.is_number_unsigned()) {
      value = j.get<std::uint64_t>();
    } else if (j.is_string()) {
      const std::string& s = j.get_ref<const std::string&>();
      auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (error != std::errc() || end != s.data() + s.size() || s.empty()) {
        return corrupt(path, "expected an integer, got " + dump(j));
      }
    } else {
      return corrupt(path, "expected an integer or its decimal string, got " + dump(j));
    }
    if (value > std::numeric_limits<std::uint32_t>::max()) {
      return corrupt(path, std::to_string(value) + " is out of range");
    }
    return DebugHandle(static_cast<std::uint32_t>(value));
  }

  Status read_metadata(const Json& metadata, const std::string& path, aot::Node* node) {
    if (!metadata.is_object()) return corrupt(path, "expected an object");
    if (auto h = metadata.find("debug_handle"); h != metadata.end()) {
      GLASSBOX_ASSIGN_OR_RETURN(node->debug_handle, debug_handle(*h, child(path, "debug_handle")));
    }
    if (node->debug_handle.is_set()) ++with_handle_;
    std::optional<std::string> modules, source_fns, trace;
    GLASSBOX_ASSIGN_OR_RETURN(modules, optional_string(metadata, path, "nn_module_stack"));
    GLASSBOX_ASSIGN_OR_RETURN(source_fns, optional_string(metadata, path, "source_fn_stack"));
    GLASSBOX_ASSIGN_OR_RETURN(trace, optional_string(metadata, path, "stack_trace"));
    std::optional<std::vector<aot::ModuleFrame>> frames;
    if (modules) {
      frames = modules_from_nn_module_stack(*modules);
      unread_modules_ += !frames.has_value();
    } else if (source_fns) {
      frames = modules_from_source_fn_stack(*source_fns);
      unread_modules_ += !frames.has_value();
    }
    if (frames) node->module_hierarchy = std::move(*frames);
    if (trace) {
      std::optional<aot::SourceLocation> location = location_from_stack_trace(*trace);
      unread_traces_ += !location.has_value();
      if (location) node->source_location = std::move(*location);
    }
    return Status();
  }

  static StatusOr<std::optional<std::string>> optional_string(const Json& metadata,
                                                              const std::string& path,
                                                              std::string_view name) {
    auto it = metadata.find(name);
    if (it == metadata.end()) return std::optional<std::string>();
    if (!it->is_string()) return corrupt(child(path, name), "expected a string, got " + dump(*it));
    return std::optional<std::string>(it->get<std::string>());
  }

  void add_notes() const {
    const std::size_t n = graph_.nodes.size();
    if (n > 0 && with_handle_ == 0) {
      notes_->push_back(
          "no node of the edge program carries a debug handle: events map to handles but not "
          "to operators");
    }
    if (unread_modules_ > 0) {
      notes_->push_back(std::to_string(unread_modules_) + " of " + std::to_string(n) +
                        " nodes have a module stack in an unknown form: shown without modules");
    }
    if (unread_traces_ > 0) {
      notes_->push_back(std::to_string(unread_traces_) + " of " + std::to_string(n) +
                        " nodes have a stack trace without a \"File ..., line N\" frame: shown "
                        "without a source line");
    }
  }

  std::vector<std::string>* notes_;
  aot::Graph graph_;
  std::map<std::string, aot::ValueId, std::less<>> ids_;
  const Json* tensor_values_ = nullptr;
  std::size_t with_handle_ = 0;
  std::size_t unread_modules_ = 0;
  std::size_t unread_traces_ = 0;
};

}  // namespace

StatusOr<aot::Graph> graph_from_exported_program(std::string_view text,
                                                 std::vector<std::string>* notes) {
  return GraphReader(notes).read(text);
}

std::string op_from_target(std::string_view target) {
  for (std::string_view prefix : kTargetPrefixes) {
    if (target.starts_with(prefix)) {
      target.remove_prefix(prefix.size());
      break;
    }
  }
  constexpr std::string_view kAten = "aten.";
  constexpr std::string_view kHigherOrder = "higher_order.";
  if (target.starts_with(kAten)) target.remove_prefix(kAten.size());
  if (target.starts_with(kHigherOrder)) target.remove_prefix(kHigherOrder.size());
  // "name.overload": the overload is the last component when there are two
  // or more ("add.Tensor", "quantized_decomposed.quantize_per_tensor.default").
  if (const std::size_t dot = target.find_last_of('.'); dot != std::string_view::npos) {
    target = target.substr(0, dot);
  }
  return std::string(target);
}

std::optional<std::vector<aot::ModuleFrame>> modules_from_nn_module_stack(std::string_view text) {
  std::vector<aot::ModuleFrame> frames;
  for (std::string_view item : split_items(text)) {
    std::optional<std::vector<std::string_view>> fields = split_fields(item, 3);
    if (!fields) return std::nullopt;
    std::string path = normalised_path((*fields)[1]);
    if (path.empty()) continue;  // The root module: every node is inside it.
    frames.push_back({std::move(path), std::string(last_component((*fields)[2]))});
  }
  return frames;
}

std::optional<std::vector<aot::ModuleFrame>> modules_from_source_fn_stack(std::string_view text) {
  std::vector<aot::ModuleFrame> frames;
  for (std::string_view item : split_items(text)) {
    std::optional<std::vector<std::string_view>> fields = split_fields(item, 2);
    if (!fields || (*fields)[0].empty()) return std::nullopt;
    frames.push_back({std::string((*fields)[0]), std::string(last_component((*fields)[1]))});
  }
  return frames;
}

std::optional<aot::SourceLocation> location_from_stack_trace(std::string_view trace) {
  constexpr std::string_view kFile = "File \"";
  constexpr std::string_view kLine = "\", line ";
  constexpr std::string_view kIn = ", in ";
  std::optional<aot::SourceLocation> innermost, user;
  for (std::size_t at = trace.find(kFile); at != std::string_view::npos;
       at = trace.find(kFile, at + 1)) {
    const std::size_t file_start = at + kFile.size();
    const std::size_t file_end = trace.find(kLine, file_start);
    const std::size_t eol = std::min(trace.find('\n', file_start), trace.size());
    if (file_end == std::string_view::npos || file_end > eol) continue;
    const char* digits = trace.data() + file_end + kLine.size();
    std::uint32_t line = 0;
    auto [end, error] = std::from_chars(digits, trace.data() + eol, line);
    if (error != std::errc() || line == 0) continue;
    aot::SourceLocation location;
    location.file = std::string(trace.substr(file_start, file_end - file_start));
    location.line = line;
    const std::string_view rest(end, static_cast<std::size_t>(trace.data() + eol - end));
    if (rest.starts_with(kIn)) location.function = std::string(trim(rest.substr(kIn.size())));
    if (!is_library_file(location.file)) user = location;
    innermost = std::move(location);
  }
  return user ? user : innermost;
}

}  // namespace glassbox::etrecord::internal
