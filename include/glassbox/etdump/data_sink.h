#pragma once
/// @file
/// Data sinks receive the bytes of logged tensors. The ETDump itself only
/// stores each tensor's dtype, sizes, strides and the `offset` that `write`
/// returned, exactly as ExecuTorch does; the bytes live in the sink's buffer
/// or file (the "debug data"), which `glassbox etdump show --debug-data`
/// and the Inspector read back.

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "glassbox/core/result.h"
#include "glassbox/core/span.h"

namespace glassbox::etdump {

class DataSink {
 public:
  virtual ~DataSink();
  /// Appends `length` bytes and returns the offset where they start. A
  /// failed write leaves the sink as it was.
  virtual Result<std::size_t> write(const void* data, std::size_t length) = 0;
  /// Bytes of the debug data so far (the size to save or read back).
  virtual std::size_t used_bytes() const = 0;
};

/// A sink over a caller-provided buffer. Each write starts at an offset
/// that is a multiple of `alignment` counted from the buffer start (not the
/// absolute address, unlike ExecuTorch, so offsets do not depend on where
/// the buffer happens to sit); padding bytes are zero.
class BufferDataSink final : public DataSink {
 public:
  /// `buffer` must outlive the sink. `alignment` must be a power of two.
  static Result<BufferDataSink> create(Span<std::uint8_t> buffer, std::size_t alignment = 64);

  Result<std::size_t> write(const void* data, std::size_t length) override;
  std::size_t used_bytes() const override { return used_; }
  std::size_t storage_size() const { return buffer_.size(); }
  /// The written part of the buffer.
  Span<const std::uint8_t> data() const { return buffer_.first(used_); }

 private:
  BufferDataSink(Span<std::uint8_t> buffer, std::size_t alignment)
      : buffer_(buffer), alignment_(alignment) {}

  Span<std::uint8_t> buffer_;
  std::size_t alignment_;
  std::size_t used_ = 0;
};

/// A sink that appends to a file, unaligned. Move-only; closes on
/// destruction.
class FileDataSink final : public DataSink {
 public:
  /// Creates or truncates `path`.
  static Result<FileDataSink> create(const char* path);

  FileDataSink(FileDataSink&& other) noexcept;
  FileDataSink& operator=(FileDataSink&& other) noexcept;
  FileDataSink(const FileDataSink&) = delete;
  FileDataSink& operator=(const FileDataSink&) = delete;
  ~FileDataSink() override;

  Result<std::size_t> write(const void* data, std::size_t length) override;
  std::size_t used_bytes() const override { return used_; }
  /// Flushes and closes; later writes fail with Error::kAccessFailed.
  /// Error::kAccessFailed too when any write failed (a full disk): the
  /// file lacks data the ETDump's records point at, which a caller must
  /// not mistake for a complete capture.
  Error close();

 private:
  explicit FileDataSink(std::FILE* file) : file_(file) {}

  std::FILE* file_ = nullptr;
  std::size_t used_ = 0;
  bool write_failed_ = false;
};

}  // namespace glassbox::etdump
