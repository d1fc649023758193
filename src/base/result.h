// result<T, E>: a value or a module's error (C++20 has no std::expected).
// Modules return their own error enum; handlers map it to a Kafka code once.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

namespace ketch {

template <class E>
struct failure {
    E error;
};
template <class E>
failure(E) -> failure<E>;

template <class T, class E>
class result {
public:
    result(T v) : v_(std::in_place_index<0>, std::move(v)) {}
    result(failure<E> f) : v_(std::in_place_index<1>, std::move(f.error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & {
        assert(ok());
        return std::get<0>(v_);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(v_);
    }
    T&& value() && {
        assert(ok());
        return std::get<0>(std::move(v_));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() { return value(); }
    const E& error() const {
        assert(!ok());
        return std::get<1>(v_);
    }

private:
    std::variant<T, E> v_;
};

// result<void, E>
struct ok_t {};
template <class E>
using status = result<ok_t, E>;
inline constexpr ok_t ok_v{};

}  // namespace ketch
