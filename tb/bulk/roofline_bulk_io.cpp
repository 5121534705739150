// File I/O of roofline_bulk_tb on Verilator, through DPI: one read of the whole batch file and
// one write of all results, instead of $fread's and $fwrite's character-at-a-time stdio
// calls (a locked fgetc per byte once the simulator process has a second thread).
//
// The files hold one little-endian 64-bit word per field, so that numpy writes and reads them
// as plain arrays and the bit packing happens here, in C++ (roofline_bulk/wire.py, "columns"):
//   input:  per vector, its lane's fields in beat order (ai[0..L-1], bw[0..L-1], peak);
//   output: per vector, cap, mem_bound and, for the hierarchy, binding and level_cap[0..L-1].
// Icarus has no DPI and reads and writes the packed beats of the wrapper's header instead.
#include <svdpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {
std::vector<uint64_t> g_input;
size_t g_input_pos = 0;
std::vector<uint64_t> g_output;
std::string g_output_path;

// The `width`-bit field at bit `offset` of a beat stored in 32-bit words (width <= 64).
uint64_t get_field(const svBitVecVal* beat, int offset, int width) {
    uint64_t value = 0;
    for (int got = 0; got < width;) {
        const int bit = offset + got, shift = bit % 32, take = std::min(32 - shift, width - got);
        const uint64_t part = (static_cast<uint64_t>(beat[bit / 32]) >> shift) & ((1ULL << take) - 1);
        value |= part << got;
        got += take;
    }
    return value;
}

void put_field(svBitVecVal* beat, int offset, int width, uint64_t value) {
    for (int put = 0; put < width;) {
        const int bit = offset + put, shift = bit % 32, take = std::min(32 - shift, width - put);
        beat[bit / 32] |= static_cast<svBitVecVal>(((value >> put) & ((1ULL << take) - 1)) << shift);
        put += take;
    }
}
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
    for (int word = 0; word < (beat_bits + 31) / 32; ++word) beat[word] = 0;
    const uint64_t* fields = &g_input[g_input_pos];
    g_input_pos += count;
    for (int i = 0; i < count; ++i) put_field(beat, i * width, width, fields[i]);
    return 1;
}

// Appends one result beat: `lanes` lanes of result_bits bits each, lane 0 lowest, each lane's
// fields cap (width), mem_bound (1) and, when levels > 0, binding (index_bits) and levels level
// caps (width).
extern "C" void roofline_bulk_write(const svBitVecVal* beat, int lanes, int width, int levels, int index_bits) {
    const int result_bits = width + 1 + (levels > 0 ? index_bits + levels * width : 0);
    for (int lane = 0; lane < lanes; ++lane) {
        int offset = lane * result_bits;
        g_output.push_back(get_field(beat, offset, width));
        g_output.push_back(get_field(beat, offset + width, 1));
        offset += width + 1;
        if (levels == 0) continue;
        g_output.push_back(get_field(beat, offset, index_bits));
        offset += index_bits;
        for (int level = 0; level < levels; ++level, offset += width) g_output.push_back(get_field(beat, offset, width));
    }
}

// Writes every result at once; returns 0 when the file cannot be written.
extern "C" int roofline_bulk_close() {
    FILE* file = std::fopen(g_output_path.c_str(), "wb");
    if (file == nullptr) return 0;
    const bool ok = std::fwrite(g_output.data(), sizeof(uint64_t), g_output.size(), file) == g_output.size();
    return (std::fclose(file) == 0 && ok) ? 1 : 0;
}
