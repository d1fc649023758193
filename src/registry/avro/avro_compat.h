// Avro schema resolution as a compatibility check: can data written with
// `writer` be read with `reader`? The rules of the Avro specification as Apache
// Avro's SchemaCompatibility (1.11) applies them, with its incompatibility
// types and locations, rendered in Confluent's words (client/.../avro/Difference.java):
// - records: a reader field missing in the writer needs a default
//   (READER_FIELD_MISSING_DEFAULT_VALUE); fields match by name or reader alias;
// - named types match by unqualified name or a reader alias (NAME_MISMATCH);
// - fixed sizes (FIXED_SIZE_MISMATCH); enums: writer symbols missing in the
//   reader fail unless the reader has a default (MISSING_ENUM_SYMBOLS);
// - promotions int->long->float->double, string<->bytes (else TYPE_MISMATCH);
// - a writer union: every branch readable; a reader union: some branch reads
//   the writer (MISSING_UNION_BRANCH).
// Recursive types terminate: a pair under check counts as compatible.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "registry/avro/avro_schema.h"

namespace ketch::registry::avro {

struct incompatibility {
    std::string type;      // READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, ...
    std::string location;  // "/fields/1/type"
    std::string message;   // Avro's additional info
};

std::vector<incompatibility> check_reader_writer(const avro_schema& reader, const avro_schema& writer);

// Confluent's message for one incompatibility, "%s" filled with the labels.
std::string describe(const incompatibility& i, std::string_view reader_label, std::string_view writer_label);

}  // namespace ketch::registry::avro
