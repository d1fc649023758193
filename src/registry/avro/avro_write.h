// Avro schema -> text. Three forms:
// - canonical: compact JSON the way Apache Avro's Java Schema.toString() writes
//   it (what Confluent stores and serves): attributes in Java's order, a named
//   type written once and then by name, namespaces only where they change.
// - normalized (?normalize=true): the canonical form with every name fully
//   qualified, no "namespace" attributes, no docs, and extra attributes sorted.
// - parsing canonical form (the Avro specification's PCF): full names, only
//   type/name/fields/symbols/items/values/size, in that order, no whitespace.
#pragma once

#include <string>

#include "registry/avro/avro_schema.h"

namespace ketch::registry::avro {

std::string canonical_text(const avro_schema& s);
std::string normalized_text(const avro_schema& s);
std::string parsing_canonical_form(const avro_schema& s);

}  // namespace ketch::registry::avro
