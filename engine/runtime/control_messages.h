#pragma once
// The control messages the engine sends as datagrams (best-effort RPCs), by event-kind name: what
// a `message_loss` fault may name. Data-channel traffic is not here: it goes over connections,
// which a partition or crash breaks instead.
#include <string_view>

#include "sim/trace.h"

namespace eosim::engine::messages {

inline constexpr sim::EventKind kTriggerCheckpoint{
    "checkpoint.trigger"};  // JobManager -> source tasks
inline constexpr sim::EventKind kNotifyComplete{
    "checkpoint.notify_complete"};  // JobManager -> TaskManagers
inline constexpr sim::EventKind kNotifyAborted{
    "checkpoint.notify_aborted"};  // JobManager -> TaskManagers
inline constexpr sim::EventKind kAcknowledge{
    "checkpoint.acknowledge"};  // task -> JobManager (ack or decline)
inline constexpr sim::EventKind kTaskReport{
    "task.report"};  // task -> JobManager (ready, failed, finished)
inline constexpr sim::EventKind kHeartbeat{"jm.heartbeat"};             // JobManager -> TaskManager
inline constexpr sim::EventKind kHeartbeatReply{"tm.heartbeat_reply"};  // TaskManager -> JobManager
inline constexpr sim::EventKind kRegister{"tm.register"};               // TaskManager -> JobManager
inline constexpr sim::EventKind kRegistered{"jm.registered"};           // JobManager -> TaskManager
inline constexpr sim::EventKind kDeploy{"jm.deploy"};                   // JobManager -> TaskManager
inline constexpr sim::EventKind kStart{"jm.start"};                     // JobManager -> TaskManager
inline constexpr sim::EventKind kCancel{"jm.cancel"};                   // JobManager -> TaskManager

inline constexpr const sim::EventKind* kAll[] = {
    &kTriggerCheckpoint, &kNotifyComplete, &kNotifyAborted,  &kAcknowledge,
    &kTaskReport,        &kHeartbeat,      &kHeartbeatReply, &kRegister,
    &kRegistered,        &kDeploy,         &kStart,          &kCancel,
};

}  // namespace eosim::engine::messages
