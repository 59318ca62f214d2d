#include "glassbox/etdump/etdump_reader.h"

#include "glassbox/io/file.h"
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

StatusOr<ETDumpFile> load_etdump_file(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, io::read_file(path));
  return parse_etdump(bytes, path);
}

}  // namespace glassbox::etdump
