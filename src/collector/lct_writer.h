// lct_writer.h: turns CUPTI activity buffers into loom's `.lct` text trace (traces/FORMAT.md section 1).
// Thread-safe: CUPTI delivers buffers from its own worker thread and from cuptiActivityFlushAll callers.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace loom::collector {

/// Device facts written into the `.lct` header (queried from the driver once CUDA is initialised).
struct DeviceInfo {
  std::string name = "unknown";
  int sms = 0;
  int cc = 0;             // major*10 + minor
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000
  int runtime_version = 0; // the process's libcudart if one is loaded, else the collector's build toolkit
  std::string runtime_source = "unknown";
  int clock_mhz = 0;       // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz) / 1000
  int64_t l2_bytes = 0;
};

/// Queries device 0 (the first visible one) through the driver API; fields stay at defaults on failure.
DeviceInfo query_device_info();

/// One output file; every public member takes the internal mutex.
class LctWriter {
 public:
  /// Opens `path` for writing; returns nullptr (and sets `error`) when the file cannot be created.
  static LctWriter* open(const std::string& path, std::string* error);

  /// Parses every record of one completed CUPTI buffer and appends the known kinds as lines.
  void consume_buffer(uint8_t* buffer, size_t valid_bytes);

  /// Adds CUPTI's dropped-record count for one buffer's context/stream.
  void add_dropped(size_t dropped);

  /// Writes the header (if not yet), the `#end` line, and closes the file. Idempotent.
  void finish();

  /// Number of record lines written so far.
  uint64_t records() const { return records_; }
  uint64_t dropped() const { return dropped_; }
  /// Buffers whose parsing stopped early on a CUPTI error.
  uint64_t unparsed() const { return unparsed_; }
  /// NVTX ranges whose end was never seen (still open at finish).
  size_t open_ranges() const { return open_ranges_.size(); }
  const std::string& path() const { return path_; }

 private:
  LctWriter(FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  void ensure_header_locked();
  void write_record_locked(const CUpti_Activity* record);
  void write_marker_locked(const CUpti_ActivityMarker2* marker);

  struct OpenRange {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;  // set when the END arrived before the START
    std::string name;
    bool has_start = false;
    bool has_end = false;
  };

  std::mutex mutex_;
  FILE* file_ = nullptr;
  std::string path_;
  bool header_written_ = false;
  bool finished_ = false;
  uint64_t records_ = 0;
  uint64_t dropped_ = 0;
  uint64_t unparsed_ = 0;  // records CUPTI could not hand back (reported in #end as a comment field)
  std::unordered_map<uint32_t, OpenRange> open_ranges_;
};

}  // namespace loom::collector
