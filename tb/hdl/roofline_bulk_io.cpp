// File I/O of roofline_bulk_tb on Verilator, through DPI: a batch's two files are mapped into
// memory, and each beat is one copy from the input file or into the output file, instead of
// $fread's and $fwrite's character-at-a-time stdio calls (a locked fgetc per byte once the
// simulator process has a second thread).
//
// The files hold one little-endian 64-bit word per field (roofline_bulk/beats.py, "columns"), and
// on Verilator so do the wrapper's beats: each field has a 64-bit word of its own, lane 0 lowest.
// A beat is therefore the file's next words as they lie, and nothing is packed or unpacked here:
//   input:  per vector, its lane's fields in beat order (ai[0..L-1], bw[0..L-1], peak);
//   output: per vector, cap, mem_bound and, for the hierarchy, binding and level_cap[0..L-1].
// Icarus has no DPI and reads and writes the packed beats of the wrapper's header instead.
//
// Each file stays mapped from one batch to the next (the helpers reuse SLOTS pairs of files),
// so a batch costs no page faults once every slot has been used; a file whose size changed
// (the last, shorter batch) is mapped again.
#include <fcntl.h>
#include <svdpi.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

namespace {
struct Mapping {
    dev_t device = 0;
    ino_t inode = 0;
    size_t size = 0;
    uint8_t* data = nullptr;
};

std::map<std::string, Mapping> g_mappings;  // by path: at most 2 * SLOTS files
const uint8_t* g_input = nullptr;
size_t g_input_size = 0, g_input_pos = 0;
uint8_t* g_output = nullptr;
size_t g_output_size = 0, g_output_pos = 0;
bool g_output_overflowed = false;

// `path` mapped whole (writable for the output); the same mapping as last time when the file is
// the same file of the same size. Returns nullptr when it cannot be mapped.
uint8_t* map_file(const std::string& path, int fd, size_t size, bool writable) {
    struct stat info {};
    if (fstat(fd, &info) != 0 || static_cast<size_t>(info.st_size) != size || size == 0) return nullptr;
    Mapping& mapping = g_mappings[path];
    if (mapping.data != nullptr && mapping.device == info.st_dev && mapping.inode == info.st_ino && mapping.size == size)
        return mapping.data;
    if (mapping.data != nullptr) munmap(mapping.data, mapping.size);
    void* data = mmap(nullptr, size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    mapping = Mapping{};
    if (data == MAP_FAILED) return nullptr;
    mapping = Mapping{info.st_dev, info.st_ino, size, static_cast<uint8_t*>(data)};
    return mapping.data;
}
}  // namespace

// Maps the batch's input file and sizes and maps its output file for `out_beats` beats of
// `out_words` 32-bit words. Returns 0 when either cannot be, or the input is not whole words.
extern "C" int roofline_bulk_open(const char* in_path, const char* out_path, int out_beats, int out_words) {
    g_input = g_output = nullptr;
    g_input_size = g_input_pos = g_output_size = g_output_pos = 0;
    g_output_overflowed = false;
    const int in_fd = open(in_path, O_RDONLY);
    if (in_fd < 0) return 0;
    struct stat info {};
    const bool sized = fstat(in_fd, &info) == 0 && info.st_size % sizeof(uint64_t) == 0;
    g_input_size = sized ? static_cast<size_t>(info.st_size) : 0;
    g_input = sized ? map_file(in_path, in_fd, g_input_size, false) : nullptr;
    close(in_fd);
    if (g_input == nullptr) return 0;
    const int out_fd = open(out_path, O_RDWR | O_CREAT, 0644);
    if (out_fd < 0) return 0;
    // Sized, not truncated first: the file is reused every few batches, and its cached pages
    // (mapped here already) are overwritten in place.
    g_output_size = static_cast<size_t>(out_beats) * static_cast<size_t>(out_words) * 4;
    const bool resized = fstat(out_fd, &info) == 0 &&
                         (static_cast<size_t>(info.st_size) == g_output_size ||
                          ftruncate(out_fd, static_cast<off_t>(g_output_size)) == 0);
    g_output = resized ? map_file(out_path, out_fd, g_output_size, true) : nullptr;
    close(out_fd);
    return g_output != nullptr ? 1 : 0;
}

// The next beat of `words` 32-bit words. Returns 0 when the file has fewer left.
extern "C" int roofline_bulk_read(svBitVecVal* beat, int words) {
    const size_t bytes = static_cast<size_t>(words) * 4;
    if (g_input == nullptr || g_input_pos + bytes > g_input_size) return 0;
    std::memcpy(beat, g_input + g_input_pos, bytes);
    g_input_pos += bytes;
    return 1;
}

// Appends one result beat of `words` 32-bit words; past the size given to open, it is dropped
// and roofline_bulk_close fails.
extern "C" void roofline_bulk_write(const svBitVecVal* beat, int words) {
    const size_t bytes = static_cast<size_t>(words) * 4;
    if (g_output == nullptr || g_output_pos + bytes > g_output_size) {
        g_output_overflowed = true;
        return;
    }
    std::memcpy(g_output + g_output_pos, beat, bytes);
    g_output_pos += bytes;
}

// The batch's results are in the output file's pages already (a shared mapping: a reader sees
// them as soon as they are stored). Returns 0 when the file did not get exactly every beat.
extern "C" int roofline_bulk_close() {
    const bool whole = g_output != nullptr && !g_output_overflowed && g_output_pos == g_output_size;
    g_input = g_output = nullptr;
    return whole ? 1 : 0;
}
