#include <gtest/gtest.h>

#include <vector>

#include "objstore/retry.h"

using namespace ketch;
using namespace ketch::objstore;
using std::chrono::milliseconds;

namespace {

struct script {
    std::vector<int> statuses;  // one per call: 200 succeeds, else the error's HTTP status (0: no answer)
    size_t calls = 0;
    status<s3_error> operator()() {
        int s = statuses.at(calls++);
        if (s == 200) return ok_v;
        return failure{s3_error{s, s ? "Code" : "NetworkError", ""}};
    }
};

}  // namespace

TEST(objstore_retry, retriable_errors_are_retried_with_growing_backoff) {
    script op{{503, 0, 429, 200}};
    std::vector<milliseconds> slept;
    auto r = with_retries(
        retry_policy{5, milliseconds(10), milliseconds(25)}, [&](milliseconds d) { slept.push_back(d); }, std::ref(op));
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(op.calls, 4u);
    EXPECT_EQ(slept, (std::vector<milliseconds>{milliseconds(10), milliseconds(20), milliseconds(25)}));
}

TEST(objstore_retry, other_errors_are_answered_at_once) {
    for (int status : {403, 404, 412}) {
        script op{{status, 200}};
        int sleeps = 0;
        auto r = with_retries(
            retry_policy{}, [&](milliseconds) { ++sleeps; }, std::ref(op));
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().http_status, status);
        EXPECT_EQ(op.calls, 1u);
        EXPECT_EQ(sleeps, 0);
    }
}

TEST(objstore_retry, the_last_attempts_error_is_the_answer) {
    script op{{500, 502, 503}};
    auto r = with_retries(
        retry_policy{3, milliseconds(1), milliseconds(1)}, [](milliseconds) {}, std::ref(op));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().http_status, 503);
    EXPECT_EQ(op.calls, 3u);
}
