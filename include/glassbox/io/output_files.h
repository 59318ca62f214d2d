#pragma once
/// @file
/// The output files of one command, written so that nothing is lost: each
/// is written to a temporary file in its destination's folder and renamed
/// into place only by `commit()`, once the whole command has succeeded. A
/// failed command (an error, a full disk, an exception) leaves every
/// existing file as it was and no new file behind.
///
///   io::OutputFiles outputs;
///   GLASSBOX_RETURN_IF_ERROR(outputs.refuse_inputs({model_path}));
///   GLASSBOX_ASSIGN_OR_RETURN(std::string gbx, outputs.add(options.output));
///   ... write the program to `gbx` ...
///   GLASSBOX_RETURN_IF_ERROR(outputs.commit());

#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::io {

/// Whether `a` and `b` name the same file: the same inode when both exist,
/// else the same normalised absolute path.
bool same_file(const std::string& a, const std::string& b);

/// Writes `bytes` to `path` (truncating it), flushed and closed. Errors
/// (kAccessFailed) name the file and the reason ("No space left on
/// device", "Permission denied").
Status write_file(const std::string& path, std::string_view bytes);

/// One output written atomically: an OutputFiles of one file, committed.
/// Errors: kAccessFailed, "<path>: cannot write: <reason>".
Status write_file_atomically(const std::string& path, std::string_view contents);

class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  /// Removes the temporary files of a command that did not commit.
  ~OutputFiles();

  /// Registers `path` as an output and returns the temporary path to write
  /// it to. Errors (kInvalidArgument): an empty path, a path given twice,
  /// a path that is one of the inputs given to refuse_inputs, a directory;
  /// (kAccessFailed) a destination folder that is missing or not writable.
  StatusOr<std::string> add(const std::string& path);

  /// Errors when an output already added, or added later, names the same
  /// file as one of `inputs` (empty strings are skipped): a command must
  /// never overwrite what it reads.
  Status refuse_inputs(const std::vector<std::string>& inputs);

  /// Renames every temporary file over its destination, in the order
  /// added. A temporary file that was never written is an error (the
  /// command forgot an output) and nothing is renamed.
  Status commit();

 private:
  struct Entry {
    std::string path;
    std::string temporary;
  };
  Status check_not_input(const std::string& path) const;

  std::vector<Entry> entries_;
  std::vector<std::string> inputs_;
  bool committed_ = false;
};

}  // namespace glassbox::io
