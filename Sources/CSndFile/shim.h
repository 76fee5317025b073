// libsndfile: reading and writing sound files (AIFF, WAV, CAF, FLAC, ...).
#include <sndfile.h>
#include <stddef.h>
#include <stdint.h>

// Captured packets are big-endian; libsndfile takes host-order samples for the little-endian and
// encoded containers. These loops turn one into the other: plain C that the compiler vectorises in a
// release build, and that stays fast in a debug one (the test that writes a WAV take past 4 GiB
// converts a billion samples).

/// `count` big-endian 16-bit samples at `in` to host order at `out`.
static inline void rk_samples_from_big_endian_16(const uint8_t *in, int16_t *out, size_t count) {
    for (size_t index = 0; index < count; index++) {
        out[index] = (int16_t)(uint16_t)((unsigned)in[2 * index] << 8 | in[2 * index + 1]);
    }
}

/// `count` big-endian 32-bit words (int32 samples, or float samples' bits) at `in` to host order at `out`.
static inline void rk_samples_from_big_endian_32(const uint8_t *in, uint32_t *out, size_t count) {
    for (size_t index = 0; index < count; index++) {
        out[index] = (uint32_t)in[4 * index] << 24 | (uint32_t)in[4 * index + 1] << 16
                   | (uint32_t)in[4 * index + 2] << 8 | (uint32_t)in[4 * index + 3];
    }
}
