// lct_writer.cpp: formats CUPTI activity records (kernel, memcpy, memset, NVTX marker) as `.lct` lines.
// The line layouts are traces/FORMAT.md section 1; this file is their only writer.
#include "lct_writer.h"

#include <unistd.h>

#include <cinttypes>
#include <ctime>
#include <fstream>
#include <iterator>

namespace loom::collector {
namespace {

// Names go last on a line and must stay one field: tabs and line breaks become spaces.
std::string clean(const char* text) {
  if (text == nullptr || *text == '\0') return "?";
  std::string out(text);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return clean(raw.c_str());
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

LctWriter* LctWriter::open(const std::string& path, std::string* error) {
  FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    *error = "cannot create " + path;
    return nullptr;
  }
  std::setvbuf(file, nullptr, _IOFBF, 1 << 20);
  return new LctWriter(file, path);
}

void LctWriter::ensure_header_locked() {
  if (header_written_) return;
  header_written_ = true;
  const DeviceInfo dev = query_device_info();
  std::fprintf(file_, "#loom-cupti 1\n");
  std::fprintf(file_, "#gpu=%s\n", clean(dev.name.c_str()).c_str());
  std::fprintf(file_, "#sms=%d\n#cc=%d\n#driver=%d\n", dev.sms, dev.cc, dev.driver_version);
  std::fprintf(file_, "#cuda_runtime=%d\n#cuda_runtime_source=%s\n", dev.runtime_version,
               dev.runtime_source.c_str());
  std::fprintf(file_, "#clock_mhz=%d\n#l2_bytes=%" PRId64 "\n", dev.clock_mhz, dev.l2_bytes);
  std::fprintf(file_, "#date=%s\n#pid=%d\n", utc_now().c_str(), static_cast<int>(getpid()));
  std::fprintf(file_, "#command=%s\n", command_line().c_str());
}

void LctWriter::consume_buffer(uint8_t* buffer, size_t valid_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  ensure_header_locked();
  CUpti_Activity* record = nullptr;
  while (true) {
    CUptiResult status = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
    if (status == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (status != CUPTI_SUCCESS) {
      ++unparsed_;
      break;
    }
    write_record_locked(record);
  }
  std::fflush(file_);
}

void LctWriter::add_dropped(size_t dropped) {
  std::lock_guard<std::mutex> lock(mutex_);
  dropped_ += dropped;
}

void LctWriter::write_record_locked(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      // CUpti_ActivityKernel10 is the newest kernel record in CUPTI 13.0's cupti_activity.h.
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::fprintf(file_,
                   "K\t%" PRIu64 "\t%" PRIu64 "\t%u\t%u\t%u\t%u\t%" PRIu64 "\t%d\t%d\t%d\t%d\t%d\t%d\t%u\t%d\t%d\t%s\n",
                   k->start, k->end, k->deviceId, k->contextId, k->streamId, k->correlationId, k->graphNodeId,
                   k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
                   static_cast<unsigned>(k->registersPerThread), k->staticSharedMemory, k->dynamicSharedMemory,
                   clean(k->name).c_str());
      ++records_;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      std::fprintf(file_, "C\t%" PRIu64 "\t%" PRIu64 "\t%u\t%u\t%u\t%" PRIu64 "\t%u\n", m->start, m->end,
                   m->deviceId, m->streamId, m->correlationId, m->bytes, static_cast<unsigned>(m->copyKind));
      ++records_;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      std::fprintf(file_, "S\t%" PRIu64 "\t%" PRIu64 "\t%u\t%u\t%u\t%" PRIu64 "\n", m->start, m->end, m->deviceId,
                   m->streamId, m->correlationId, m->bytes);
      ++records_;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER:
      write_marker_locked(reinterpret_cast<const CUpti_ActivityMarker2*>(record));
      break;
    default:
      break;  // other kinds (e.g. MARKER_DATA) are not part of the format
  }
}

// Push/pop and start/end ranges arrive as a START record (with the name) and an END record (same id, no name).
// One `R` line is written once both ends are known, in whichever order they arrive.
void LctWriter::write_marker_locked(const CUpti_ActivityMarker2* marker) {
  const bool is_start = (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0;
  const bool is_end = (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0;
  if (!is_start && !is_end) return;  // instantaneous markers carry no duration
  OpenRange& range = open_ranges_[marker->id];
  if (is_start) {
    range.has_start = true;
    range.start_ns = marker->timestamp;
    range.name = clean(marker->name);
  } else {
    range.has_end = true;
    range.end_ns = marker->timestamp;
  }
  if (range.has_start && range.has_end) {
    std::fprintf(file_, "R\t%" PRIu64 "\t%" PRIu64 "\t%u\t%s\n", range.start_ns, range.end_ns, marker->id,
                 range.name.c_str());
    ++records_;
    open_ranges_.erase(marker->id);
  }
}

void LctWriter::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  ensure_header_locked();
  std::fprintf(file_, "#end records=%" PRIu64 " dropped=%" PRIu64 "\n", records_, dropped_);
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace loom::collector
