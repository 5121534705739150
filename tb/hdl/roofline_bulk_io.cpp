// File I/O of roofline_bulk_tb on Verilator, through DPI: one read of the whole batch file and
// one write of all results, instead of $fread's and $fwrite's character-at-a-time stdio
// calls (a locked fgetc per byte once the simulator process has a second thread).
//
// The files hold one little-endian 64-bit word per field, so that numpy writes and reads them
// as plain arrays and the bit packing happens here, in C++ (roofline_bulk/wire.py, "columns"):
//   input:  per vector, its lane's fields in beat order (ai[0..L-1], bw[0..L-1], peak);
//   output: per vector, cap, mem_bound and, for the hierarchy, binding and level_cap[0..L-1].
// Icarus has no DPI and reads and writes the packed beats of the wrapper's header instead.
#include <fcntl.h>
#include <svdpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {
std::vector<uint64_t> g_input;
size_t g_input_pos = 0;
std::vector<uint64_t> g_output;
std::string g_output_path;

// Packs `count` fields of `width` bits (width <= 64) tight into a beat of 32-bit words, field 0
// lowest, and zeroes the beat's words above them up to `words`.
void pack(svBitVecVal* beat, int words, const uint64_t* fields, int count, int width) {
    const uint64_t mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
    unsigned __int128 pending = 0;  // bits not yet stored, lowest first
    int pending_bits = 0, word = 0;
    for (int i = 0; i < count; ++i) {
        pending |= static_cast<unsigned __int128>(fields[i] & mask) << pending_bits;
        pending_bits += width;
        for (; pending_bits >= 32; pending_bits -= 32, pending >>= 32) beat[word++] = static_cast<svBitVecVal>(pending);
    }
    if (pending_bits > 0) beat[word++] = static_cast<svBitVecVal>(pending);
    while (word < words) beat[word++] = 0;
}

// Reads a beat's fields in order, lowest first, each of the width asked for (<= 64 bits).
class Unpacker {
  public:
    explicit Unpacker(const svBitVecVal* beat) : beat_(beat) {}
    uint64_t next(int width) {
        for (; pending_bits_ < width; pending_bits_ += 32) pending_ |= static_cast<unsigned __int128>(*beat_++) << pending_bits_;
        const uint64_t value = static_cast<uint64_t>(pending_) & (width == 64 ? ~0ULL : (1ULL << width) - 1);
        pending_ >>= width;
        pending_bits_ -= width;
        return value;
    }

  private:
    const svBitVecVal* beat_;
    unsigned __int128 pending_ = 0;
    int pending_bits_ = 0;
};
}  // namespace

// Loads the whole input file; returns 0 when it cannot be read or is not whole words.
extern "C" int roofline_bulk_open(const char* in_path, const char* out_path) {
    g_input.clear();
    g_input_pos = 0;
    g_output.clear();
    g_output_path = out_path;
    FILE* file = std::fopen(in_path, "rb");
    if (file == nullptr) return 0;
    uint64_t chunk[1 << 13];
    size_t got;
    bool whole = true;
    while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
        whole = got % sizeof(uint64_t) == 0;
        g_input.insert(g_input.end(), chunk, chunk + got / sizeof(uint64_t));
    }
    std::fclose(file);
    return whole ? 1 : 0;
}

// The next beat: `count` fields of `width` bits each, packed tight from bit 0 (the wrapper's
// lanes and their fields in order). Returns 0 when the file has fewer fields left.
extern "C" int roofline_bulk_read(svBitVecVal* beat, int beat_bits, int count, int width) {
    if (g_input_pos + static_cast<size_t>(count) > g_input.size()) return 0;
    pack(beat, (beat_bits + 31) / 32, &g_input[g_input_pos], count, width);
    g_input_pos += count;
    return 1;
}

// Appends one result beat: `lanes` lanes of result_bits bits each, lane 0 lowest, each lane's
// fields cap (width), mem_bound (1) and, when levels > 0, binding (index_bits) and levels level
// caps (width).
extern "C" void roofline_bulk_write(const svBitVecVal* beat, int lanes, int width, int levels, int index_bits) {
    const size_t fields = levels > 0 ? 3 + levels : 2;
    size_t at = g_output.size();
    g_output.resize(at + lanes * fields);
    Unpacker unpacker(beat);
    for (int lane = 0; lane < lanes; ++lane) {
        g_output[at++] = unpacker.next(width);
        g_output[at++] = unpacker.next(1);
        if (levels == 0) continue;
        g_output[at++] = unpacker.next(index_bits);
        for (int level = 0; level < levels; ++level) g_output[at++] = unpacker.next(width);
    }
}

// Writes every result at once, over the file's old bytes: the file is reused every few batches,
// and overwriting its cached pages costs a fraction of truncating it first. Returns 0 when the
// file cannot be written.
extern "C" int roofline_bulk_close() {
    const int fd = open(g_output_path.c_str(), O_WRONLY | O_CREAT, 0644);
    if (fd < 0) return 0;
    const char* data = reinterpret_cast<const char*>(g_output.data());
    const size_t size = g_output.size() * sizeof(uint64_t);
    size_t written = 0;
    while (written < size) {
        const ssize_t step = write(fd, data + written, size - written);
        if (step <= 0) break;
        written += static_cast<size_t>(step);
    }
    const bool ok = written == size && ftruncate(fd, static_cast<off_t>(size)) == 0;
    return (close(fd) == 0 && ok) ? 1 : 0;
}
