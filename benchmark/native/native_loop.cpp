// The practical ceiling of an RTL sweep: roofline_attainable verilated into C++, driven by a
// tight loop with a C++ reference check, no cocotb, no files. Built and timed by bench/run.py.
//
// usage: native_loop <vectors> <seed>; prints "vectors=<n> mismatches=<m> seconds=<s>".
// The reference below is the spec's rule written again in C++ (unsigned __int128), not a
// copy of the RTL: a product at full precision, ai*bw < peak*2^F is memory-bound, and the
// cap rounds to nearest, ties up.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "Vroofline_attainable.h"
#include "verilated.h"

#ifndef INT_BITS
#define INT_BITS 24
#endif
#ifndef FRAC_BITS
#define FRAC_BITS 16
#endif

static constexpr int kWidth = INT_BITS + FRAC_BITS;
static constexpr uint64_t kMask = (kWidth == 64) ? ~0ULL : ((1ULL << kWidth) - 1);

static inline uint64_t xorshift64(uint64_t& state) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

// A value whose bit length is spread over 0..W, as the Python sweeps draw them.
static inline uint64_t spread(uint64_t& state) {
    const uint64_t raw = xorshift64(state);
    return (raw & kMask) >> (raw >> 58 & 63) % (kWidth + 1);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <vectors> <seed>\n", argv[0]);
        return 2;
    }
    const uint64_t vectors = std::strtoull(argv[1], nullptr, 10);
    uint64_t state = std::strtoull(argv[2], nullptr, 10) | 1;
    VerilatedContext context;
    Vroofline_attainable dut{&context};
    uint64_t mismatches = 0;
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < vectors; ++i) {
        const uint64_t peak = spread(state), bw = spread(state), ai = spread(state);
        dut.peak_i = peak;
        dut.bw_i = bw;
        dut.ai_i = ai;
        dut.eval();
        const unsigned __int128 product = static_cast<unsigned __int128>(ai) * bw;
        const bool mem_bound = product < (static_cast<unsigned __int128>(peak) << FRAC_BITS);
        const uint64_t rounded = static_cast<uint64_t>((product + (1ULL << (FRAC_BITS - 1))) >> FRAC_BITS);
        const uint64_t cap = mem_bound ? rounded : peak;
        mismatches += (dut.cap_o != cap) | (dut.mem_bound_o != mem_bound);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    dut.final();
    std::printf("vectors=%llu mismatches=%llu seconds=%.6f\n", static_cast<unsigned long long>(vectors),
                static_cast<unsigned long long>(mismatches), seconds);
    return mismatches == 0 ? 0 : 1;
}
