#include "glassbox/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
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

namespace {

// The checks and the read loop of read_file; `allocate(n)` gives the storage
// for n bytes (null or std::bad_alloc when there is no memory). Returns how
// many bytes were read.
StatusOr<std::size_t> read_regular_file(const std::string& path, std::uint64_t max_bytes,
                                        const std::function<std::uint8_t*(std::size_t)>& allocate) {
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
  std::uint8_t* data = nullptr;
  try {
    data = allocate(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    data = nullptr;
  }
  if (data == nullptr && size > 0) {
    return Status(Error::kOutOfResources,
                  path + ": needs " + std::to_string(size) + " bytes of memory");
  }
  // Up to the size seen at open: a file that grows meanwhile is read as it
  // was; one that shrinks ends early.
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(file.get(), data + got, static_cast<std::size_t>(size) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Status(Error::kAccessFailed, path + ": cannot read: " + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

}  // namespace

StatusOr<std::vector<std::uint8_t>> read_file(const std::string& path, std::uint64_t max_bytes) {
  std::vector<std::uint8_t> bytes;
  GLASSBOX_ASSIGN_OR_RETURN(const std::size_t got,
                            read_regular_file(path, max_bytes, [&bytes](std::size_t n) {
                              bytes.resize(n);
                              return bytes.data();
                            }));
  bytes.resize(got);
  return bytes;
}

StatusOr<FileBytes> read_file_bytes(const std::string& path, std::uint64_t max_bytes) {
  FileBytes bytes;
  bytes.storage = std::make_unique<internal::LargeBuffer>();
  GLASSBOX_ASSIGN_OR_RETURN(bytes.size, read_regular_file(path, max_bytes, [&bytes](std::size_t n) {
                              using internal::LargeBuffer;
                              const LargeBuffer::Pages pages = n >= LargeBuffer::kHugePageBytes
                                                                   ? LargeBuffer::Pages::kFreshHuge
                                                                   : LargeBuffer::Pages::kReusable;
                              // Fill::kAny: no zero fill before the read.
                              return bytes.storage->allocate(n, pages, LargeBuffer::Fill::kAny)
                                         ? bytes.storage->data()
                                         : nullptr;
                            }));
  return bytes;
}

}  // namespace glassbox::io
