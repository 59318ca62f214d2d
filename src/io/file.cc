#include "glassbox/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace glassbox::io {
namespace {

// What a non-regular file is, for the message.
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

Status not_regular(const std::string& path, mode_t mode) {
  return Status(Error::kAccessFailed, path + ": is not a regular file (" + file_kind(mode) + ")");
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

StatusOr<std::vector<std::uint8_t>> read_file(const std::string& path, std::uint64_t max_bytes) {
  // Non-blocking, so opening a FIFO without a writer returns at once; the
  // type check below then refuses it before any read.
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    return Status(Error::kAccessFailed, path + ": cannot open: " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) {
    return Status(Error::kAccessFailed, path + ": cannot read: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) return not_regular(path, info.st_mode);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > max_bytes) {
    return Status(Error::kOutOfResources, path + ": is " + std::to_string(size) +
                                              " bytes, more than the " + std::to_string(max_bytes) +
                                              " this reader accepts");
  }
  std::vector<std::uint8_t> bytes;
  try {
    bytes.resize(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    return Status(Error::kOutOfResources,
                  path + ": needs " + std::to_string(size) + " bytes of memory");
  }
  // Up to the size seen at open: a file that grows meanwhile is read as it
  // was; one that shrinks ends early.
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(file.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Status(Error::kAccessFailed, path + ": cannot read: " + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace glassbox::io
