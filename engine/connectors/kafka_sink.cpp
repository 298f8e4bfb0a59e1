#include "engine/connectors/kafka_sink.h"

#include <algorithm>
#include <string_view>

#include "engine/connectors/builtin_sinks.h"
#include "engine/state/blob_codec.h"
#include "engine/vocabulary/protocol_points.h"

namespace eosim::engine {

using sim::external::KafkaError;
using sim::external::ProducerHandle;

KafkaSink::KafkaSink(const KafkaSinkOptions& options, SinkContext& context,
                     sim::external::KafkaCluster& kafka, const RuntimeConfig& runtime)
    : options_(options),
      context_(context),
      kafka_(kafka),
      runtime_(runtime),
      partitions_(kafka.partitions(options.topic)),
      client_(kafka, options.topic, options.idempotence) {}

namespace {

// An error as the sink reports it: Kafka's exception text where a Flink user greps for it.
std::string kafka_error_text(KafkaError error) {
    if (error != KafkaError::invalid_transaction_timeout) return to_string(error);
    return "InvalidTxnTimeoutException: The transaction timeout is larger than the maximum value allowed by the broker "
           "(as configured by transaction.max.timeout.ms)";
}

}  // namespace

std::string KafkaSink::transactional_id(int64_t checkpoint_id) const {
    return options_.transactional_id_prefix + "-" + std::to_string(context_.subtask()) + "-" +
           std::to_string(checkpoint_id);
}

bool KafkaSink::open(int64_t restored_checkpoint_id,
                     const std::vector<RestoredSinkState>& restored) {
    if (options_.guarantee != DeliveryGuarantee::exactly_once) return true;
    for (const RestoredSinkState& from : restored) {
        BlobReader in(from.state);
        while (!in.done()) {
            Pending p;
            p.checkpoint_id = in.get_i64();
            p.producer.transactional_id = in.get_string();
            p.producer.producer_id = in.get_i64();
            p.producer.epoch = static_cast<int32_t>(in.get_i64());
            pending_.push_back(std::move(p));
        }
    }
    // Several subtasks' transactions (a scale-in): commit in checkpoint order.
    std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
        return a.checkpoint_id < b.checkpoint_id;
    });
    // Everything restored was pre-committed for a checkpoint that completed: commit it.
    commit_target_ = restored_checkpoint_id;
    if (!commit_up_to(restored_checkpoint_id)) schedule_commit_retry();
    // The ids this subtask answers for: its own, those of every subtask whose state it was given
    // (on a scale-in the removed subtasks'), and those of every other subtask index that maps to it
    // (restoring_subtask): a subtask that ran after the restored checkpoint -- a scale-out before
    // the failure -- left no state, but may have left transactions (FLINK-23854: after a downscale
    // subtask i cleans every old subtask j with j % parallelism = i). Only transactions above the
    // restored checkpoint are lingering: a completed checkpoint's state holds ids up to its own, so
    // one at or below it that is still open is held by some restored state -- on a rescale possibly
    // another subtask's (a scale-in 3 -> 1 -> 3 gives subtask 0 the state holding subtask 2's old
    // ids) -- and committed from there.
    std::vector<std::string> ongoing;  // every ongoing id of our prefix, in id order
    if (const KafkaError error = kafka_.list_transactions(
            context_.node(), options_.transactional_id_prefix + "-", &ongoing);
        error != KafkaError::none) {
        context_.fail(std::string("cannot list lingering transactions: ") + to_string(error));
        return false;
    }
    std::vector<int32_t> owned{context_.subtask()};
    for (const RestoredSinkState& from : restored) {
        if (std::find(owned.begin(), owned.end(), from.subtask) == owned.end())
            owned.push_back(from.subtask);
    }
    for (const std::string& id : ongoing) {  // subtasks of the listing that map here, beyond those
        const int32_t subtask = subtask_of(id);
        if (subtask >= 0 &&
            restoring_subtask(subtask, context_.parallelism()) == context_.subtask() &&
            std::find(owned.begin(), owned.end(), subtask) == owned.end()) {
            owned.push_back(subtask);
        }
    }
    for (const int32_t subtask : owned) {
        if (!abort_lingering(subtask, restored_checkpoint_id, ongoing)) return false;
    }
    context_.announce(points::kSinkRecovered, restored_checkpoint_id);
    return begin_transaction(restored_checkpoint_id + 1);
}

