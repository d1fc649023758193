#include "cli/command.h"
namespace ketch::cli {
void add_acl_commands(CLI::App&, context&) {}
void add_user_commands(CLI::App&, context&) {}
void add_quota_commands(CLI::App&, context&) {}
void add_txn_commands(CLI::App&, context&) {}
void add_completion_command(CLI::App&, context&) {}
}
