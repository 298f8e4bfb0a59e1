#include "engine/state/rocksdb_encoding.h"

#include <stdexcept>

#include "engine/state/blob_codec.h"
#include "engine/state/canonical_state_codec.h"

namespace eosim::engine::rocksdb_state::encoding {

namespace {

void put_big_endian(std::string& out, size_t at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out[at + static_cast<size_t>(i)] =
            static_cast<char>((value >> (8 * (bytes - 1 - i))) & 0xff);
}

uint64_t get_big_endian(const rocksdb::Slice& in, size_t at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
        value = (value << 8) | static_cast<uint8_t>(in[at + static_cast<size_t>(i)]);
    return value;
}

uint64_t flip64(int64_t value) { return static_cast<uint64_t>(value) ^ (uint64_t{1} << 63); }
int64_t unflip64(uint64_t value) { return static_cast<int64_t>(value ^ (uint64_t{1} << 63)); }
uint32_t flip32(int32_t value) { return static_cast<uint32_t>(value) ^ (uint32_t{1} << 31); }
int32_t unflip32(uint32_t value) { return static_cast<int32_t>(value ^ (uint32_t{1} << 31)); }

}  // namespace

std::string encode_key(int32_t key_group, int64_t key) {
    std::string out(kPlainKeySize, '\0');
    put_big_endian(out, 0, static_cast<uint32_t>(key_group), 4);
    put_big_endian(out, 4, flip64(key), 8);
    return out;
}

// The first bytes of every cell of (key, state) other than the plain one.
std::string encode_scan_prefix(int32_t key_group, int64_t key, int32_t state) {
    std::string out = encode_key(key_group, key);
    out.resize(kScanPrefixSize);
    put_big_endian(out, 12, flip32(state), 4);
    return out;
}

std::string encode_cell_key(int32_t key_group, const StateKey& at) {
    if (is_plain_cell(at)) return encode_key(key_group, at.key);
    std::string out = encode_scan_prefix(key_group, at.key, at.state);
    out.resize(kCellKeySize);
    put_big_endian(out, 16, flip64(at.ns), 8);
    put_big_endian(out, 24, flip64(at.item), 8);
    return out;
}

int32_t key_group_of_encoded(const rocksdb::Slice& in) {
    if (in.size() != kPlainKeySize && in.size() != kCellKeySize)
        throw std::runtime_error("rocksdb state backend: malformed key");
    return static_cast<int32_t>(get_big_endian(in, 0, 4));
}

// The key group and the cell a RocksDB key encodes.
std::pair<int32_t, StateKey> decode_cell_key(const rocksdb::Slice& in) {
    const int32_t key_group = key_group_of_encoded(in);
    StateKey at;
    at.key = unflip64(get_big_endian(in, 4, 8));
    if (in.size() == kCellKeySize) {
        at.state = unflip32(static_cast<uint32_t>(get_big_endian(in, 12, 4)));
        at.ns = unflip64(get_big_endian(in, 16, 8));
        at.item = unflip64(get_big_endian(in, 24, 8));
    }
    return {key_group, at};
}

std::string encode_value(int64_t value) {
    BlobWriter out;
    out.put_i64(value);
    return out.take();
}

int64_t decode_value(const rocksdb::Slice& in) {
    return BlobReader(std::string_view(in.data(), in.size())).get_i64();
}

std::string encode_manifest(const IncrementalManifest& manifest) {
    BlobWriter out;
    out.put_string(kIncrementalMagic);
    out.put_i64(manifest.range.first);
    out.put_i64(manifest.range.last);
    out.put_i64(static_cast<int64_t>(manifest.files.size()));
    for (const SnapshotFile& file : manifest.files) {
        out.put_string(file.name);
        out.put_string(file.key);
        out.put_i64(file.bytes);
        out.put_i64(file.level);
        out.put_i64(file.entries);
        out.put_i64(file.smallest_seqno);
        out.put_i64(file.largest_seqno);
    }
    return out.take();
}

IncrementalManifest decode_manifest(const std::string& blob) {
    BlobReader in(blob);
    if (in.get_string() != kIncrementalMagic)
        throw std::runtime_error("not an incremental RocksDB snapshot");
    IncrementalManifest manifest;
    manifest.range.first = static_cast<int32_t>(in.get_i64());
    manifest.range.last = static_cast<int32_t>(in.get_i64());
    const int64_t files = in.get_i64();
    for (int64_t i = 0; i < files; ++i) {
        SnapshotFile file;
        file.name = in.get_string();
        file.key = in.get_string();
        file.bytes = in.get_i64();
        file.level = in.get_i64();
        file.entries = in.get_i64();
        file.smallest_seqno = in.get_i64();
        file.largest_seqno = in.get_i64();
        manifest.files.push_back(std::move(file));
    }
    return manifest;
}

}  // namespace eosim::engine::rocksdb_state::encoding
