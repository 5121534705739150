// One block of a random bulk sweep (roofline_bulk/stimulus.py), in C: the same draws from the same
// PCG64 stream in the same order, so a seed and a vector number name the same vector as before.
//
// numpy made a block in about 6 ms, most of a sweep helper's CPU and more than the simulator spent
// on the block; this kernel makes it in a small fraction of that. tests/bulk/test_stimulus_kernel.py
// holds it to the numpy reference it replaced (tests/support/numpy_stimulus.py), block for block, at
// every width, fraction and level count the sweeps take.
//
// Each draw below mirrors one numpy call of the reference, which draws a whole array at a time:
//   uniform(bits, m)      m raw outputs, each shifted right by 64 - bits
//   below(choices, m)     ceil(m/2) raw outputs read as 2m little-endian 32-bit halves, the first
//                         m of them, each (half * choices) >> 32
//   log_uniform(bits, m)  below(bits + 1, m) bit lengths l, then m raw outputs: 2^(l-1) | the raw
//                         value's low l-1 bits (0 for l = 0)
// All arithmetic is modulo 2^64, as numpy's uint64 is; a shift by 64 or more gives 0, as numpy's.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

enum { UNIFORM, LOG_UNIFORM, NEAR_RIDGE, RESIDUE, EXTREME, ZERO, KINDS };
// A kind is drawn as one of 12 equally likely slots: the kinds' shares in twelfths.
static const uint8_t KIND_SLOTS[12] = {UNIFORM,    LOG_UNIFORM, LOG_UNIFORM, LOG_UNIFORM, NEAR_RIDGE, NEAR_RIDGE,
                                       NEAR_RIDGE, RESIDUE,     RESIDUE,     RESIDUE,     EXTREME,    ZERO};

// numpy's PCG64: a 128-bit LCG stepped before each output, XSL-RR output. A step waits on the one
// before it, so `fill` runs four lanes of the same stream, each four steps ahead at a time (the
// LCG's jump: state * a^4 + c * (a^3 + a^2 + a + 1)), and outputs them in stream order.
#define PCG_MULTIPLIER (((u128)0x2360ED051FC65DA4ULL << 64) | 0x4385DF649FCCF645ULL)
#define LANES 4

typedef struct {
    u128 state, inc;
    u128 jump_multiplier, jump_increment;  // LANES steps at once
} pcg64;

static pcg64 pcg64_seeded(u128 state, u128 inc) {
    pcg64 rng = {state, inc, 1, 0};
    for (int step = 0; step < LANES; step++) {
        rng.jump_increment = rng.jump_increment * PCG_MULTIPLIER + inc;
        rng.jump_multiplier *= PCG_MULTIPLIER;
    }
    return rng;
}

static inline uint64_t output(u128 state) {
    const uint64_t folded = (uint64_t)(state >> 64) ^ (uint64_t)state;
    const unsigned rotation = (unsigned)(state >> 122);
    return (folded >> rotation) | (folded << ((64 - rotation) & 63));
}

static inline uint64_t next_raw(pcg64* rng) {
    rng->state = rng->state * PCG_MULTIPLIER + rng->inc;
    return output(rng->state);
}

// The stream's next n outputs into out.
static void fill(pcg64* rng, size_t n, uint64_t* out) {
    size_t i = 0;
    u128 state = rng->state;
    if (n >= 2 * LANES) {  // the lanes written out: kept in registers, not in an array
        const u128 multiplier = rng->jump_multiplier, increment = rng->jump_increment;
        u128 lane0 = state * PCG_MULTIPLIER + rng->inc;
        u128 lane1 = lane0 * PCG_MULTIPLIER + rng->inc;
        u128 lane2 = lane1 * PCG_MULTIPLIER + rng->inc;
        u128 lane3 = lane2 * PCG_MULTIPLIER + rng->inc;
        for (; i + LANES <= n; i += LANES) {
            out[i] = output(lane0);
            out[i + 1] = output(lane1);
            out[i + 2] = output(lane2);
            out[i + 3] = output(lane3);
            state = lane3;
            lane0 = lane0 * multiplier + increment;
            lane1 = lane1 * multiplier + increment;
            lane2 = lane2 * multiplier + increment;
            lane3 = lane3 * multiplier + increment;
        }
    }
    for (; i < n; i++) {
        state = state * PCG_MULTIPLIER + rng->inc;
        out[i] = output(state);
    }
    rng->state = state;
}

