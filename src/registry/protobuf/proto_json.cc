// Protobuf payload -> JSON: a DynamicMessage of the message the frame's indexes
// name, parsed from the payload, printed by libprotobuf's JSON printer.
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/json_util.h>

#include "registry/protobuf/proto_schema.h"
#include "registry/record_decoder.h"

namespace ketch::registry {

result_t<std::string> protobuf_to_json(const parsed_schema& s, const std::vector<int>& indexes,
                                       std::string_view payload) {
    auto bad = [](const std::string& why) { return failure{errors::invalid_schema("Protobuf payload: " + why)}; };
    const protobuf::proto_schema* model = protobuf::model_of(s);
    if (!model) return bad("not a Protobuf schema");
    const google::protobuf::Descriptor* d = protobuf::message_at(model->file(), indexes);
    if (!d) return bad("the message indexes name no message of the schema");
    google::protobuf::DynamicMessageFactory factory(&model->pool());
    std::unique_ptr<google::protobuf::Message> msg(factory.GetPrototype(d)->New());
    if (!msg->ParseFromArray(payload.data(), int(payload.size()))) return bad("does not parse as " + d->full_name());
    std::string out;
    google::protobuf::util::JsonPrintOptions opt;
    opt.preserve_proto_field_names = true;
    auto st = google::protobuf::util::MessageToJsonString(*msg, &out, opt);
    if (!st.ok()) return bad(st.ToString());
    return out;
}

}  // namespace ketch::registry
