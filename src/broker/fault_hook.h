// Where scripted faults (--faults, docs/design/faults.md) meet a request:
// handler.h's invoke calls apply_request_faults after decoding, only while a
// fault is active (broker_context::faults, one atomic flag otherwise).
#pragma once

#include <optional>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "broker/error_answer.h"
#include "broker/request_context.h"
#include "fault/registry.h"

namespace ketch::broker {

// Holds the request while the broker is paused, then takes the first request
// fault matching it: a latency is waited out here (nothing returned); an
// error or a drop is returned for invoke to answer (the API's error response;
// the connection closed). ctx.fault names what was injected, for the traffic
// inspector. Requests of the console's own listener are never faulted.
boost::asio::awaitable<std::optional<fault::hit>> apply_request_faults(request_context& ctx,
                                                                       const std::vector<fault::topic_ref>& topics);

// The error an injected error fault answers with (its code and the code's text).
error_answer fault_answer(const fault::hit& h);

}  // namespace ketch::broker
