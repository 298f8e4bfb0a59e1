#include "engine/checkpointing/completed_checkpoint_store.h"

#include <cstdio>

#include "engine/checkpointing/checkpoint_storage.h"

namespace eosim::engine {

using sim::external::CoordinationNode;
using sim::external::CoordinationStatus;

CompletedCheckpointStore::CompletedCheckpointStore(const LeaderSession& session,
                                                   sim::DurableStorage& storage, sim::NodeId node)
    : service_(session.service),
      storage_(&storage),
      node_(node),
      session_(session.session),
      fence_(session.fence),
      dir_(session.path("checkpoints/")) {}

std::string CompletedCheckpointStore::entry_path(int64_t checkpoint_id) const {
    char digits[24];
    std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(checkpoint_id));
    return dir_ + digits;
}

void CompletedCheckpointStore::add(const CompletedCheckpoint& checkpoint, Done done) const {
    service_->create(
        node_, session_, entry_path(checkpoint.id), checkpoint.metadata_key, false, fence_,
        [done = std::move(done)](CoordinationStatus status, int64_t) { done(status); });
}

void CompletedCheckpointStore::remove(int64_t checkpoint_id, Done done) const {
    service_->remove(node_, session_, entry_path(checkpoint_id), -1, fence_, std::move(done));
}

void CompletedCheckpointStore::recover(Recovered done) const {
    const CompletedCheckpointStore self = *this;
    service_->list(node_, session_, dir_,
                   [self, done = std::move(done)](
                       CoordinationStatus status,
                       std::vector<std::pair<std::string, CoordinationNode>> entries) {
                       if (status != CoordinationStatus::ok) {
                           done(false, {});
                           return;
                       }
                       std::vector<std::string> keys;
                       for (const auto& [path, entry] : entries) keys.push_back(entry.value);
                       self.read_metadata(std::move(keys), {}, done);
                   });
}

void CompletedCheckpointStore::read_metadata(std::vector<std::string> keys,
                                             std::vector<CompletedCheckpoint> read,
                                             Recovered done) const {
    if (read.size() == keys.size()) {
        done(true, std::move(read));
        return;
    }
    const CompletedCheckpointStore self = *this;
    const std::string key = keys[read.size()];
    storage_->get(node_, key,
                  [self, keys = std::move(keys), read = std::move(read), done = std::move(done),
                   key](sim::StorageStatus status, std::string value) mutable {
                      if (status != sim::StorageStatus::ok) {
                          done(false, {});
                          return;
                      }
                      CompletedCheckpoint checkpoint = parse_checkpoint_metadata(value);
                      checkpoint.metadata_key = key;
                      read.push_back(std::move(checkpoint));
                      self.read_metadata(std::move(keys), std::move(read), std::move(done));
                  });
}

}  // namespace eosim::engine