static inline uint64_t shr(uint64_t value, uint64_t shift) { return shift >= 64 ? 0 : value >> shift; }

static inline uint64_t shl(uint64_t value, uint64_t shift) { return shift >= 64 ? 0 : value << shift; }

static void uniform(pcg64* rng, int bits, size_t m, uint64_t* out) {
    fill(rng, m, out);
    for (size_t i = 0; i < m; i++) out[i] = shr(out[i], (uint64_t)(64 - bits));
}

static void below(pcg64* rng, uint64_t choices, size_t m, uint64_t* out) {
    const size_t raws = (m + 1) / 2;
    uint64_t* raw = out + m - raws;  // the raw outputs in the top of out, read before they are written over
    fill(rng, raws, raw);
    for (size_t j = 0; j < m / 2; j++) {  // out[2j], out[2j + 1] lie below raw[j + 1]: written after it is read
        const uint64_t value = raw[j];
        out[2 * j] = ((value & 0xFFFFFFFFULL) * choices) >> 32;
        out[2 * j + 1] = ((value >> 32) * choices) >> 32;
    }
    if (m % 2) out[m - 1] = ((raw[m / 2] & 0xFFFFFFFFULL) * choices) >> 32;
}

static void log_uniform(pcg64* rng, int bits, size_t m, uint64_t* out, uint64_t* raw) {
    below(rng, (uint64_t)bits + 1, m, out);
    fill(rng, m, raw);
    for (size_t i = 0; i < m; i++) {
        const uint64_t length = out[i];
        const uint64_t top_bit = length ? (uint64_t)1 << (length - 1) : 0;
        out[i] = (raw[i] & (top_bit ? top_bit - 1 : 0)) | top_bit;
    }
}

typedef struct {
    int width, frac_bits, int_bits, newton_steps;
    uint64_t max_raw, one;
} format;

typedef struct {
    uint64_t *a, *b, *c, *d, *e;  // scratch arrays of one block each
    uint64_t* raw;                // log_uniform's raw outputs
    uint32_t* rows;  // row numbers of a block: a block is far below 2^32 vectors
} scratch;

// near_ridge: ai = floor(peak * 2^F / bw) + {-1, 0, 1}, clipped to the format.
static void near_ridge(pcg64* rng, const format* fmt, const uint64_t* peak, const uint32_t* rows, size_t m, uint64_t* bw,
                       uint64_t* ai, size_t stride, scratch* s) {
    log_uniform(rng, fmt->width, m, s->a, s->raw);
    if (fmt->width + fmt->frac_bits > 62) {
        log_uniform(rng, fmt->width, m, s->b, s->raw);
        for (size_t i = 0; i < m; i++) bw[rows[i] * stride] = s->a[i], ai[rows[i] * stride] = s->b[i];
        return;
    }
    below(rng, 3, m, s->b);
    for (size_t i = 0; i < m; i++) {
        const uint64_t divisor = s->a[i] | (s->a[i] == 0);
        int64_t value = (int64_t)((peak[rows[i]] << fmt->frac_bits) / divisor) + (int64_t)s->b[i] - 1;
        if (value < 0) value = 0;
        if (value > (int64_t)fmt->max_raw) value = (int64_t)fmt->max_raw;
        bw[rows[i] * stride] = divisor;
        ai[rows[i] * stride] = (uint64_t)value;
    }
}

