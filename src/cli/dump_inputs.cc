#include "src/cli/dump_inputs.h"

#include <glob.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "glassbox/aot/internal/debug_handle_map_json.h"
#include "nlohmann/json.hpp"

namespace glassbox::cli {
namespace {

namespace fs = std::filesystem;

bool is_pattern(const std::string& value) {
  return value.find_first_of("*?[") != std::string::npos;
}

// The folder glob(3) could not read, and why (a missing folder is no
// error: the pattern then matches nothing). glob runs on one thread here.
thread_local std::string glob_failure;

int on_glob_error(const char* path, int error) {
  if (error != ENOENT && error != ENOTDIR) {
    glob_failure = std::string(path) + ": " + std::strerror(error);
  }
  return 0;  // Go on: report after the walk.
}

Status add_glob(const std::string& pattern, std::set<std::string>& paths) {
  glob_t matches{};
  glob_failure.clear();
  const int rc = ::glob(pattern.c_str(), 0, on_glob_error, &matches);
  std::size_t added = 0;
  if (rc == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
      std::error_code ec;
      if (!fs::is_regular_file(matches.gl_pathv[i], ec)) continue;
      paths.insert(matches.gl_pathv[i]);
      ++added;
    }
  }
  ::globfree(&matches);
  if (!glob_failure.empty()) {
    return Status(Error::kAccessFailed, pattern + ": cannot read folder " + glob_failure);
  }
  if (added == 0) {
    return Status(Error::kNotFound, pattern + ": the pattern matches no ETDump file");
  }
  return Status();
}

Status add_folder(const std::string& folder, std::set<std::string>& paths) {
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  if (ec) return Status(Error::kAccessFailed, folder + ": cannot read the folder: " + ec.message());
  std::size_t added = 0;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      return Status(Error::kAccessFailed, folder + ": cannot read the folder: " + ec.message());
    std::error_code type_ec;
    if (it->path().extension() == ".etdp" && it->is_regular_file(type_ec)) {
      paths.insert(it->path().string());
      ++added;
    }
  }
  if (added == 0) {
    return Status(Error::kNotFound, folder +
                                        ": the folder holds no *.etdp file (not searched "
                                        "recursively: pass a glob such as 'dir/*/*.etdp')");
  }
  return Status();
}

std::string escape_regex(char c) {
  static const std::string kSpecial = R"(\^$.|+()[]{}*?)";
  return kSpecial.find(c) != std::string::npos ? std::string("\\") + c : std::string(1, c);
}

}  // namespace

bool names_many_dumps(const std::vector<std::string>& values) {
  if (values.size() != 1) return values.size() > 1;
  std::error_code ec;
  return is_pattern(values[0]) || fs::is_directory(values[0], ec);
}

StatusOr<std::vector<std::string>> expand_dump_paths(const std::vector<std::string>& values) {
  std::set<std::string> paths;
  for (const std::string& value : values) {
    std::error_code ec;
    if (fs::is_directory(value, ec)) {
      GLASSBOX_RETURN_IF_ERROR(add_folder(value, paths));
    } else if (fs::exists(value, ec)) {
      paths.insert(value);
    } else if (is_pattern(value)) {
      GLASSBOX_RETURN_IF_ERROR(add_glob(value, paths));
    } else {
      return Status(Error::kNotFound, value + ": no such file or folder");
    }
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

std::vector<std::string> dump_files_to_protect(const std::vector<std::string>& values) {
  StatusOr<std::vector<std::string>> files = expand_dump_paths(values);
  return files.ok() ? *files : values;
}

StatusOr<PathTagPattern> PathTagPattern::parse(const std::string& pattern) {
  PathTagPattern parsed;
  parsed.pattern_ = pattern;
  std::string regex = "(?:^|/)";
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string::npos) {
        return Status(Error::kInvalidArgument,
                      "--tag-from-path " + pattern + ": a '{' without its '}'");
      }
      std::string name = pattern.substr(i + 1, close - i - 1);
      if (name.empty() || std::count(parsed.names_.begin(), parsed.names_.end(), name) > 0) {
        return Status(Error::kInvalidArgument,
                      "--tag-from-path " + pattern + ": tag names must be non-empty and distinct");
      }
      parsed.names_.push_back(std::move(name));
      regex += "([^/]+)";
      i = close;
    } else if (c == '*') {
      regex += "[^/]*";
    } else if (c == '?') {
      regex += "[^/]";
    } else {
      regex += escape_regex(c);
    }
  }
  if (parsed.names_.empty()) {
    return Status(Error::kInvalidArgument,
                  "--tag-from-path " + pattern + ": names no tag (write {name} for a component)");
  }
  parsed.regex_ = std::regex(regex + "$");
  return parsed;
}

std::optional<Tags> PathTagPattern::match(const std::string& path) const {
  std::smatch m;
  if (!std::regex_search(path, m, regex_)) return std::nullopt;
  Tags tags;
  for (std::size_t i = 0; i < names_.size(); ++i) tags[names_[i]] = m[i + 1].str();
  return tags;
}

StatusOr<Tags> parse_sidecar_tags(std::string_view text, const std::string& sidecar) {
  GLASSBOX_RETURN_IF_ERROR(aot::internal::check_json_depth(text, sidecar));
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return Status(Error::kCorruptData,
                  sidecar + ": a tag sidecar must be a JSON object of strings");
  }
  Tags tags;
  for (const auto& [key, value] : doc.items()) {
    if (!value.is_string()) {
      return Status(Error::kCorruptData,
                    sidecar + ": tag \"" + key +
                        "\" is not a string (a sidecar is a flat object of strings)");
    }
    tags[key] = value.get<std::string>();
  }
  return tags;
}

StatusOr<Tags> read_sidecar_tags(const std::string& dump_path) {
  const std::string sidecar = dump_path + ".json";
  std::error_code ec;
  if (!fs::exists(sidecar, ec)) return Tags();
  std::ifstream in(sidecar, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return Status(Error::kAccessFailed, sidecar + ": cannot read the tag sidecar");
  return parse_sidecar_tags(text.str(), sidecar);
}

}  // namespace glassbox::cli
