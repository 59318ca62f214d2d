#include "glassbox/etdump/etdump_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "src/etdump/reader/decode.h"
#include "src/etdump/reader/verified_buffer.h"

namespace glassbox::etdump {

StatusOr<ETDumpFile> parse_etdump(std::span<const std::uint8_t> bytes,
                                  std::string_view source_name) {
  const std::string source(source_name);
  auto verified = VerifiedBuffer::verify(bytes);
  if (!verified.ok()) return verified.status().with_context(source);
  auto file = decode_etdump(*verified);
  if (!file.ok()) return file.status().with_context(source);
  return file;
}

StatusOr<std::vector<std::uint8_t>> read_file_bytes(const std::string& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    return Status(Error::kAccessFailed,
                  path + ": cannot open: " + std::strerror(errno));
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
    return Status(Error::kAccessFailed,
                  path + ": cannot read: " + std::strerror(errno));
  }
  return bytes;
}

StatusOr<ETDumpFile> load_etdump_file(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes,
                            read_file_bytes(path));
  return parse_etdump(bytes, path);
}

}  // namespace glassbox::etdump
