// A 128-bit UUID as Kafka carries it (topic ids, directory ids): 16 raw bytes,
// shown as URL-safe base64 without padding, the way Kafka's Uuid.toString does.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ketch {

struct uuid {
    std::array<uint8_t, 16> b{};

    bool is_zero() const {
        for (auto x : b)
            if (x) return false;
        return true;
    }
    friend bool operator==(const uuid&, const uuid&) = default;
    friend auto operator<=>(const uuid&, const uuid&) = default;

    // Random version-4 UUID that Kafka would accept as a topic id: never zero
    // (nor Kafka's reserved id 1, which a v4 uuid cannot be), and (like Kafka's
    // Uuid.randomUuid) never starting with '-' in base64.
    static uuid random();
    std::string to_base64() const;
    static std::optional<uuid> from_base64(std::string_view s);
};

}  // namespace ketch
