#include "backends/common/plugin_loader.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "backends/common/backend_plugin.h"

namespace glassbox::backends {
namespace {

using EntryFunction = const void* (*)();

std::string dl_error_text() {
  const char* text = dlerror();
  return text == nullptr ? "unknown dlopen error" : text;
}

bool takes_plugins(std::string_view command) {
  return command == "lower" || command == "run" || command == "demo" ||
         command == "check-backend" || command == "inspect" || command == "report" ||
         command == "export" || command == "compare";
}

}  // namespace

Status load_backend_plugin(const std::string& path) {
  const std::string origin = "plug-in " + path;
  // dlopen searches the library path for a bare name; a user naming a file
  // means that file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_LOCAL: each plug-in's own symbols stay its own; it binds to this
  // program's exported symbols (the registries) at load.
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return Status(Error::kAccessFailed, origin + ": cannot load: " + dl_error_text());
  }
  dlerror();  // clear, so a null symbol below is told from a missing one
  void* symbol = dlsym(library, kPluginEntrySymbol);
  if (symbol == nullptr) {
    return Status(Error::kNotFound, origin + ": no symbol " + kPluginEntrySymbol +
                                        " (not a Glassbox backend plug-in)");
  }
  EntryFunction entry_function = nullptr;
  static_assert(sizeof(entry_function) == sizeof(symbol));
  std::memcpy(&entry_function, &symbol, sizeof(symbol));
  const void* entry = entry_function();
  if (entry == nullptr) {
    return Status(Error::kNotFound, origin + ": " + kPluginEntrySymbol + " returned null");
  }
  // Only the first field is read before the version is known to match:
  // its place is the one thing every ABI version shares.
  std::uint32_t abi_version = 0;
  std::memcpy(&abi_version, entry, sizeof(abi_version));
  if (abi_version != kPluginAbiVersion) {
    return register_backend_plugin(PluginEntry{abi_version, nullptr, nullptr}, origin);
  }
  return register_backend_plugin(*static_cast<const PluginEntry*>(entry), origin);
}

std::vector<std::string> plugin_paths_from_environment() {
  std::vector<std::string> paths;
  const char* value = std::getenv(kPluginsEnvironmentVariable);
  if (value == nullptr) return paths;
  std::string_view rest = value;
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view path = rest.substr(0, colon);
    if (!path.empty()) paths.emplace_back(path);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return paths;
}

Status load_command_line_plugins(int argc, const char* const* argv) {
  if (argc < 2 || !takes_plugins(argv[1])) return Status();
  for (const std::string& path : plugin_paths_from_environment()) {
    GLASSBOX_RETURN_IF_ERROR(load_backend_plugin(path));
  }
  constexpr std::string_view kOption = "--plugin";
  for (int i = 2; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;  // what follows is not options
    if (word == kOption && i + 1 < argc) {
      GLASSBOX_RETURN_IF_ERROR(load_backend_plugin(argv[++i]));
    } else if (word.starts_with(kOption) && word.size() > kOption.size() &&
               word[kOption.size()] == '=') {
      GLASSBOX_RETURN_IF_ERROR(load_backend_plugin(std::string(word.substr(kOption.size() + 1))));
    }
  }
  return Status();
}

}  // namespace glassbox::backends
