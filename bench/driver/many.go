package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The many-partitions workload (bench/many_partitions.sh): TOPICS topics named PREFIX-<i>, each
// with PARTITIONS partitions.
//
//	bench-driver many-create   BOOTSTRAP PREFIX TOPICS PARTITIONS
//	bench-driver many-metadata BOOTSTRAP PREFIX TOPICS [--requests N]
//	bench-driver many-produce  BOOTSTRAP PREFIX TOPICS PARTITIONS [--records N] [--record-size B]
//	bench-driver many-consume  BOOTSTRAP PREFIX TOPICS PARTITIONS RECORDS
//	bench-driver many-ready    BOOTSTRAP PREFIX TOPICS PARTITIONS
//
// many-create sets the topic configs of BENCH_TOPIC_CONFIGS ("name=value,name=value"; none when unset).

func manyTopics(prefix string, topics int) []string {
	out := make([]string, topics)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

// topicConfigs: BENCH_TOPIC_CONFIGS as CreateTopics takes it (nil when unset).
func topicConfigs() map[string]*string {
	env := os.Getenv("BENCH_TOPIC_CONFIGS")
	if env == "" {
		return nil
	}
	out := map[string]*string{}
	for _, kv := range strings.Split(env, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			die("BENCH_TOPIC_CONFIGS: %q is not name=value", kv)
		}
		out[k] = &v
	}
	return out
}

// runManyCreate creates the topics (20 per CreateTopics request) and waits until the metadata
// shows every partition with a leader.
func runManyCreate(bootstrap, prefix string, topics int, partitions int32) {
	adm, done := admin(bootstrap)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	names := manyTopics(prefix, topics)
	configs := topicConfigs()
	start := time.Now()
	for i := 0; i < len(names); i += 20 {
		j := min(i+20, len(names))
		resp, err := adm.CreateTopics(ctx, partitions, 1, configs, names[i:j]...)
		if err != nil {
			die("create: %v", err)
		}
		for _, r := range resp {
			if r.Err != nil {
				die("create %s: %v", r.Topic, r.Err)
			}
		}
	}
	for {
		md, err := adm.Metadata(ctx, names...)
		if err == nil {
			ready := true
			for _, n := range names {
				td, ok := md.Topics[n]
				ready = ready && ok && td.Err == nil && len(td.Partitions) == int(partitions)
				if ready {
					for _, p := range td.Partitions {
						ready = ready && p.Err == nil && p.Leader >= 0
					}
				}
			}
			if ready {
				break
			}
		}
		if ctx.Err() != nil {
			die("topics not ready: %v", ctx.Err())
		}
		time.Sleep(100 * time.Millisecond)
	}
	emit(map[string]any{"topics": topics, "partitions": partitions, "seconds": time.Since(start).Seconds()})
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return sorted[i]
}

// runManyMetadata times Metadata requests (the highest version both sides support) over one connection: for every topic (a null
// topic list) and for one topic, alternately, N of each. Latencies in ms.
func runManyMetadata(bootstrap, prefix string, topics int, argv []string) {
	fl := flag.NewFlagSet("many-metadata", flag.ExitOnError)
	n := fl.Int("requests", 50, "requests of each kind")
	_ = fl.Parse(argv)
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	one := fmt.Sprintf("%s-%d", prefix, topics/2)
	var all, single []float64
	var allParts, oneParts int
	for i := 0; i < *n+1; i++ { // the first of each kind warms the connection up and is not counted
		req := kmsg.NewPtrMetadataRequest()
		req.Topics = nil // every topic
		t0 := time.Now()
		resp, err := req.RequestWith(ctx, cl)
		el := float64(time.Since(t0).Microseconds()) / 1000
		if err != nil {
			die("metadata (all): %v", err)
		}
		parts := 0
		for _, t := range resp.Topics {
			parts += len(t.Partitions)
		}
		allParts = parts
		if i > 0 {
			all = append(all, el)
		}
		req = kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(one)
		req.Topics = []kmsg.MetadataRequestTopic{rt}
		t0 = time.Now()
		resp, err = req.RequestWith(ctx, cl)
		el = float64(time.Since(t0).Microseconds()) / 1000
		if err != nil {
			die("metadata (one): %v", err)
		}
		oneParts = 0
		for _, t := range resp.Topics {
			oneParts += len(t.Partitions)
		}
		if i > 0 {
			single = append(single, el)
		}
	}
	sort.Float64s(all)
	sort.Float64s(single)
	emit(map[string]any{"all_partitions": allParts, "one_partitions": oneParts,
		"all_p50_ms": quantile(all, 0.5), "all_p99_ms": quantile(all, 0.99),
		"one_p50_ms": quantile(single, 0.5), "one_p99_ms": quantile(single, 0.99)})
}