// residue: ai odd, bw = ai^-1 * target (mod 2^F) puts ai*bw on a chosen residue; returns peak + 1
// (the level's override) in `override` at each row.
static void residue(pcg64* rng, const format* fmt, const uint32_t* rows, size_t m, uint64_t* bw, uint64_t* ai,
                    size_t stride, uint64_t* override, scratch* s) {
    const int w = fmt->width, f = fmt->frac_bits;
    uint64_t *ai_bits = s->a, *ai_values = s->b, *choice = s->c, *high_bits = s->d, *bw_values = s->e;
    below(rng, (uint64_t)w, m, ai_bits);
    uniform(rng, w, m, ai_values);
    for (size_t i = 0; i < m; i++) ai_values[i] = shr(ai_values[i], (uint64_t)w - (ai_bits[i] + 1)) | 1;
    below(rng, 5, m, choice);
    below(rng, (uint64_t)fmt->int_bits + 1, m, high_bits);
    uniform(rng, w, m, bw_values);
    const uint64_t modulus = (f >= 64 ? 0 : (uint64_t)1 << f), mask = modulus - 1, half = (uint64_t)1 << (f - 1);
    const uint64_t targets[5] = {mask, 1, half, (half - 1) & mask, (half + 1) & mask};
    for (size_t i = 0; i < m; i++) {
        const uint64_t a = ai_values[i];
        uint64_t inverse = a;  // right in the low 3 bits: Newton doubles the right bits each step
        for (int step = 0; step < fmt->newton_steps; step++) inverse *= 2 - a * inverse;
        const uint64_t spare = (uint64_t)w - (ai_bits[i] + 1);
        const uint64_t high = high_bits[i] < spare ? high_bits[i] : spare;
        const uint64_t b = shl(shr(bw_values[i], (uint64_t)w - high), (uint64_t)f) | ((inverse * targets[choice[i]]) & mask);
        const uint64_t ridge = (uint64_t)(((u128)a * b) >> f) + (choice[i] == 0);
        bw[rows[i] * stride] = b;
        ai[rows[i] * stride] = a;
        bw_values[i] = ridge;  // the ridge, kept until the random peaks below are drawn
    }
    log_uniform(rng, w, m, s->a, s->raw);
    for (size_t i = 0; i < m; i++) {
        const int on_ridge = choice[i] < 2 && bw_values[i] <= fmt->max_raw;
        override[rows[i]] = (on_ridge ? bw_values[i] : s->a[i]) + 1;
    }
}

// One level's bw and ai (every `stride`-th element from bw and ai), each vector built for its kind;
// override[i] is peak + 1 where the level sets peak, else 0.
static void level(pcg64* rng, const format* fmt, const uint64_t* peak, const uint8_t* kinds, size_t n, uint64_t* bw,
                  uint64_t* ai, size_t stride, uint64_t* override, scratch* s) {
    memset(override, 0, n * sizeof *override);
    // Each kind's rows in ascending order, as numpy's flatnonzero gave them: a count of each kind, then
    // one pass that places every row after the rows of the kinds before its own.
    size_t start[KINDS + 1] = {0}, next[KINDS];
    for (size_t i = 0; i < n; i++) start[kinds[i] + 1]++;
    for (int kind = 0; kind < KINDS; kind++) start[kind + 1] += start[kind];
    memcpy(next, start, sizeof next);
    for (size_t i = 0; i < n; i++) s->rows[next[kinds[i]]++] = (uint32_t)i;
    for (int kind = 0; kind < KINDS; kind++) {
        const uint32_t* rows = s->rows + start[kind];
        const size_t m = start[kind + 1] - start[kind];
        switch (kind) {
            case UNIFORM:
            case LOG_UNIFORM:
                if (kind == UNIFORM) {
                    uniform(rng, fmt->width, m, s->a);
                    uniform(rng, fmt->width, m, s->b);
                } else {
                    log_uniform(rng, fmt->width, m, s->a, s->raw);
                    log_uniform(rng, fmt->width, m, s->b, s->raw);
                }
                for (size_t i = 0; i < m; i++) bw[rows[i] * stride] = s->a[i], ai[rows[i] * stride] = s->b[i];
                break;
            case NEAR_RIDGE:
                near_ridge(rng, fmt, peak, rows, m, bw, ai, stride, s);
                break;
            case RESIDUE:
                residue(rng, fmt, rows, m, bw, ai, stride, override, s);
                break;
            case EXTREME: {
                const uint64_t corners[5] = {0, 1, fmt->one, fmt->max_raw - 1, fmt->max_raw};
                below(rng, 5, m, s->a);
                below(rng, 5, m, s->b);
                below(rng, 2, m, s->c);
                below(rng, 5, m, s->d);
                for (size_t i = 0; i < m; i++) {
                    bw[rows[i] * stride] = corners[s->a[i]];
                    ai[rows[i] * stride] = corners[s->b[i]];
                    override[rows[i]] = s->c[i] == 0 ? corners[s->d[i]] + 1 : 0;
                }
                break;
            }
            case ZERO:
                log_uniform(rng, fmt->width, m, s->a, s->raw);
                log_uniform(rng, fmt->width, m, s->b, s->raw);
                below(rng, 3, m, s->c);
                for (size_t i = 0; i < m; i++) {
                    bw[rows[i] * stride] = s->c[i] == 0 ? 0 : s->a[i];
                    ai[rows[i] * stride] = s->c[i] == 1 ? 0 : s->b[i];
                    if (s->c[i] == 2) override[rows[i]] = 1;  // peak = 0
                }
                break;
        }
    }
}

