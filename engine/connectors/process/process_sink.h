#pragma once
// The sink kind "process": a sink in any language, run as a child process that speaks the protocol
// of docs/sink-protocol.md (newline-delimited JSON on its stdin and stdout). A scenario names it as
//
//     {"id": "out", "kind": "sink", "sink": "process", "inputs": [...],
//      "options": {"command": ["python3", "sink.py"], "cwd": "examples/python_sink"}}
//
// Options: "command" (argv; argv[0] looked up in PATH), "cwd" (default: eosim's current folder when
// the scenario is loaded), "env" (["NAME=VALUE", ...]: variables added to eosim's environment),
// "answer_timeout_ms" (the wall-clock watchdog for one line from the sink, default 10000).
//
// Lifecycle: loading the scenario starts the command once to read its hello (output, systems,
// points: the SinkConfig's read_output, the systems it asks the world for, announced_points), then
// stops it. Each sink instance (subtask, attempt) then runs its own process, started by
// SinkConfig::make, killed when the instance goes, when its node (TaskManager) crashes, and at the
// end of the run. A cancelled instance (close) keeps its process, as a zombie keeps its threads.
// Every message blocks the simulation until the sink answers, so the same seed gives the same
// exchange; every line is folded into the run's trace hash.
// Registered as a built-in kind by register_process_sink (engine/connectors/builtin_sinks.h).
#include "engine/connectors/builtin_sinks.h"