// runManyProduce produces RECORDS records of B bytes, acks=1, round-robin over every partition
// of every topic (record i goes to topic i mod TOPICS, partition (i / TOPICS) mod PARTITIONS), as
// fast as the broker accepts them, from one franz-go client.
func runManyProduce(bootstrap, prefix string, topics int, partitions int32, argv []string) {
	fl := flag.NewFlagSet("many-produce", flag.ExitOnError)
	records := fl.Int64("records", 100000, "records to produce")
	size := fl.Int("record-size", 1024, "value bytes per record")
	_ = fl.Parse(argv)
	value := make([]byte, *size)
	rand.Read(value)
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(), kgo.MaxBufferedRecords(1<<16))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	names := manyTopics(prefix, topics)
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	var acked, failed atomic.Int64
	var firstErr atomic.Value
	onDone := func(r *kgo.Record, err error) {
		if err != nil {
			if failed.Add(1) == 1 {
				firstErr.Store(err)
			}
			return
		}
		acked.Add(int64(len(r.Value)))
	}
	start := time.Now()
	for i := int64(0); i < *records; i++ {
		t := i % int64(topics)
		p := (i / int64(topics)) % int64(partitions)
		cl.Produce(ctx, &kgo.Record{Topic: names[t], Partition: int32(p), Value: value}, onDone)
	}
	if err := cl.Flush(ctx); err != nil {
		die("flush: %v", err)
	}
	secs := time.Since(start).Seconds()
	if failed.Load() > 0 {
		die("%d records failed: %v", failed.Load(), firstErr.Load())
	}
	emit(map[string]any{"records": *records, "bytes": acked.Load(), "seconds": secs,
		"mib_s": float64(acked.Load()) / secs / (1 << 20)})
}

// runManyConsume reads every partition of every topic from the start without a group until
// RECORDS records arrived, and reports the rate.
func runManyConsume(bootstrap, prefix string, topics int, partitions int32, records int64) {
	assign := map[string]map[int32]kgo.Offset{}
	for _, n := range manyTopics(prefix, topics) {
		ps := map[int32]kgo.Offset{}
		for p := int32(0); p < partitions; p++ {
			ps[p] = kgo.NewOffset().AtStart()
		}
		assign[n] = ps
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumePartitions(assign),
		kgo.FetchMaxPartitionBytes(1<<20), kgo.FetchMaxBytes(50<<20))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	emit(consumeAndReport(cl, records, 600*time.Second))
}

// runMany parses the arguments common to the many-* commands.
func runMany(cmd, bootstrap, prefix string, rest []string) {
	num := func(i int, what string) int64 {
		if len(rest) <= i {
			die("%s needs %s", cmd, what)
		}
		v, err := strconv.ParseInt(rest[i], 10, 64)
		if err != nil || v <= 0 {
			die("bad %s %q", what, rest[i])
		}
		return v
	}
	topics := int(num(0, "TOPICS"))
	switch cmd {
	case "many-create":
		runManyCreate(bootstrap, prefix, topics, int32(num(1, "PARTITIONS")))
	case "many-metadata":
		runManyMetadata(bootstrap, prefix, topics, rest[1:])
	case "many-produce":
		runManyProduce(bootstrap, prefix, topics, int32(num(1, "PARTITIONS")), rest[2:])
	case "many-ready":
		runManyReady(bootstrap, prefix, topics, int32(num(1, "PARTITIONS")))
	case "many-consume":
		runManyConsume(bootstrap, prefix, topics, int32(num(1, "PARTITIONS")), num(2, "RECORDS"))
	}
}

// runManyReady asks for the end offset of every partition until every one is answered without
// error (a broker that answers ApiVersions may still be loading its logs), and reports how long
// that took and the sum of the end offsets.
func runManyReady(bootstrap, prefix string, topics int, partitions int32) {
	adm, done := admin(bootstrap)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	names := manyTopics(prefix, topics)
	start := time.Now()
	for {
		offs, err := adm.ListEndOffsets(ctx, names...)
		if err == nil {
			n, sum, ok := 0, int64(0), true
			offs.Each(func(o kadm.ListedOffset) {
				n++
				sum += o.Offset
				ok = ok && o.Err == nil
			})
			if ok && n == topics*int(partitions) {
				emit(map[string]any{"seconds": time.Since(start).Seconds(), "end_offsets": sum})
				return
			}
		}
		if ctx.Err() != nil {
			die("partitions not ready: %v", ctx.Err())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
