// logtide: event-time windowed aggregation over NDJSON logs. See man/logtide.1.
#include "cli.h"

int main(int argc, char** argv) { return logtide::Main(argc, argv, logtide::FaultHooks{}); }
