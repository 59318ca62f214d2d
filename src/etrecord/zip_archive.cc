#include "src/etrecord/zip_archive.h"

#include <zip.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

namespace glassbox::etrecord::internal {
namespace {

// 1980-01-01 00:00, the earliest DOS date: a fixed stamp keeps output stable.
constexpr zip_uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
constexpr zip_uint16_t kDosTime = 0;

struct ArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct SourceFreer {
  void operator()(zip_source_t* source) const { zip_source_free(source); }
};
struct FileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;
using Source = std::unique_ptr<zip_source_t, SourceFreer>;
using File = std::unique_ptr<zip_file_t, FileCloser>;

std::string libzip_message(zip_error_t* error) {
  std::string message = zip_error_strerror(error);
  zip_error_fini(error);
  return message;
}

Status write_failed(const std::string& what) {
  return Status(Error::kInternal, "cannot build the ETRecord archive: " + what);
}

// A relative path of printable characters with no ".." component: entry
// names may end up in messages and, for tools that extract, in paths.
bool safe_entry_name(std::string_view name) {
  if (name.empty() || name.size() > 1024 || name.front() == '/') return false;
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    if (name.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

StatusOr<std::vector<std::uint8_t>> write_zip(const ZipEntries& entries) {
  // Never an archive the reader would refuse.
  if (entries.size() > kMaxZipEntries) {
    return write_failed("the archive would have " + std::to_string(entries.size()) +
                        " entries; at most " + std::to_string(kMaxZipEntries) + " are read back");
  }
  zip_error_t error;
  zip_error_init(&error);
  Source buffer(zip_source_buffer_create(nullptr, 0, 0, &error));
  if (!buffer) return write_failed(libzip_message(&error));
  // The archive takes a reference on open and drops it on close; ours keeps
  // the buffer alive so the finished bytes can be read back.
  zip_source_keep(buffer.get());
  Archive archive(zip_open_from_source(buffer.get(), ZIP_TRUNCATE, &error));
  if (!archive) {
    zip_source_free(buffer.get());  // The reference the failed open did not take.
    return write_failed(libzip_message(&error));
  }
  for (const auto& [name, data] : entries) {
    // libzip copies nothing: `data` stays alive until zip_close below.
    zip_source_t* source = zip_source_buffer(archive.get(), data.data(), data.size(), 0);
    if (source == nullptr) return write_failed(zip_strerror(archive.get()));
    const zip_int64_t index = zip_file_add(archive.get(), name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      return write_failed(zip_strerror(archive.get()));
    }
    if (zip_file_set_dostime(archive.get(), static_cast<zip_uint64_t>(index), kDosTime, kDosDate,
                             0) != 0) {
      return write_failed(zip_strerror(archive.get()));
    }
  }
  if (zip_close(archive.get()) != 0) return write_failed(zip_strerror(archive.get()));
  archive.release();  // zip_close freed it.

  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_source_open(buffer.get()) != 0) return write_failed("cannot reopen the buffer");
  std::vector<std::uint8_t> bytes;
  if (zip_source_stat(buffer.get(), &stat) == 0 && (stat.valid & ZIP_STAT_SIZE) != 0) {
    bytes.resize(stat.size);
    const zip_int64_t read = zip_source_read(buffer.get(), bytes.data(), bytes.size());
    if (read < 0 || static_cast<zip_uint64_t>(read) != stat.size) bytes.clear();
  }
  zip_source_close(buffer.get());
  if (bytes.empty()) return write_failed("cannot read the finished archive back");
  return bytes;
}

StatusOr<ZipEntries> read_zip(std::span<const std::uint8_t> archive_bytes, std::string_view source,
                              const ZipLimits& limits) {
  auto corrupt = [&](const std::string& problem) {
    return Status(Error::kCorruptData, std::string(source) + ": " + problem);
  };
  zip_error_t error;
  zip_error_init(&error);
  // The buffer source reads `archive_bytes` in place; it must not be freed
  // by libzip (freep = 0).
  Source buffer(zip_source_buffer_create(archive_bytes.data(), archive_bytes.size(), 0, &error));
  if (!buffer) return corrupt("cannot read: " + libzip_message(&error));
  Archive archive(zip_open_from_source(buffer.get(), ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    return corrupt("not an ETRecord (not a valid zip archive: " + libzip_message(&error) + ")");
  }
  buffer.release();  // Owned by the archive now.

  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count < 0 || static_cast<std::uint64_t>(count) > limits.max_entries) {
    return corrupt("the archive has too many entries");
  }
  // First every name and declared size, from the central directory alone:
  // a bomb is refused before a byte is inflated.
  std::vector<std::pair<std::string, std::uint64_t>> declared;
  std::set<std::string, std::less<>> names;
  std::uint64_t total = 0;
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(count); ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), i, 0, &stat) != 0 || (stat.valid & ZIP_STAT_NAME) == 0) {
      return corrupt("entry " + std::to_string(i) +
                     " is unreadable: " + zip_strerror(archive.get()));
    }
    const std::string name = stat.name;
    if (!safe_entry_name(name)) {
      return corrupt("entry " + std::to_string(i) + " has an unsafe name");
    }
    if ((stat.valid & ZIP_STAT_SIZE) == 0 || stat.size > limits.max_entry_bytes) {
      return corrupt("entry '" + name + "' is too large (more than " +
                     std::to_string(limits.max_entry_bytes) + " bytes)");
    }
    total += stat.size;  // cannot wrap: each is at most max_entry_bytes
    if (total > limits.max_total_bytes) {
      return corrupt("the archive expands to more than " + std::to_string(limits.max_total_bytes) +
                     " bytes");
    }
    if (!names.insert(name).second) return corrupt("entry '" + name + "' appears twice");
    declared.emplace_back(name, stat.size);
  }
  ZipEntries entries;
  for (zip_uint64_t i = 0; i < declared.size(); ++i) {
    const auto& [name, size] = declared[i];
    File file(zip_fopen_index(archive.get(), i, 0));
    if (!file) return corrupt("entry '" + name + "': " + zip_strerror(archive.get()));
    // Grown as bytes really arrive (a forged header must not make us
    // allocate its size up front), up to the declared size plus one byte,
    // which shows a longer entry without inflating the rest of it.
    constexpr std::uint64_t kChunk = 64 * 1024;
    std::vector<std::uint8_t> data;
    std::size_t got = 0;
    while (got <= size) {
      data.resize(got + static_cast<std::size_t>(std::min(kChunk, size + 1 - got)));
      const zip_int64_t read = zip_fread(file.get(), data.data() + got, data.size() - got);
      if (read < 0) {
        return corrupt("entry '" + name +
                       "' is corrupt or truncated: " + zip_file_strerror(file.get()));
      }
      if (read == 0) break;
      got += static_cast<std::size_t>(read);
    }
    if (got != size) return corrupt("entry '" + name + "' does not have its declared size");
    data.resize(got);
    entries.emplace(name, std::move(data));
  }
  return entries;
}

}  // namespace glassbox::etrecord::internal
