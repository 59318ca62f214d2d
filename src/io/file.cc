#include "glassbox/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace glassbox::io {

StatusOr<std::vector<std::uint8_t>> read_file(const std::string& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    return Status(Error::kAccessFailed, path + ": cannot open: " + std::strerror(errno));
  }
  // Read in chunks rather than trusting a size from seek/tell, which is
  // meaningless for pipes and devices.
  std::vector<std::uint8_t> bytes;
  constexpr std::size_t kChunk = 1 << 16;
  std::size_t got = 0;
  do {
    const std::size_t old_size = bytes.size();
    bytes.resize(old_size + kChunk);
    got = std::fread(bytes.data() + old_size, 1, kChunk, file.get());
    bytes.resize(old_size + got);
  } while (got == kChunk);
  if (std::ferror(file.get()) != 0) {
    return Status(Error::kAccessFailed, path + ": cannot read: " + std::strerror(errno));
  }
  return bytes;
}

Status write_file_atomically(const std::string& path, std::string_view contents) {
  auto failed = [&path](const char* what) {
    return Status(Error::kAccessFailed, path + ": cannot write: " + what + std::strerror(errno));
  };
  // mkstemp in the target's folder: rename() is atomic only within one
  // file system.
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return failed("cannot create a temporary file beside it: ");
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const Status status = failed("");
      ::close(fd);
      ::unlink(temp.c_str());
      return status;
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0) {
    const Status status = failed("");
    ::unlink(temp.c_str());
    return status;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const Status status = failed("");
    ::unlink(temp.c_str());
    return status;
  }
  return Status();
}

}  // namespace glassbox::io
