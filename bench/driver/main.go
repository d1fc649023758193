// bench-driver: the small franz-go helpers bench/run.sh needs besides Kafka's own perf tools.
//
//	bench-driver create-topic BOOTSTRAP TOPIC PARTITIONS [key=value ...]
//	bench-driver delete-topic BOOTSTRAP TOPIC
//	bench-driver latency BOOTSTRAP TOPIC [flags]   produce-to-consume latency at a fixed rate
//	bench-driver consume BOOTSTRAP TOPIC RECORDS [TIMEOUT_S] [--trace] [-fetch-mib=N] assign-based (group-less) consume rate
//	bench-driver group-consume BOOTSTRAP TOPIC [flags] one group of N members reads TOPIC (group_consume.go)
//	bench-driver produce BOOTSTRAP TOPIC [flags]    native-client produce rate for a duration
//	bench-driver many-* BOOTSTRAP PREFIX ...         the many-partitions workload (many.go)
//	bench-driver fill BOOTSTRAP TOPIC [flags]       GiBs of timestamped records into partition 0 (fill.go)
//	bench-driver http-load URL [flags]              closed-loop keep-alive GETs (httpload.go)
//	bench-driver share-consume BOOTSTRAP TOPIC [flags] share-group consume rate, 1..n consumers (share.go)
//	bench-driver txn BOOTSTRAP TOPIC [flags]        transactions per second, version 1 or 2 (txn.go)
//	bench-driver s3-put ENDPOINT BUCKET [flags]     an object store's raw PUT rate (s3put.go)
//
// Results are one JSON object on stdout; diagnostics go to stderr; exit 1 on failure.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func die(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "bench-driver: "+format+"\n", a...)
	os.Exit(1)
}

func emit(v any) {
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		die("%v", err)
	}
}

func admin(bootstrap string) (*kadm.Client, func()) {
	cl, err := kgo.NewClient(seeds(bootstrap)...)
	if err != nil {
		die("client: %v", err)
	}
	return kadm.NewClient(cl), cl.Close
}

// createTopic creates TOPIC with PARTITIONS partitions, replication factor 1 and the given
// topic configs; an existing topic is an error (every benchmark step uses a fresh topic).
func createTopic(bootstrap, topic string, partitions int32, kv []string) {
	configs := map[string]*string{}
	for _, s := range kv {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			die("bad config %q", s)
		}
		configs[k] = &v
	}
	adm, done := admin(bootstrap)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	// At most createStep partitions a request: Kafka's controller refuses an operation of more
	// than 10,000 metadata records (QuorumController.MAX_RECORDS_PER_USER_OP), and a topic's
	// creation writes one per partition; the rest are added with CreatePartitions, the same
	// steps on every broker.
	const createStep = 5000
	first := min(partitions, createStep)
	resp, err := adm.CreateTopic(ctx, first, 1, configs, topic)
	if err == nil {
		err = resp.Err
	}
	for n := first; err == nil && n < partitions; {
		n = min(partitions, n+createStep)
		var r kadm.CreatePartitionsResponses
		if r, err = adm.UpdatePartitions(ctx, int(n), topic); err == nil {
			err = r[topic].Err
		}
	}
	if err != nil {
		die("create %s: %v", topic, err)
	}
	// Ready when the metadata shows every partition with a leader (Kafka elects them
	// asynchronously after CreateTopics answers), so a producer started next does not
	// spend its measured time waiting for the topic.
	for {
		md, err := adm.Metadata(ctx, topic)
		if err == nil {
			if td, ok := md.Topics[topic]; ok && td.Err == nil && len(td.Partitions) == int(partitions) {
				ready := true
				for _, p := range td.Partitions {
					ready = ready && p.Err == nil && p.Leader >= 0
				}
				if ready {
					break
				}
			}
		}
		if ctx.Err() != nil {
			die("topic %s not ready: %v", topic, ctx.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
	emit(map[string]any{"created": topic})
}

func deleteTopic(bootstrap, topic string) {
	adm, done := admin(bootstrap)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.DeleteTopic(ctx, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		die("delete %s: %v", topic, err)
	}
	emit(map[string]any{"deleted": topic})
}

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "http-load" {
		runHTTPLoad(os.Args[2], os.Args[3:])
		return
	}
	if len(os.Args) < 4 {
		die("usage: bench-driver create-topic|delete-topic|latency|consume|produce BOOTSTRAP TOPIC ...")
	}
	cmd, bootstrap, topic, rest := os.Args[1], os.Args[2], os.Args[3], os.Args[4:]
	switch cmd {
	case "create-topic":
		if len(rest) < 1 {
			die("create-topic needs PARTITIONS")
		}
		n, err := strconv.Atoi(rest[0])
		if err != nil {
			die("bad partitions %q", rest[0])
		}
		createTopic(bootstrap, topic, int32(n), rest[1:])
	case "delete-topic":
		deleteTopic(bootstrap, topic)
	case "latency":
		runLatency(bootstrap, topic, rest)
	case "group-consume":
		runGroupConsume(bootstrap, topic, rest)
	case "produce":
		runProduce(bootstrap, topic, rest)
	case "consume":
		trace, fetchMiB := false, int32(1)
		for len(rest) > 0 && strings.HasPrefix(rest[len(rest)-1], "-") {
			last := rest[len(rest)-1]
			if last == "--trace" {
				trace = true
			} else if v, ok := strings.CutPrefix(last, "-fetch-mib="); ok {
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil || n < 1 || n > 1024 {
					die("bad %s", last)
				}
				fetchMiB = int32(n)
			} else {
				die("unknown consume flag %q", last)
			}
			rest = rest[:len(rest)-1]
		}
		if len(rest) < 1 {
			die("consume needs RECORDS")
		}
		n, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil {
			die("bad records %q", rest[0])
		}
		timeout := 120.0
		if len(rest) > 1 {
			if timeout, err = strconv.ParseFloat(rest[1], 64); err != nil || timeout <= 0 {
				die("bad timeout %q", rest[1])
			}
		}
		runConsume(bootstrap, topic, n, time.Duration(timeout*float64(time.Second)), trace, fetchMiB)
	case "fill":
		runFill(bootstrap, topic, rest)
	case "s3-put": // ENDPOINT BUCKET: the arguments' places as BOOTSTRAP TOPIC
		runS3Put(bootstrap, topic, rest)
	case "share-consume":
		runShareConsume(bootstrap, topic, rest)
	case "txn":
		runTxn(bootstrap, topic, rest)
	case "many-create", "many-metadata", "many-produce", "many-consume", "many-ready":
		runMany(cmd, bootstrap, topic, rest)
	default:
		die("unknown command %q", cmd)
	}
}
