// The Protobuf format for the registry: canonical text is libprotobuf's own
// rendering of the built file (FileDescriptor::DebugString: a .proto with
// every option and import, in declaration order), so equal schemas written
// differently (spacing, comments, a base64 descriptor) share one id.
#include "registry/protobuf/proto_diff.h"
#include "registry/protobuf/proto_schema.h"

namespace ketch::registry::protobuf {

namespace {

class proto_parsed final : public parsed_schema {
public:
    // Normalized is canonical: libprotobuf's rendering is already normal.
    explicit proto_parsed(std::shared_ptr<const proto_schema> s) : proto_parsed(s, s->file()->DebugString()) {}

    std::vector<std::string> can_read(const parsed_schema& writer, std::string_view rl,
                                      std::string_view wl) const override {
        auto& w = static_cast<const proto_parsed&>(writer);
        std::vector<std::string> out;
        for (auto& d : diff(*w.s_->file(), *s_->file()))
            if (!is_compatible_change(d.type)) out.push_back(describe(d, std::string(rl), std::string(wl)));
        return out;
    }
    std::string serialized() const override {
        google::protobuf::FileDescriptorProto p;
        s_->file()->CopyTo(&p);
        return p.SerializeAsString();
    }
    const proto_schema& model() const { return *s_; }

private:
    proto_parsed(std::shared_ptr<const proto_schema> s, const std::string& text)
        : parsed_schema(schema_type::protobuf, text, text), s_(std::move(s)) {}

    std::shared_ptr<const proto_schema> s_;
};

}  // namespace

result_t<parsed_ptr> parse(std::string_view text, const std::vector<named_text>& deps) {
    auto s = build(text, deps);
    if (!s) return failure{s.error()};
    return parsed_ptr(std::make_shared<proto_parsed>(std::move(*s)));
}

const proto_schema* model_of(const parsed_schema& p) {
    auto* x = dynamic_cast<const proto_parsed*>(&p);
    return x ? &x->model() : nullptr;
}

}  // namespace ketch::registry::protobuf