// For about one vector in eight, one level gets the same ai*bw as another (ai and bw exchanged in
// half of them: the same product from other inputs).
static void level_ties(pcg64* rng, size_t n, int levels, uint64_t* bws, uint64_t* ais, scratch* s) {
    uint64_t *tie = s->a, *source = s->b, *offset = s->c, *swap = s->d;
    below(rng, 8, n, tie);
    below(rng, (uint64_t)levels, n, source);
    below(rng, (uint64_t)levels - 1, n, offset);
    below(rng, 2, n, swap);
    for (size_t i = 0; i < n; i++) {
        if (tie[i] != 0) continue;
        const size_t from = i * (size_t)levels + source[i];
        const size_t to = i * (size_t)levels + (source[i] + 1 + offset[i]) % (uint64_t)levels;
        const uint64_t bw = bws[from], ai = ais[from];
        bws[to] = swap[i] == 0 ? ai : bw;
        ais[to] = swap[i] == 0 ? bw : ai;
    }
}

// Scratch memory for blocks of n vectors, kept from one call to the next (a block's worth is 5 MB:
// allocated afresh, its page faults cost as much as the block's arithmetic), one set per thread (a
// Dask worker runs tasks in threads, and ctypes lets them call in at once). Returns 1 when it
// cannot be had.
static int reserve(size_t n, scratch* s, uint64_t** override, uint8_t** kinds, uint8_t** anchored) {
    static __thread size_t capacity;
    static __thread uint8_t* memory;
    if (n > UINT32_MAX) return 1;  // rows are numbered in 32 bits
    const size_t words = 7 * n, bytes = words * 8 + n * sizeof(uint32_t) + 2 * n;
    if (n > capacity) {
        free(memory);
        memory = malloc(bytes);
        capacity = memory ? n : 0;
        if (!memory) return 1;
    }
    uint64_t* word = (uint64_t*)memory;
    *s = (scratch){word, word + n, word + 2 * n, word + 3 * n, word + 4 * n, word + 5 * n, (uint32_t*)(word + words)};
    *override = word + 6 * n;
    *kinds = (uint8_t*)(s->rows + n);
    *anchored = *kinds + n;
    return 0;
}

// The block: peak (n), bws and ais (n x levels, row-major), from the PCG64 state numpy seeded.
// Returns 0, or 1 when its scratch memory cannot be had.
int roofline_random_block(uint64_t state_hi, uint64_t state_lo, uint64_t inc_hi, uint64_t inc_lo, int width, int frac_bits,
                          int newton_steps, int levels, size_t n, uint64_t* peak, uint64_t* bws, uint64_t* ais) {
    pcg64 rng = pcg64_seeded(((u128)state_hi << 64) | state_lo, ((u128)inc_hi << 64) | inc_lo);
    const format fmt = {width,
                        frac_bits,
                        width - frac_bits,
                        newton_steps,
                        width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1,
                        (uint64_t)1 << frac_bits};
    scratch s;
    uint64_t* override;
    uint8_t *kinds, *anchored;
    const int failed = reserve(n, &s, &override, &kinds, &anchored);
    if (!failed) {
        memset(anchored, 0, n);
        log_uniform(&rng, width, n, peak, s.raw);
        for (int lvl = 0; lvl < levels; lvl++) {
            below(&rng, 12, n, s.a);
            for (size_t i = 0; i < n; i++) kinds[i] = KIND_SLOTS[s.a[i]];
            level(&rng, &fmt, peak, kinds, n, bws + lvl, ais + lvl, (size_t)levels, override, &s);
            // A level that chose peak (or was built around it) anchors it: later levels keep it. No branch
            // on the (random) override: the new peak is selected with a mask.
            const uint8_t later = lvl > 0, anchors = lvl < levels - 1;
            for (size_t i = 0; i < n; i++) {
                const uint8_t takes_peak = (override[i] != 0) & !(later & anchored[i]);
                const uint64_t take = (uint64_t)0 - takes_peak;
                peak[i] = (peak[i] & ~take) | ((override[i] - 1) & take);
                anchored[i] |= anchors & (takes_peak | (kinds[i] == NEAR_RIDGE));
            }
        }
        if (levels > 1) level_ties(&rng, n, levels, bws, ais, &s);
    }
    return failed;
}
