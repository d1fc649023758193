#include "broker/topic_read_through.h"

#include "broker/blocking.h"

namespace ketch::broker {

boost::asio::awaitable<void> read_topics_through(request_context& ctx, const std::vector<std::string>& missing) {
    auto& b = ctx.broker;
    co_await blocking_call<bool>(b, [&b, &missing] { return b.read_topics_through(missing); });
}

}  // namespace ketch::broker
