#include "broker/handler_clock.h"

namespace ketch::broker {

thread_local handler_clock* handler_clock::current_ = nullptr;

}  // namespace ketch::broker
