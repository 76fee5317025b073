// Text tags of a sound file through TagLib's property map: each tag format (Xiph comments, ID3v2) maps the
// names itself (an ID3v2 tag keeps an unknown name in a TXXX frame, as ReplayGain taggers write it).
#include "rk_tags.h"

#include <cstring>
#include <taglib/fileref.h>
#include <taglib/tfile.h>
#include <taglib/tpropertymap.h>

int rk_tags_set(const char *path, const char *const *keys, const char *const *values, int count) {
    TagLib::FileRef reference(path, false);
    TagLib::File *file = reference.file();
    if (reference.isNull() || file == nullptr || !file->isValid()) return -1;
    TagLib::PropertyMap properties = file->properties();
    for (int index = 0; index < count; index++) {
        const TagLib::String key(keys[index], TagLib::String::UTF8);
        if (values[index] != nullptr) {
            properties.replace(key, TagLib::StringList(TagLib::String(values[index], TagLib::String::UTF8)));
        } else {
            properties.erase(key);
        }
    }
    const TagLib::PropertyMap refused = file->setProperties(properties);
    for (int index = 0; index < count; index++) {
        if (refused.contains(TagLib::String(keys[index], TagLib::String::UTF8))) return -2;
    }
    return reference.save() ? 0 : -3;
}

int rk_tags_get(const char *path, const char *key, char *buffer, int size) {
    TagLib::FileRef reference(path, false);
    TagLib::File *file = reference.file();
    if (reference.isNull() || file == nullptr || !file->isValid()) return -1;
    const TagLib::PropertyMap properties = file->properties();
    const TagLib::String name(key, TagLib::String::UTF8);
    if (!properties.contains(name) || properties[name].isEmpty()) return -2;
    const std::string value = properties[name].front().to8Bit(true);
    if (size > 0) {
        const size_t copied = value.size() < static_cast<size_t>(size - 1) ? value.size() : static_cast<size_t>(size - 1);
        std::memcpy(buffer, value.data(), copied);
        buffer[copied] = 0;
    }
    return static_cast<int>(value.size());
}
