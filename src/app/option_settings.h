// The registry of ketch's settings for options.cc: each one is a flag and a
// ketch.toml key of the same name.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

namespace ketch::app {

// Registers each setting once, under its flag --NAME and its ketch.toml key
// NAME: a value in the file becomes the default the flag overrides.
class option_settings {
public:
    option_settings(CLI::App* app, const toml::table& file) : app_(app), file_(file) {}

    template <class T>
    CLI::Option* option(const std::string& name, T& field, const std::string& help) {
        read(name, field);
        return app_->add_option("--" + name, field, help);
    }
    // A setting whose value `check` accepts (CLI::Range(1, 100), CLI::NonNegativeNumber), its default shown in --help.
    template <class T>
    CLI::Option* checked(const std::string& name, T& field, const std::string& help, const CLI::Validator& check) {
        return option(name, field, help)->check(check)->capture_default_str();
    }
    // A setting that must be above zero (a period, a size, a count), its default shown in --help.
    template <class T>
    CLI::Option* positive(const std::string& name, T& field, const std::string& help) {
        return checked(name, field, help, CLI::PositiveNumber);
    }
    CLI::Option* flag(const std::string& name, bool& field, const std::string& help) {
        read(name, field);
        return app_->add_flag("--" + name, field, help);
    }

private:
    template <class T>
    void read(const std::string& name, T& field) {
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (auto v = file_[name].value<std::string>()) field = {*v};
            if (auto* arr = file_[name].as_array()) {
                field.clear();
                for (auto& e : *arr)
                    if (auto sv = e.value<std::string>()) field.push_back(*sv);
            }
        } else {
            field = file_[name].value_or(field);
        }
    }

    CLI::App* app_;
    const toml::table& file_;
};

struct options;
// options_cluster.cc: cluster mode's engines and flags, the inter-broker calls.
void add_cluster_settings(option_settings& a, options& o);
void add_inter_broker_settings(option_settings& a, options& o);

}  // namespace ketch::app
