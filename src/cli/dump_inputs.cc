#include "src/cli/dump_inputs.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "glassbox/aot/internal/debug_handle_map_json.h"
#include "glassbox/io/file.h"
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

}  // namespace

bool names_many_dumps(const std::vector<std::string>& values) {
  if (values.size() != 1) return values.size() > 1;
  std::error_code ec;
  return is_pattern(values[0]) || fs::is_directory(values[0], ec);
}

StatusOr<std::vector<std::string>> expand_dump_paths(const std::vector<std::string>& values) {
  std::set<std::string> paths;
  for (const std::string& value : values) {
    struct stat st;
    if (::stat(value.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        GLASSBOX_RETURN_IF_ERROR(add_folder(value, paths));
      } else {
        paths.insert(value);
      }
    } else if (errno != ENOENT && errno != ENOTDIR) {
      // A loop of links, a folder it may not search: said as it is.
      return Status(Error::kAccessFailed, value + ": " + std::strerror(errno));
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
  parsed.components_.emplace_back();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    Component& tokens = parsed.components_.back();
    if (c == '/') {
      parsed.components_.emplace_back();
    } else if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string::npos) {
        return Status(Error::kInvalidArgument, "'" + pattern + "': a '{' without its '}'");
      }
      std::string name = pattern.substr(i + 1, close - i - 1);
      if (name.empty() || !seen.insert(name).second) {
        return Status(Error::kInvalidArgument,
                      "'" + pattern + "': tag names must be non-empty and distinct");
      }
      parsed.names_.push_back(std::move(name));
      tokens.push_back({Token::Kind::kTag});
      i = close;
    } else if (c == '*') {
      if (tokens.empty() || tokens.back().kind != Token::Kind::kAnyRun) {
        tokens.push_back({Token::Kind::kAnyRun});
      }
    } else if (c == '?') {
      tokens.push_back({Token::Kind::kAnyOne});
    } else {
      tokens.push_back({Token::Kind::kLiteral, c});
    }
  }
  if (parsed.names_.empty()) {
    return Status(Error::kInvalidArgument,
                  "'" + pattern + "': names no tag (write {name} for a component)");
  }
  return parsed;
}

bool PathTagPattern::match_component(const Component& tokens, std::string_view text,
                                     std::vector<std::string>* values) {
  using Kind = Token::Kind;
  const std::size_t m = tokens.size();
  const std::size_t n = text.size();
  const auto fixed = static_cast<std::size_t>(std::count_if(
      tokens.begin(), tokens.end(), [](const Token& t) { return t.kind != Kind::kAnyRun; }));
  if (fixed > n) return false;  // Also bounds the table: m <= 2 * n + 1.
  // rest[i * (n + 1) + j]: tokens[i..] match text[j..].
  std::vector<char> rest((m + 1) * (n + 1), 0);
  const auto at = [&](std::size_t i, std::size_t j) -> char& { return rest[i * (n + 1) + j]; };
  at(m, n) = 1;
  for (std::size_t i = m; i-- > 0;) {
    const Token& token = tokens[i];
    for (std::size_t j = n + 1; j-- > 0;) {
      const bool take_one = j < n && at(i + 1, j + 1);
      const bool take_more = j < n && at(i, j + 1);
      switch (token.kind) {
        case Kind::kLiteral: at(i, j) = take_one && text[j] == token.literal; break;
        case Kind::kAnyOne: at(i, j) = take_one; break;
        case Kind::kAnyRun: at(i, j) = at(i + 1, j) || take_more; break;
        case Kind::kTag: at(i, j) = take_one || take_more; break;
      }
    }
  }
  if (!at(0, 0)) return false;
  // Each run takes the longest stretch after which the rest still matches:
  // the first match a backtracking regex would find.
  std::size_t j = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const Kind kind = tokens[i].kind;
    if (kind == Kind::kLiteral || kind == Kind::kAnyOne) {
      ++j;
      continue;
    }
    std::size_t end = n;
    while (!at(i + 1, end)) --end;
    if (kind == Kind::kTag) values->emplace_back(text.substr(j, end - j));
    j = end;
  }
  return true;
}

std::optional<Tags> PathTagPattern::match(const std::string& path) const {
  // The pattern's components match the path's last ones.
  std::vector<std::string_view> parts;
  const std::string_view whole(path);
  for (std::size_t start = 0;;) {
    const std::size_t slash = whole.find('/', start);
    parts.push_back(whole.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() < components_.size()) return std::nullopt;
  const std::size_t first = parts.size() - components_.size();
  std::vector<std::string> values;
  for (std::size_t k = 0; k < components_.size(); ++k) {
    if (!match_component(components_[k], parts[first + k], &values)) return std::nullopt;
  }
  Tags tags;
  for (std::size_t i = 0; i < names_.size(); ++i) tags[names_[i]] = std::move(values[i]);
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
  struct stat st;
  if (::lstat(sidecar.c_str(), &st) != 0 && errno == ENOENT) return Tags();
  // Through the bounded reader: a link to a device or a FIFO is refused
  // without reading (it would never end, or block), and so is a huge file.
  GLASSBOX_ASSIGN_OR_RETURN(const std::vector<std::uint8_t> text,
                            io::read_file(sidecar, kMaxSidecarBytes));
  return parse_sidecar_tags(
      std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), sidecar);
}

}  // namespace glassbox::cli
