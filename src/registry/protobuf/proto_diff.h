// Protobuf compatibility as Confluent's protobuf/diff package decides it
// (protobuf-provider/.../protobuf/diff/SchemaDiff.java, MessageSchemaDiff.java,
// FieldSchemaDiff.java): fields are matched by number; removing or adding an
// optional field, renaming one, adding messages, enums, enum values and oneofs
// are compatible; removing a message, changing the package, a field's kind
// (scalar/message/map), a scalar's wire family (varint / zigzag / fixed32 /
// fixed64 / length-delimited / float / double; an enum counts as a varint), a
// numeric field's label (optional <-> repeated), a message field's type,
// required fields added or removed, and moving several fields into one new
// oneof are not (SchemaDiff.COMPATIBLE_CHANGES).
#pragma once

#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>

namespace ketch::registry::protobuf {

struct difference {
    std::string type;
    std::string path;  // "#/Message/3" (a field by number) or "#/Message"
};

std::vector<difference> diff(const google::protobuf::FileDescriptor& original,
                             const google::protobuf::FileDescriptor& update);
bool is_compatible_change(const std::string& type);
std::string describe(const difference& d, const std::string& first, const std::string& second);

}  // namespace ketch::registry::protobuf
