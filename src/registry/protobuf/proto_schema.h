// A Protobuf schema for the registry: the .proto text parsed by libprotobuf's
// own parser (compiler::Parser), or a base64 FileDescriptorProto (what
// confluent-kafka's serializers send), built into a DescriptorPool with its
// references (imports named by the reference names) and the well-known types
// (google/protobuf/*.proto) that libprotobuf carries. Building validates it:
// unknown types, duplicate numbers, bad imports are 42201.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include "registry/format.h"

namespace ketch::registry::protobuf {

struct named_text {
    std::string name;
    std::string text;
};

class proto_schema {
public:
    const google::protobuf::FileDescriptor* file() const { return file_; }
    const google::protobuf::DescriptorPool& pool() const { return *pool_; }

private:
    friend result_t<std::shared_ptr<const proto_schema>> build(std::string_view, const std::vector<named_text>&);
    std::unique_ptr<google::protobuf::DescriptorPool> pool_;
    const google::protobuf::FileDescriptor* file_ = nullptr;
};

result_t<std::shared_ptr<const proto_schema>> build(std::string_view text, const std::vector<named_text>& deps);

// The format's entry point (format.cc dispatches here).
result_t<parsed_ptr> parse(std::string_view text, const std::vector<named_text>& deps);

// The message a Confluent frame's message indexes name ([] or [0]: the first
// message; [1, 0]: the first nested message of the second), or nullptr.
const google::protobuf::Descriptor* message_at(const google::protobuf::FileDescriptor* file,
                                               const std::vector<int>& indexes);
const proto_schema* model_of(const parsed_schema& p);

}  // namespace ketch::registry::protobuf
