// --help: the flags in groups, each description wrapped to 80 columns, the usage forms and a
// few examples.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace logtide {

// The help's groups, in the order they are shown.
extern const std::vector<std::string> kHelpGroups;

// Puts each flag DefineFlags defined into its group of kHelpGroups and has `app` print its
// help with HelpFormatter: usage forms, the groups in order, examples. A flag left out of the
// table here is shown under "Options", after the groups (tests/cli/help_test.sh fails then).
void SetUpHelp(CLI::App* app);

// Returns `text` as lines of at most `width` columns, broken at spaces (a word longer than a
// line stays whole, on a line of its own).
std::vector<std::string> WrapWords(const std::string& text, size_t width);

}  // namespace logtide
