// A two-phase-commit sink into a document store, in Go (standard library only), speaking eosim's
// sink protocol (docs/sink-protocol.md) on stdin/stdout. Written against docs/sink-protocol.md only
// (not eosim's code), though by the doc's own author: not the independent check the issue asks for.
//
// Records are buffered; pre_commit(N) moves the buffer into checkpoint N's pending batch and returns
// every pending batch as the state; checkpoint_complete(N) writes the batches up to N with one bulk
// request each (document id "<key>-<value>", so writing a batch again changes nothing), retrying on a
// timer while a bulk request or an item fails. open() commits the batches of the restored states up
// to the restored checkpoint (a commit whose notification was lost) and drops the later ones (the
// job replays them). Output: the index "go-out", appended, exactly once, visible only when committed.
//
// -commit-on-pre-commit (the buggy twin, examples/go-docs-sink-buggy): the batch is written at the
// pre-commit, before the checkpoint completes: a checkpoint that then fails leaves its records
// visible (the bug class of "two-phase" sinks that commit in the first phase).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
)

const index = "go-out"

type Record struct {
	Key   int64 `json:"key"`
	Value int64 `json:"value"`
}

type Restored struct {
	Subtask int    `json:"subtask"`
	State   string `json:"state"`
}

// Message is any message from eosim (only the fields its type has are set).
type Message struct {
	Type         string          `json:"type"`
	Seq          int64           `json:"seq"`
	CheckpointID int64           `json:"checkpoint_id"`
	Records      []Record        `json:"records"`
	Restored     []Restored      `json:"restored"`
	Timer        json.RawMessage `json:"timer"`
}

// Result is eosim's answer to a call.
type Result struct {
	Ok    bool   `json:"ok"`
	Error string `json:"error"`
	Items []struct {
		Ok    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"items"`
}

var (
	in             = bufio.NewReaderSize(os.Stdin, 1<<20)
	out            = bufio.NewWriter(os.Stdout)
	commitEarly    = flag.Bool("commit-on-pre-commit", false, "the buggy twin: write at pre_commit")
	buffer         []Record
	pending        = map[int64][]Record{} // checkpoint id -> its batch, not yet written
	retryScheduled bool
)

func send(message interface{}) {
	line, err := json.Marshal(message)
	if err != nil {
		panic(err)
	}
	out.Write(line)
	out.WriteByte('\n')
	out.Flush()
}

func receive(into interface{}) {
	line, err := in.ReadBytes('\n')
	if err != nil {
		os.Exit(0) // eosim closed our stdin: the end
	}
	if err := json.Unmarshal(line, into); err != nil {
		fmt.Fprintln(os.Stderr, "go sink: bad line from eosim:", err)
		os.Exit(1)
	}
}

func call(arguments map[string]interface{}) Result {
	arguments["type"] = "call"
	arguments["system"] = "documents"
	send(arguments)
	var result Result
	receive(&result)
	return result
}

// write indexes a batch; true when every document is stored.
func write(batch []Record) bool {
	if len(batch) == 0 {
		return true
	}
	items := make([]map[string]interface{}, 0, len(batch))
	for _, r := range batch {
		items = append(items, map[string]interface{}{
			"op": "index", "id": fmt.Sprintf("%d-%d", r.Key, r.Value),
			"fields": map[string]int64{"key": r.Key, "value": r.Value}})
	}
	result := call(map[string]interface{}{"op": "bulk", "index": index, "items": items})
	if !result.Ok {
		return false
	}
	for _, item := range result.Items {
		if !item.Ok {
			return false // written again whole: the stored ones do not change
		}
	}
	return true
}

func pendingUpTo(checkpoint int64) []int64 {
	ids := []int64{}
	for id := range pending {
		if id <= checkpoint {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// commit writes the pending batches up to `checkpoint`, in order; what fails is retried on a timer.
func commit(checkpoint int64) {
	for _, id := range pendingUpTo(checkpoint) {
		if !write(pending[id]) {
			if !retryScheduled {
				retryScheduled = true
				send(map[string]interface{}{"type": "set_timer", "delay_ms": 100, "timer": checkpoint})
				var ack Result
				receive(&ack)
			}
			return
		}
		delete(pending, id)
		announce("sink.committed", id)
	}
}

// announce tells eosim of a protocol point (a fault may crash us there: then eosim sends nothing more).
func announce(point string, detail int64) {
	send(map[string]interface{}{"type": "announce", "point": point, "detail": detail})
	var ack Result
	receive(&ack)
}

func open(message Message) {
	buffer, pending, retryScheduled = nil, map[int64][]Record{}, false
	call(map[string]interface{}{"op": "create_index", "index": index})
	for _, restored := range message.Restored {
		var batches map[int64][]Record
		if err := json.Unmarshal([]byte(restored.State), &batches); err != nil {
			continue // a state this sink did not write: none
		}
		for id, batch := range batches {
			if id <= message.CheckpointID {
				pending[id] = append(pending[id], batch...)
			}
		}
	}
	commit(message.CheckpointID)
}

func handle(message Message) map[string]interface{} {
	answer := map[string]interface{}{"type": "done", "re": message.Seq}
	switch message.Type {
	case "open":
		open(message)
	case "write":
		buffer = append(buffer, message.Records...)
	case "pre_commit":
		if *commitEarly {
			if !write(buffer) {
				return map[string]interface{}{"type": "fail", "re": message.Seq, "reason": "bulk write failed"}
			}
		} else {
			pending[message.CheckpointID] = append(pending[message.CheckpointID], buffer...)
		}
		announce("sink.precommitted", message.CheckpointID)
		buffer = nil
		state, _ := json.Marshal(pending)
		answer["state"] = string(state)
		answer["settled"] = len(pending) == 0
	case "checkpoint_complete":
		commit(message.CheckpointID)
		answer["settled"] = len(pending) == 0
	case "timer":
		retryScheduled = false
		var checkpoint int64
		json.Unmarshal(message.Timer, &checkpoint)
		commit(checkpoint)
		answer["settled"] = len(pending) == 0
	}
	return answer
}

func main() {
	flag.Parse()
	send(map[string]interface{}{"type": "hello", "protocol": 1, "systems": []string{"documents"}, "reuse": true,
		"points": []string{"sink.precommitted", "sink.committed"},
		"output": map[string]string{"system": "documents", "index": index, "shape": "appended"}})
	for {
		var message Message
		receive(&message)
		send(handle(message))
	}
}