namespace {

bool all_digits(std::string_view text) {
    return !text.empty() && text.size() <= 18 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

int32_t KafkaSink::subtask_of(const std::string& id) const {
    // `prefix-subtask-N`, both all digits: the ids of another sink whose prefix extends ours (e.g.
    // "sink-0-1-5" of a sink "sink-0" next to "sink") do not match.
    const std::string_view rest =
        std::string_view(id).substr(options_.transactional_id_prefix.size() + 1);
    const size_t dash = rest.find('-');
    if (dash == std::string_view::npos || !all_digits(rest.substr(0, dash)) ||
        rest.substr(0, dash).size() > 9 || !all_digits(rest.substr(dash + 1))) {
        return -1;
    }
    return std::stoi(std::string(rest.substr(0, dash)));
}

bool KafkaSink::abort_lingering(int32_t subtask, int64_t restored_checkpoint_id,
                                const std::vector<std::string>& ongoing) {
    // Abort each ongoing transaction of the subtask's ids (`prefix-subtask-N`) above the restored
    // checkpoint. Ids need not be contiguous: a checkpoint that never reached the subtask leaves
    // its id unused, which is why a probe that stops at the first unused id can miss one.
    const std::string own = options_.transactional_id_prefix + "-" + std::to_string(subtask) + "-";
    for (const std::string& id : ongoing) {
        if (!id.starts_with(own) || !all_digits(std::string_view(id).substr(own.size()))) continue;
        if (std::stoll(id.substr(own.size())) <= restored_checkpoint_id)
            continue;  // a restored state's: committed from there
        ProducerHandle
            fencing;  // init_transactions fences the old producer and aborts its transaction
        if (const KafkaError error = kafka_.init_transactions(context_.node(), id, &fencing,
                                                              options_.transaction_timeout);
            error != KafkaError::none) {
            context_.fail(std::string("cannot abort lingering transaction ") + id + ": " +
                          kafka_error_text(error));
            return false;
        }
        context_.observer().transaction_event(context_.world().now(), id, "aborted-lingering");
    }
    return true;
}

// Like Flink's KafkaWriter on close: abort the open transaction (never a pre-committed one: the
// next attempt commits those from its restored state). When a newer attempt already took over the
// transactional id, the abort is fenced -- the harmless end of a zombie.
void KafkaSink::close() {
    if (options_.guarantee != DeliveryGuarantee::exactly_once || current_.transactional_id.empty())
        return;
    abort_open_transaction();
}

// An abort refused with a retriable error is tried again by the sink's own executor, which close()
// leaves running: a zombie's transaction begun after the next attempt opened is above nobody's
// restored checkpoint yet, so no successor aborts it (until a later restore), and it would hold
// back read_committed readers until the broker's transaction timeout.
void KafkaSink::abort_open_transaction() {
    const KafkaError error = kafka_.abort(context_.node(), current_);
    if (error == KafkaError::none) {
        context_.observer().transaction_event(context_.world().now(), current_.transactional_id,
                                              "aborted");
    } else if (sim::external::is_retriable(error)) {
        context_.after(runtime_.commit_retry_delay, [this] { abort_open_transaction(); });
    }
}

bool KafkaSink::begin_transaction(int64_t checkpoint_id) {
    KafkaError error = kafka_.init_transactions(context_.node(), transactional_id(checkpoint_id),
                                                &current_, options_.transaction_timeout);
    if (error == KafkaError::none) error = kafka_.begin(context_.node(), current_);
    if (error != KafkaError::none) {
        context_.fail(std::string("cannot begin transaction ") + transactional_id(checkpoint_id) +
                      ": " + kafka_error_text(error));
        return false;
    }
    client_.use(current_);
    context_.observer().transaction_event(context_.world().now(), current_.transactional_id,
                                          "begun");
    return true;
}

void KafkaSink::write(const RecordBatch& records) {
    outgoing_.clear();
    for (const Record& record : records) {
        const auto partition =
            static_cast<int32_t>(((record.key % partitions_) + partitions_) % partitions_);
        outgoing_.emplace_back(
            partition, sim::external::KafkaRecord{record.key, record.value, record.timestamp});
    }
    KafkaError error = KafkaError::none;
    if (options_.guarantee != DeliveryGuarantee::exactly_once && !client_ready_) {
        error = client_.init(context_.node());  // the producer id, taken at the first write
        client_ready_ = error == KafkaError::none;
    }
    if (error == KafkaError::none) error = client_.send(context_.node(), outgoing_);
    if (error != KafkaError::none && write_error_ == KafkaError::none) write_error_ = error;
}

bool KafkaSink::pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) {
    if (options_.guarantee != DeliveryGuarantee::none && write_error_ != KafkaError::none) {
        *error =
            std::string("a write failed since the last checkpoint: ") + to_string(write_error_);
        return false;
    }
    write_error_ = KafkaError::none;
    if (options_.guarantee != DeliveryGuarantee::exactly_once) return true;
    pending_.push_back(Pending{checkpoint_id, current_});
    BlobWriter out;
    for (const Pending& p : pending_) {
        out.put_i64(p.checkpoint_id);
        out.put_string(p.producer.transactional_id);
        out.put_i64(p.producer.producer_id);
        out.put_i64(p.producer.epoch);
    }
    *state = out.take();
    context_.observer().transaction_event(context_.world().now(), current_.transactional_id,
                                          "precommitted");
    context_.announce(points::kSinkPrecommitted, checkpoint_id);
    return begin_transaction(checkpoint_id + 1);
}

void KafkaSink::checkpoint_complete(int64_t checkpoint_id) {
    if (checkpoint_id <= commit_target_) return;
    commit_target_ = checkpoint_id;
    if (!commit_up_to(checkpoint_id)) schedule_commit_retry();
}

bool KafkaSink::commit_up_to(int64_t checkpoint_id) {
    while (!pending_.empty() && pending_.front().checkpoint_id <= checkpoint_id) {
        const Pending& p = pending_.front();
        const KafkaError error = kafka_.commit(context_.node(), p.producer);
        const sim::Time now = context_.world().now();
        if (error != KafkaError::none && retry_commit(error))
            return false;  // retried after the delay
        if (error == KafkaError::none) {
            context_.observer().transaction_event(now, p.producer.transactional_id, "committed");
            context_.announce(points::kSinkCommitted, p.checkpoint_id);
        } else {
            context_.observer().likely_data_loss(now, p.producer.transactional_id,
                                                 to_string(error));
        }
        pending_.erase(pending_.begin());
    }
    return true;
}

void KafkaSink::schedule_commit_retry() {
    if (retry_scheduled_) return;
    retry_scheduled_ = true;
    context_.after(runtime_.commit_retry_delay, [this] {
        retry_scheduled_ = false;
        if (!commit_up_to(commit_target_)) schedule_commit_retry();
    });
}

std::unique_ptr<Sink> KafkaSinkConfig::make(SinkContext& context, const OutsideSystems& systems,
                                            const RuntimeConfig& runtime) const {
    return std::make_unique<KafkaSink>(options_, context, *systems.kafka, runtime);
}

std::vector<Record> KafkaSinkConfig::read_output(const OutsideSystems& systems) const {
    std::vector<Record> out;
    out.reserve(systems.kafka->committed_count(options_.topic));
    for_each_output(systems, [&out](const Record& r) { out.push_back(r); });
    return out;
}

void KafkaSinkConfig::for_each_output(const OutsideSystems& systems,
                                      const std::function<void(const Record&)>& visit) const {
    systems.kafka->for_each_committed(
        options_.topic, [&visit](const sim::external::KafkaRecord& r) {
            visit(Record{r.key, r.value, 0, RowKind::insert, r.timestamp});
        });
}

std::vector<std::string_view> KafkaSinkConfig::announced_points() const {
    if (options_.guarantee != DeliveryGuarantee::exactly_once) return {};
    return {points::kSinkPrecommitted, points::kSinkCommitted, points::kSinkRecovered};
}

std::vector<std::string> KafkaSinkConfig::claims() const {
    return {"Kafka topic \"" + options_.topic + "\"", "transactional_id_prefix \"" +
                                                          options_.transactional_id_prefix +
                                                          "\" (it defaults to the vertex id)"};
}

namespace {

std::string quoted_list(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return out;
}

std::shared_ptr<const SinkConfig> configure_kafka_sink(SinkOptions& options,
                                                       const std::string& vertex_id,
                                                       const SinkWorld& world) {
    KafkaSinkOptions o;
    o.topic = options.required_string("topic");
    const auto topics = world.topics();
    if (std::find(topics.begin(), topics.end(), o.topic) == topics.end()) {
        options.fail("topic", "expected a topic listed in /world/topics (" + quoted_list(topics) +
                                  "), found \"" + o.topic + "\"");
    }
    const auto read = world.source_topics();
    if (std::find(read.begin(), read.end(), o.topic) != read.end()) {
        options.fail("topic", "expected a topic no source reads, found \"" + o.topic +
                                  "\" (a source reads it)");
    }
    o.guarantee = static_cast<DeliveryGuarantee>(
        options.choice("guarantee", {"none", "at_least_once", "exactly_once"}, 2));
    o.transactional_id_prefix = options.string("transactional_id_prefix", vertex_id);
    o.idempotence = options.boolean("idempotence", true);
    if (options.has("transaction_timeout_ms")) {
        o.transaction_timeout = sim::Duration::millis(
            options.integer("transaction_timeout_ms", 0, 1, int64_t{1} << 40));
    }
    if (!o.idempotence && o.guarantee == DeliveryGuarantee::exactly_once) {
        options.fail(
            "idempotence",
            "expected true with guarantee exactly_once (Kafka transactions need enable.idempotence), found false");
    }
    o.settled_early = options.boolean("settled_early", false);
    if (o.settled_early && o.guarantee != DeliveryGuarantee::exactly_once) {
        options.fail(
            "settled_early",
            "expected false unless guarantee is exactly_once (only its commits can be outstanding), found true");
    }
    return std::make_shared<KafkaSinkConfig>(std::move(o));
}

}  // namespace

void register_kafka_sink(SinkRegistry& registry) {
    registry.add(SinkKind{
        "kafka",
        "Kafka topic; guarantee none, at_least_once or exactly_once (two-phase commit, after "
        "Flink's KafkaSink)",
        configure_kafka_sink, [](const nlohmann::json& options) {
            if (options.value("guarantee", "exactly_once") != "exactly_once") {
                // Transactions need idempotence; without them it is the one protection left.
                return twin_setting(
                    options, "idempotence", true, false, "idempotence_off",
                    "enable.idempotence=false: a request sent again after a lost answer "
                    "is written again");
            }
            std::vector<SinkTwin> twins = twin_setting(
                options, "guarantee", "exactly_once", "at_least_once", "at_least_once",
                "no transactions: records written as they come, replayed after a restore");
            for (SinkTwin& twin :
                 twin_setting(options, "settled_early", false, true, "settled_early",
                              "settled while a commit is outstanding: a finished task stops before "
                              "its final checkpoint's refused commit is retried")) {
                twin.targeted = true;
                twins.push_back(std::move(twin));
            }
            return twins;
        }});
}

}  // namespace eosim::engine
