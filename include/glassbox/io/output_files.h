#pragma once
/// @file
/// The output files of one command, written so that nothing is lost: each
/// is written to a temporary file in its destination's folder and renamed
/// into place only by `commit()`, once the whole command has succeeded. A
/// failed command (an error, a full disk, an exception) leaves every
/// existing file as it was and no new file behind.
///
/// What a destination may be:
/// - a regular file or a new name: replaced atomically, as above;
/// - a symbolic link (or a chain of them): the file it names is replaced
///   atomically (written beside that file, renamed over it) and the link
///   stays a link; a dangling link creates the file it names; a loop of
///   links is an error ("Too many levels of symbolic links");
/// - a character device (/dev/null) or a FIFO: written into directly, as
///   the shell's `>` would: it is never replaced, and it cannot be atomic
///   (a failed command may have written part of its output there; a FIFO
///   blocks the write until a reader opens it);
/// - a directory, block device or socket: refused.
///
///   io::OutputFiles outputs;
///   GLASSBOX_RETURN_IF_ERROR(outputs.refuse_inputs({model_path}));
///   GLASSBOX_ASSIGN_OR_RETURN(std::string gbx, outputs.add(options.output));
///   ... write the program to `gbx` ...
///   GLASSBOX_RETURN_IF_ERROR(outputs.commit());

#include <functional>
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

/// Receives an output piece by piece; an error stops the producer.
using ChunkSink = std::function<Status(std::string_view chunk)>;
/// Writes an output by handing `ChunkSink` its pieces, returning the sink's
/// or its own error.
using ChunkProducer = std::function<Status(const ChunkSink& write)>;

/// write_file for an output too large to hold whole: `produce` hands its
/// pieces to the sink, which appends them to `path`. The same errors.
Status write_file_chunks(const std::string& path, const ChunkProducer& produce);

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
  /// it to (the device or FIFO itself for one of those). Errors
  /// (kInvalidArgument): an empty path, a path given twice, a path that is
  /// one of the inputs given to refuse_inputs, a directory, a block device
  /// or socket; (kAccessFailed, "<path>: cannot write: <reason>") a
  /// destination folder that is missing or not writable, a loop of links.
  StatusOr<std::string> add(const std::string& path);

  /// `status` with every temporary path in its message replaced by the
  /// output it stands for: a writer's error ("cannot write
  /// dir/.out.partial-12-0: No space left on device") names the user's
  /// file instead (dir/out).
  Status name_outputs(const Status& status) const;

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
    std::string path;         ///< As given: messages name it.
    std::string destination;  ///< `path` with its symbolic links followed.
    std::string temporary;    ///< Written, then renamed over destination.
    bool stream = false;      ///< A device or FIFO: temporary == destination.
  };
  Status check_not_input(const std::string& path) const;

  std::vector<Entry> entries_;
  std::vector<std::string> inputs_;
  bool committed_ = false;
};

}  // namespace glassbox::io
