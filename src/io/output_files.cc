#include "glassbox/io/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace glassbox::io {
namespace {

// The name a file is written under until commit: hidden, in the same folder
// (so rename is atomic), unique within the process and across processes.
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path p(path);
  const std::string name = "." + p.filename().string() + ".partial-" + std::to_string(::getpid()) +
                           "-" + std::to_string(counter++);
  return (p.parent_path() / name).string();
}

std::string normalised(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return path;
  return std::filesystem::weakly_canonical(absolute, ec).lexically_normal().string();
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  return normalised(a) == normalised(b);
}

Status write_file(const std::string& path, std::string_view bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return Status(Error::kAccessFailed, "cannot write " + path + ": " + std::strerror(errno));
  }
  const std::size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  int error = written == bytes.size() ? 0 : errno;
  if (std::fflush(file) != 0 && error == 0) error = errno;
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (written != bytes.size() || error != 0) {
    return Status(Error::kAccessFailed,
                  "cannot write " + path + ": " + std::strerror(error != 0 ? error : EIO));
  }
  return Status();
}

OutputFiles::~OutputFiles() {
  if (committed_) return;
  for (const Entry& entry : entries_) std::remove(entry.temporary.c_str());
}

Status OutputFiles::check_not_input(const std::string& path) const {
  for (const std::string& input : inputs_) {
    if (same_file(path, input)) {
      return Status(Error::kInvalidArgument, path +
                                                 " is both an input and an output of this "
                                                 "command; refusing to overwrite it");
    }
  }
  return Status();
}

StatusOr<std::string> OutputFiles::add(const std::string& path) {
  if (path.empty()) return Status(Error::kInvalidArgument, "an output path is empty");
  for (const Entry& entry : entries_) {
    if (same_file(entry.path, path)) {
      return Status(Error::kInvalidArgument, path + " is given as two outputs of this command");
    }
  }
  GLASSBOX_RETURN_IF_ERROR(check_not_input(path));
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status(Error::kInvalidArgument, path + " is a directory, not an output file");
  }
  // A destination folder that is missing or not writable fails here, naming
  // the destination, before the command does its work.
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  const std::string folder_text = folder.empty() ? "." : folder.string();
  if (::access(folder_text.c_str(), W_OK | X_OK) != 0) {
    return Status(Error::kAccessFailed, path + ": cannot write: " + std::strerror(errno));
  }
  entries_.push_back({path, temporary_name(path)});
  return entries_.back().temporary;
}

Status OutputFiles::refuse_inputs(const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (!input.empty()) inputs_.push_back(input);
  }
  for (const Entry& entry : entries_) GLASSBOX_RETURN_IF_ERROR(check_not_input(entry.path));
  return Status();
}

Status write_file_atomically(const std::string& path, std::string_view contents) {
  OutputFiles outputs;
  GLASSBOX_ASSIGN_OR_RETURN(const std::string temporary, outputs.add(path));
  GLASSBOX_RETURN_IF_ERROR(write_file(temporary, contents));
  return outputs.commit();
}

Status OutputFiles::commit() {
  for (const Entry& entry : entries_) {
    struct stat st;
    if (::stat(entry.temporary.c_str(), &st) != 0) {
      return Status(Error::kInternal, entry.path + " was not written");
    }
  }
  for (const Entry& entry : entries_) {
    if (std::rename(entry.temporary.c_str(), entry.path.c_str()) != 0) {
      return Status(Error::kAccessFailed,
                    "cannot write " + entry.path + ": " + std::strerror(errno));
    }
  }
  committed_ = true;
  return Status();
}

}  // namespace glassbox::io
