// Text tags of a sound file through TagLib (FLAC and Ogg Vorbis comments, Opus tags, MP3 ID3v2 TXXX frames),
// for Swift: a C interface over TagLib's property map.
#ifndef RK_TAGS_H
#define RK_TAGS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Sets each `keys[i]` (e.g. "REPLAYGAIN_TRACK_GAIN") to `values[i]` (UTF-8), or removes it where
/// `values[i]` is NULL, in the file at `path`, and saves the file. Returns 0 on success, -1 if TagLib
/// cannot open the file (or does not know its type), -2 if a key is not one the file's tags can hold,
/// -3 if the file could not be saved.
int rk_tags_set(const char *path, const char *const *keys, const char *const *values, int count);

/// The first value of `key` in the file at `path`, copied into `buffer` (`size` bytes, NUL-terminated,
/// cut if longer). Returns its length in bytes, -1 if the file cannot be opened, -2 if it has no such tag.
int rk_tags_get(const char *path, const char *key, char *buffer, int size);

#ifdef __cplusplus
}
#endif

#endif
