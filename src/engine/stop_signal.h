// SIGINT and SIGTERM as a request to stop a run cleanly: the first one sets a flag that the read
// loop looks at between lines and the readers while they wait for input; a second one (Ctrl-C
// again, or timeout(1)'s kill after its grace) ends the process at once, with the signal's own
// action. Without InstallStopHandlers the signals keep their default action.
#pragma once

namespace logtide {

// The handlers, installed without SA_RESTART: a read waiting for input returns.
void InstallStopHandlers();
// The flag: the signal that asked for a stop, or 0 (LineReader::set_stop_flag takes it).
const volatile int* StopSignalFlag();

}  // namespace logtide
