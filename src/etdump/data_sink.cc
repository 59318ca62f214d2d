#include "glassbox/etdump/data_sink.h"

#include <cstring>
#include <utility>

namespace glassbox::etdump {

DataSink::~DataSink() = default;

Result<BufferDataSink> BufferDataSink::create(Span<std::uint8_t> buffer, std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return make_error(Error::kInvalidArgument, "data sink alignment must be a power of two");
  }
  if (buffer.data() == nullptr && !buffer.empty()) {
    return make_error(Error::kInvalidArgument, "data sink buffer is null");
  }
  return BufferDataSink(buffer, alignment);
}

Result<std::size_t> BufferDataSink::write(const void* data, std::size_t length) {
  if (length == 0) return used_;
  if (data == nullptr) {
    return make_error(Error::kInvalidArgument, "null data with a length");
  }
  const std::size_t start = (used_ + alignment_ - 1) & ~(alignment_ - 1);
  if (start < used_ || start > buffer_.size() || length > buffer_.size() - start) {
    return make_error(Error::kOutOfResources, "debug buffer is full");
  }
  std::memset(buffer_.data() + used_, 0, start - used_);
  std::memcpy(buffer_.data() + start, data, length);
  used_ = start + length;
  return start;
}

Result<FileDataSink> FileDataSink::create(const char* path) {
  if (path == nullptr) {
    return make_error(Error::kInvalidArgument, "null debug data path");
  }
  std::FILE* file = std::fopen(path, "wb");
  if (file == nullptr) {
    return make_error(Error::kAccessFailed, "cannot open the debug data file for writing");
  }
  return FileDataSink(file);
}

FileDataSink::FileDataSink(FileDataSink&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      used_(std::exchange(other.used_, 0)),
      write_failed_(std::exchange(other.write_failed_, false)) {}

FileDataSink& FileDataSink::operator=(FileDataSink&& other) noexcept {
  if (this != &other) {
    (void)close();
    file_ = std::exchange(other.file_, nullptr);
    used_ = std::exchange(other.used_, 0);
    write_failed_ = std::exchange(other.write_failed_, false);
  }
  return *this;
}

FileDataSink::~FileDataSink() { (void)close(); }

Result<std::size_t> FileDataSink::write(const void* data, std::size_t length) {
  if (file_ == nullptr) {
    return make_error(Error::kAccessFailed, "debug data file is closed");
  }
  if (length == 0) return used_;
  if (data == nullptr) {
    return make_error(Error::kInvalidArgument, "null data with a length");
  }
  const std::size_t start = used_;
  if (std::fwrite(data, 1, length, file_) != length) {
    // Rewind so that the next write's offset stays true to the file.
    (void)std::fseek(file_, static_cast<long>(start), SEEK_SET);
    write_failed_ = true;
    return make_error(Error::kAccessFailed, "short write to debug data file");
  }
  used_ += length;
  return start;
}

Error FileDataSink::close() {
  if (file_ == nullptr) return Error::kOk;
  const int rc = std::fclose(file_);
  file_ = nullptr;
  return rc == 0 && !write_failed_ ? Error::kOk : Error::kAccessFailed;
}

}  // namespace glassbox::etdump
