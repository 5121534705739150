// File I/O of roofline_bulk_tb on Verilator, through DPI: one read of the whole batch file and
// one write of all results, instead of $fread's and $fwrite's character-at-a-time stdio
// calls (a locked fgetc per byte once the simulator process has a second thread).
// The files have exactly the layout the $fread/$fwrite path reads and writes on Icarus.
#include <svdpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {
std::vector<unsigned char> g_input;
size_t g_input_pos = 0;
std::vector<unsigned char> g_output;
std::string g_output_path;
}  // namespace

// Loads the whole input file; returns 0 when it cannot be read.
extern "C" int roofline_bulk_open(const char* in_path, const char* out_path) {
    g_input.clear();
    g_input_pos = 0;
    g_output.clear();
    g_output_path = out_path;
    FILE* file = std::fopen(in_path, "rb");
    if (file == nullptr) return 0;
    unsigned char chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0) g_input.insert(g_input.end(), chunk, chunk + got);
    std::fclose(file);
    return 1;
}

// The next beat of `bytes` bytes, stored big-endian in the file (as $fread reads it).
extern "C" int roofline_bulk_read(svBitVecVal* beat, int bytes) {
    if (g_input_pos + static_cast<size_t>(bytes) > g_input.size()) return 0;
    const unsigned char* data = &g_input[g_input_pos];
    g_input_pos += bytes;
    for (int word = 0; word < (bytes + 3) / 4; ++word) beat[word] = 0;
    for (int i = 0; i < bytes; ++i) {
        const int significance = bytes - 1 - i;
        beat[significance / 4] |= static_cast<svBitVecVal>(data[i]) << (8 * (significance % 4));
    }
    return 1;
}

// Appends one result beat of `bytes` bytes, little-endian (as $fwrite's %u writes it).
extern "C" void roofline_bulk_write(const svBitVecVal* beat, int bytes) {
    for (int i = 0; i < bytes; ++i) g_output.push_back(static_cast<unsigned char>(beat[i / 4] >> (8 * (i % 4))));
}

// Writes every result beat at once; returns 0 when the file cannot be written.
extern "C" int roofline_bulk_close() {
    FILE* file = std::fopen(g_output_path.c_str(), "wb");
    if (file == nullptr) return 0;
    const bool ok = std::fwrite(g_output.data(), 1, g_output.size(), file) == g_output.size();
    return (std::fclose(file) == 0 && ok) ? 1 : 0;
}
