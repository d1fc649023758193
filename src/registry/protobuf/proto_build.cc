#include <algorithm>

#include <google/protobuf/any.pb.h>
#include <google/protobuf/api.pb.h>
#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/duration.pb.h>
#include <google/protobuf/empty.pb.h>
#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/source_context.pb.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/type.pb.h>
#include <google/protobuf/wrappers.pb.h>

#include "base/base64.h"
#include "registry/protobuf/proto_schema.h"

namespace ketch::registry::protobuf {

namespace gp = google::protobuf;

namespace {

class text_errors : public gp::io::ErrorCollector {
public:
    void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
        if (first.empty()) first = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
    }
    std::string first;
};

class pool_errors : public gp::DescriptorPool::ErrorCollector {
public:
    void AddError(const std::string& file, const std::string& element, const gp::Message*, ErrorLocation,
                  const std::string& message) override {
        if (first.empty()) first = file + ": " + (element.empty() ? "" : element + ": ") + message;
    }
    std::string first;
};

// The deepest '{' nesting of a .proto text (libprotobuf's parser recurses per level).
int brace_depth(std::string_view text) {
    int depth = 0, max = 0;
    for (char c : text) {
        if (c == '{')
            max = std::max(max, ++depth);
        else if (c == '}')
            --depth;
    }
    return max;
}

// .proto text, or else a base64 FileDescriptorProto; the error of the text parse otherwise.
std::optional<std::string> to_proto(std::string_view text, const std::string& name, gp::FileDescriptorProto& out) {
    if (brace_depth(text) > k_max_nesting)
        return "the schema is nested deeper than " + std::to_string(k_max_nesting) + " levels";
    gp::io::ArrayInputStream in(text.data(), int(text.size()));
    text_errors errs;
    gp::io::Tokenizer tokenizer(&in, &errs);
    gp::compiler::Parser parser;
    parser.RecordErrorsTo(&errs);
    if (parser.Parse(&tokenizer, &out) && errs.first.empty()) {
        out.set_name(name);
        return std::nullopt;
    }
    if (auto raw = base64_decode(text); raw && !raw->empty()) {
        gp::FileDescriptorProto binary;
        if (binary.ParseFromString(*raw) && (binary.message_type_size() > 0 || binary.enum_type_size() > 0)) {
            out = std::move(binary);
            out.set_name(name);
            return std::nullopt;
        }
    }
    return errs.first.empty() ? std::string("not a .proto file") : errs.first;
}

// The well-known types' files are in libprotobuf's generated pool only once
// their classes are linked in and touched: this does both, once.
void load_well_known() {
    static const bool loaded = [] {
        for (const gp::Descriptor* d :
             {gp::Any::descriptor(), gp::Api::descriptor(), gp::Duration::descriptor(), gp::Empty::descriptor(),
              gp::FieldMask::descriptor(), gp::SourceContext::descriptor(), gp::Struct::descriptor(),
              gp::Timestamp::descriptor(), gp::Type::descriptor(), gp::DoubleValue::descriptor(),
              gp::FileDescriptorProto::descriptor()})
            (void)d;
        return true;
    }();
    (void)loaded;
}

// Adds the well-known files `proto` imports that the pool lacks, from libprotobuf's own pool.
void add_well_known(gp::DescriptorPool& pool, const gp::FileDescriptorProto& proto, int depth = 0) {
    if (depth > 8) return;
    load_well_known();
    for (auto& dep : proto.dependency()) {
        if (pool.FindFileByName(dep)) continue;
        const gp::FileDescriptor* known = gp::DescriptorPool::generated_pool()->FindFileByName(dep);
        if (!known) continue;
        gp::FileDescriptorProto p;
        known->CopyTo(&p);
        add_well_known(pool, p, depth + 1);
        pool.BuildFile(p);
    }
}

}  // namespace

result_t<std::shared_ptr<const proto_schema>> build(std::string_view text, const std::vector<named_text>& deps) {
    auto bad = [](const std::string& why) {
        return failure{errors::invalid_schema("Invalid schema of type PROTOBUF, details: " + why)};
    };
    auto s = std::make_shared<proto_schema>();
    s->pool_ = std::make_unique<gp::DescriptorPool>();
    for (auto& d : deps) {
        gp::FileDescriptorProto p;
        if (auto err = to_proto(d.text, d.name, p)) return bad("reference " + d.name + ": " + *err);
        add_well_known(*s->pool_, p);
        pool_errors errs;
        if (!s->pool_->FindFileByName(d.name) && !s->pool_->BuildFileCollectingErrors(p, &errs))
            return bad("reference " + d.name + ": " + errs.first);
    }
    gp::FileDescriptorProto main;
    std::string name = "ketch_schema.proto";
    for (int i = 1; s->pool_->FindFileByName(name); ++i) name = "ketch_schema_" + std::to_string(i) + ".proto";
    if (auto err = to_proto(text, name, main)) return bad(*err);
    add_well_known(*s->pool_, main);
    pool_errors errs;
    s->file_ = s->pool_->BuildFileCollectingErrors(main, &errs);
    if (!s->file_) return bad(errs.first);
    if (s->file_->message_type_count() == 0 && s->file_->enum_type_count() == 0)
        return bad("the schema defines no message");
    return std::shared_ptr<const proto_schema>(std::move(s));
}

const gp::Descriptor* message_at(const gp::FileDescriptor* file, const std::vector<int>& indexes) {
    if (!file) return nullptr;
    if (indexes.empty()) return file->message_type_count() ? file->message_type(0) : nullptr;
    if (indexes[0] < 0 || indexes[0] >= file->message_type_count()) return nullptr;
    const gp::Descriptor* d = file->message_type(indexes[0]);
    for (size_t i = 1; i < indexes.size(); ++i) {
        if (indexes[i] < 0 || indexes[i] >= d->nested_type_count()) return nullptr;
        d = d->nested_type(indexes[i]);
    }
    return d;
}

}  // namespace ketch::registry::protobuf
