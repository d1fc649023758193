// The registry's errors are Confluent Schema Registry's: an HTTP status, an
// error_code (40401 subject not found, 42201 invalid schema, ...) and a message
// in Confluent's words (core/.../rest/exceptions/Errors.java and the Rest*
// exception classes). The domain returns them; the HTTP layer only renders them.
#pragma once

#include <string>

#include "base/result.h"

namespace ketch::registry {

struct error {
    int http_status = 500;
    int code = 50001;
    std::string message;
};

template <class T>
using result_t = ketch::result<T, error>;

namespace errors {
error subject_not_found(const std::string& subject);                         // 404 40401
error version_not_found(int64_t version);                                    // 404 40402
error schema_not_found(int64_t id);                                          // 404 40403
error schema_not_found();                                                    // 404 40403 "Schema not found"
error subject_soft_deleted(const std::string& subject);                      // 404 40404
error subject_not_soft_deleted(const std::string& subject);                  // 404 40405
error version_soft_deleted(const std::string& subject, int64_t v);           // 404 40406
error version_not_soft_deleted(const std::string& subject, int64_t v);       // 404 40407
error subject_compatibility_not_configured(const std::string& subject);      // 404 40408
error subject_mode_not_configured(const std::string& subject);               // 404 40409
error incompatible(const std::string& subject, const std::string& details);  // 409 409
error invalid_schema(const std::string& message);                            // 422 42201
error invalid_version(const std::string& version);                           // 422 42202
error invalid_compatibility(const std::string& message = {});                // 422 42203
error invalid_mode(const std::string& message = {});                         // 422 42204
error not_permitted(const std::string& message);                             // 422 42205
error reference_exists(const std::string& key);                              // 422 42206
error id_does_not_match(const std::string& message);                         // 422 42207
error invalid_subject(const std::string& subject);                           // 422 42208
error schema_too_large(const std::string& message);                          // 422 42209
error store(const std::string& message);                                     // 500 50001
}  // namespace errors

}  // namespace ketch::registry
