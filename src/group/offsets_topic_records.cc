#include "group/offsets_topic_records.h"

#include "base/endian.h"
#include "group/group_record.h"
#include "group/java_hash.h"

namespace ketch::group {

namespace {

// Kafka's non-flexible encoding: big-endian integers, int16-length strings
// (-1: null), int32-length bytes, int32-count arrays.
class writer {
public:
    template <class T>
    writer& num(T v) {
        size_t at = out_.size();
        out_.resize(at + sizeof(T));
        store_be<T>(out_.data() + at, v);
        return *this;
    }
    writer& str(const std::string& s) {
        num<int16_t>(int16_t(s.size()));
        out_.insert(out_.end(), s.begin(), s.end());
        return *this;
    }
    writer& uvarint(uint32_t v) {
        while (v >= 0x80) {
            out_.push_back(uint8_t(v | 0x80));
            v >>= 7;
        }
        out_.push_back(uint8_t(v));
        return *this;
    }
    writer& compact_str(const std::string& s) {
        uvarint(uint32_t(s.size()) + 1);
        out_.insert(out_.end(), s.begin(), s.end());
        return *this;
    }
    writer& nullable_str(const std::optional<std::string>& s) { return s ? str(*s) : num<int16_t>(-1); }
    writer& blob(const bytes& b) {
        num<int32_t>(int32_t(b.size()));
        out_.insert(out_.end(), b.begin(), b.end());
        return *this;
    }
    bytes take() { return std::move(out_); }

private:
    bytes out_;
};

class reader {
public:
    explicit reader(byte_view in) : in_(in) {}
    template <class T>
    T num() {
        if (!need(sizeof(T))) return T{};
        T v = load_be<T>(in_.data() + pos_);
        pos_ += sizeof(T);
        return v;
    }
    std::string str() {
        auto n = num<int16_t>();
        if (n < 0) return {};
        return take(size_t(n));
    }
    uint32_t uvarint() {
        uint32_t v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            auto b = num<uint8_t>();
            v |= uint32_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        ok_ = false;
        return 0;
    }
    std::string compact_str() {
        auto n = uvarint();
        if (n == 0) return {};  // null
        return take(n - 1);
    }
    // Tagged fields: each (tag, size, bytes) skipped.
    void skip_tagged() {
        for (auto count = uvarint(); ok_ && count > 0; --count) {
            (void)uvarint();
            (void)take(uvarint());
        }
    }
    bool ok() const { return ok_; }
    bool at_end() const { return pos_ == in_.size(); }

private:
    std::string take(size_t n) {
        if (!need(n)) return {};
        std::string s(reinterpret_cast<const char*>(in_.data() + pos_), n);
        pos_ += n;
        return s;
    }
    bool need(size_t n) {
        if (in_.size() - pos_ < n) ok_ = false;
        return ok_;
    }
    byte_view in_;
    size_t pos_ = 0;
    bool ok_ = true;
};

}  // namespace

int32_t offsets_partition_for(const std::string& group_id, int32_t partitions) {
    int32_t h = java_string_hash(group_id);
    int32_t a = h == INT32_MIN ? 0 : (h < 0 ? -h : h);
    return a % partitions;
}

bytes offset_commit_key(const std::string& group, const std::string& topic, int32_t partition) {
    return writer().num<int16_t>(1).str(group).str(topic).num<int32_t>(partition).take();
}

bytes offset_commit_value(const meta::stored_offset& o) {
    writer w;
    if (o.expire_timestamp_ms) {  // v1: no leader epoch, an expire timestamp
        w.num<int16_t>(1).num<int64_t>(o.offset).str(o.metadata).num<int64_t>(o.commit_timestamp_ms);
        w.num<int64_t>(*o.expire_timestamp_ms);
        return w.take();
    }
    // v4 (flexible): the metadata as a compact string; the topic id is a
    // tagged field written only when the commit named the topic by id
    // (OffsetCommit v10), which ketch's store does not keep: no tags.
    w.num<int16_t>(4).num<int64_t>(o.offset).num<int32_t>(o.leader_epoch).compact_str(o.metadata);
    w.num<int64_t>(o.commit_timestamp_ms).uvarint(0);
    return w.take();
}

bytes group_metadata_key(const std::string& group) { return writer().num<int16_t>(2).str(group).take(); }

std::optional<bytes> group_metadata_value(const meta::stored_group& g) {
    if (g.protocol_type.empty() && g.generation == 0) return std::nullopt;
    if (record_type(g.state) == "consumer") return std::nullopt;
    auto members = decode_classic(g.state);
    writer w;
    w.num<int16_t>(3).str(g.protocol_type).num<int32_t>(g.generation);
    bool has_members = members && !members->members.empty();
    // An empty group is written without protocol and leader
    // (ClassicGroup.protocolName / leaderOrNull are unset then).
    w.nullable_str(has_members ? std::optional(members->protocol_name) : std::nullopt);
    w.nullable_str(has_members ? std::optional(members->leader) : std::nullopt);
    // currentStateTimestampOrDefault: when the group entered its state.
    w.num<int64_t>(has_members ? members->state_timestamp_ms : g.empty_since_ms.value_or(-1));
    w.num<int32_t>(has_members ? int32_t(members->members.size()) : 0);
    if (has_members)
        for (const auto& m : members->members) {
            w.str(m.member_id).nullable_str(m.group_instance_id).str(m.client_id).str(m.client_host);
            w.num<int32_t>(m.rebalance_timeout_ms).num<int32_t>(m.session_timeout_ms);
            w.blob(m.metadata(members->protocol_name)).blob(m.assignment);
        }
    return w.take();
}

std::optional<offsets_key> decode_offsets_key(byte_view key) {
    reader r(key);
    offsets_key k;
    k.version = r.num<int16_t>();
    k.group = r.str();
    if (k.is_offset_commit()) {
        k.topic = r.str();
        k.partition = r.num<int32_t>();
    } else if (!k.is_group_metadata()) {
        return std::nullopt;
    }
    if (!r.ok() || !r.at_end()) return std::nullopt;
    return k;
}

std::optional<offset_commit_fields> decode_offset_commit_value(byte_view value) {
    reader r(value);
    offset_commit_fields f;
    f.version = r.num<int16_t>();
    if (f.version < 0 || f.version > 4) return std::nullopt;
    f.offset = r.num<int64_t>();
    if (f.version >= 3) f.leader_epoch = r.num<int32_t>();
    f.metadata = f.version >= 4 ? r.compact_str() : r.str();
    f.commit_timestamp = r.num<int64_t>();
    if (f.version == 1) f.expire_timestamp = r.num<int64_t>();
    if (f.version >= 4) r.skip_tagged();
    if (!r.ok() || !r.at_end()) return std::nullopt;
    return f;
}

}  // namespace ketch::group
