// papersoccer: the command-line front. The commands that need no network (replay, turns, perft,
// and bot without a model: alpha-beta with the value net) run here, in a process that never
// loads LibTorch, so they start in milliseconds; every other command, and bot with a MODEL,
// --visits, --config or a device, is handed to papersoccer-torch beside this executable (the same
// arguments, by execv), which registers every command (apps/main.cpp).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "apps/bot_alphabeta.h"
#include "apps/commands.h"

namespace {

// papersoccer-torch in this executable's folder.
std::string torch_executable(const char* argv0) {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string self = n > 0 ? std::string(exe, size_t(n)) : std::string(argv0);
  const size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/papersoccer-torch";
}

[[noreturn]] void run_torch_executable(char** argv) {
  const std::string path = torch_executable(argv[0]);
  ::execv(path.c_str(), argv);
  std::cerr << "error: cannot start " << path
            << " (the commands that use the network): " << std::strerror(errno)
            << "; build it (tools/setup.sh) beside papersoccer\n";
  std::exit(127);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command != "replay" && command != "turns" && command != "perft" && command != "bot")
    run_torch_executable(argv);
  CLI::App app{"papersoccer: Paper Soccer engine, search and self-play training toolkit"};
  app.require_subcommand(1, 1);
  ps::cmd::register_engine_commands(app);
  auto bot_args = std::make_shared<ps::cmd::BotArgs>();
  ps::cmd::add_bot_command(app, *bot_args)->callback([&] {
    if (ps::cmd::bot_needs_network(*bot_args)) run_torch_executable(argv);
    ps::cmd::run_alphabeta_bot(*bot_args);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ps::cmd::usage_exit_status(app, e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
