#include "glassbox/io/file.h"

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

}  // namespace glassbox::io
