// Entry points of the loom CLI's commands. Each takes the arguments after its command word and returns the
// exit code; bad input is thrown as loom::InputError and reported once by main().
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

using Argv = std::vector<std::string>;

int cmd_gpus(const Argv& argv);
int cmd_predict(const Argv& argv);
int cmd_diagnose(const Argv& argv);
int cmd_trace(const Argv& argv);
int cmd_train(const Argv& argv);
int cmd_validate(const Argv& argv);

}  // namespace loom::cli
