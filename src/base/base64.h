// Base64 (RFC 4648, with padding), read leniently: the schema registry's
// texts (Protobuf schemas travel as base64 FileDescriptorProtos,
// ?format=serialized) and uuids (URL-safe, unpadded: base/uuid.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ketch {

std::string base64_encode(std::string_view raw);
// Accepts the URL-safe alphabet too and ignores padding and line breaks; nullopt for other characters.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace ketch
