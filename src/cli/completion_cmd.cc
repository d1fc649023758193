// ketch completion bash|zsh: a shell completion script for the command groups,
// their subcommands and flags.
#include <iostream>

#include "cli/command.h"

namespace ketch::cli {

namespace {

void print_completion(CLI::App& root, const std::string& shell) {
    // Words per command path, from the CLI11 definition itself.
    std::string cases;
    std::string groups;
    for (auto* g : root.get_subcommands({})) {
        if (g->get_name() == "completion") continue;
        groups += g->get_name() + " ";
        std::string subs;
        for (auto* s : g->get_subcommands({})) {
            subs += s->get_name() + " ";
            std::string flags;
            for (auto* opt : s->get_options())
                for (auto& n : opt->get_lnames()) flags += "--" + n + " ";
            cases += "    \"" + g->get_name() + " " + s->get_name() + "\") words=\"" + flags + "\" ;;\n";
        }
        std::string flags;
        for (auto* opt : g->get_options())
            for (auto& n : opt->get_lnames()) flags += "--" + n + " ";
        cases += "    \"" + g->get_name() + "\") words=\"" + (subs.empty() ? flags : subs) + "\" ;;\n";
    }
    std::string body =
        "_ketch() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} path=\"\" words\n"
        "  local i\n"
        "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "    case ${COMP_WORDS[i]} in -*) ;; *) [ -z \"$path\" ] && path=${COMP_WORDS[i]} || { [ \"${path#* }\" = "
        "\"$path\" ] && path=\"$path ${COMP_WORDS[i]}\"; } ;; esac\n"
        "  done\n"
        "  case \"$path\" in\n"
        "    \"\") words=\"" +
        groups + "completion\" ;;\n" + cases +
        "    *) words=\"\" ;;\n"
        "  esac\n"
        "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
        "}\n";
    if (shell == "zsh") std::cout << "autoload -U +X bashcompinit && bashcompinit\n";
    std::cout << body << "complete -o default -F _ketch ketch\n";
}

}  // namespace

void add_completion_command(CLI::App& app, context& ctx) {
    auto shell = std::make_shared<std::string>("bash");
    auto* c = app.add_subcommand("completion", "print a shell completion script (bash, zsh)");
    c->add_option("shell", *shell, "bash or zsh")->check(CLI::IsMember({"bash", "zsh"}))->capture_default_str();
    c->footer("Examples:\n  source <(ketch completion bash)\n  ketch completion zsh > ~/.zsh/ketch.zsh");
    c->callback([&app, shell] { print_completion(app, *shell); });
}

}  // namespace ketch::cli
