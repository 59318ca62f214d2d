#include "glassbox/io/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
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

Status cannot_write(const std::string& path, int error) {
  return Status(Error::kAccessFailed, path + ": cannot write: " + std::strerror(error));
}

// `path` with its symbolic links followed to the file they name, which may
// not exist yet (a dangling link names the file to create). Errors name
// `path`: a loop of links ("Too many levels of symbolic links"), a path
// through a non-directory.
StatusOr<std::string> follow_links(const std::string& path) {
  constexpr int kMaxLinks = 40;  // Linux's own limit on one lookup.
  std::filesystem::path current(path);
  for (int links = 0;; ++links) {
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0) {
      if (errno == ENOENT) return current.string();
      return cannot_write(path, errno);
    }
    if (!S_ISLNK(st.st_mode)) return current.string();
    if (links == kMaxLinks) return cannot_write(path, ELOOP);
    char target[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), target, sizeof(target) - 1);
    if (n < 0) return cannot_write(path, errno);
    const std::filesystem::path next(std::string(target, static_cast<std::size_t>(n)));
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
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

Status write_file_chunks(const std::string& path, const ChunkProducer& produce) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return Status(Error::kAccessFailed, "cannot write " + path + ": " + std::strerror(errno));
  }
  int error = 0;
  const Status produced = produce([&](std::string_view chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
      error = errno != 0 ? errno : EIO;
      return Status(Error::kAccessFailed, "cannot write " + path + ": " + std::strerror(error));
    }
    return Status();
  });
  if (std::fflush(file) != 0 && error == 0) error = errno;
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (!produced.ok()) return produced;
  if (error != 0) {
    return Status(Error::kAccessFailed, "cannot write " + path + ": " + std::strerror(error));
  }
  return Status();
}

Status write_file(const std::string& path, std::string_view bytes) {
  return write_file_chunks(path, [bytes](const ChunkSink& write) { return write(bytes); });
}

OutputFiles::~OutputFiles() {
  if (committed_) return;
  for (const Entry& entry : entries_) {
    if (!entry.stream) std::remove(entry.temporary.c_str());
  }
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
  // A symbolic link stays a link: the file it names is replaced.
  GLASSBOX_ASSIGN_OR_RETURN(const std::string destination, follow_links(path));
  struct stat st;
  if (::stat(destination.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      return Status(Error::kInvalidArgument, path + " is a directory, not an output file");
    }
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
      return Status(Error::kInvalidArgument, path + " is a " +
                                                 (S_ISBLK(st.st_mode) ? "block device" : "socket") +
                                                 ": outputs are files, character devices or FIFOs");
    }
    // A character device or FIFO cannot be replaced atomically, nor should
    // it be replaced at all: the command writes into it directly.
    if (::access(destination.c_str(), W_OK) != 0) return cannot_write(path, errno);
    entries_.push_back({path, destination, destination, /*stream=*/true});
    return destination;
  }
  // A destination folder that is missing or not writable fails here, naming
  // the destination, before the command does its work.
  const std::filesystem::path folder = std::filesystem::path(destination).parent_path();
  const std::string folder_text = folder.empty() ? "." : folder.string();
  if (::access(folder_text.c_str(), W_OK | X_OK) != 0) return cannot_write(path, errno);
  entries_.push_back({path, destination, temporary_name(destination), /*stream=*/false});
  return entries_.back().temporary;
}

Status OutputFiles::name_outputs(const Status& status) const {
  std::string message = status.message();
  for (const Entry& entry : entries_) {
    if (entry.stream) continue;
    for (std::size_t at = message.find(entry.temporary); at != std::string::npos;
         at = message.find(entry.temporary, at + entry.path.size())) {
      message.replace(at, entry.temporary.size(), entry.path);
    }
  }
  return status.ok() ? status : Status(status.error(), message);
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
  GLASSBOX_RETURN_IF_ERROR(outputs.name_outputs(write_file(temporary, contents)));
  return outputs.commit();
}

Status OutputFiles::commit() {
  for (const Entry& entry : entries_) {
    struct stat st;
    if (!entry.stream && ::stat(entry.temporary.c_str(), &st) != 0) {
      return Status(Error::kInternal, entry.path + " was not written");
    }
  }
  for (const Entry& entry : entries_) {
    if (entry.stream) continue;
    if (std::rename(entry.temporary.c_str(), entry.destination.c_str()) != 0) {
      return Status(Error::kAccessFailed,
                    "cannot write " + entry.path + ": " + std::strerror(errno));
    }
  }
  committed_ = true;
  return Status();
}

}  // namespace glassbox::io
