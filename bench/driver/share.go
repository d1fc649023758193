package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// runShareConsume (share-consume): CONSUMERS share consumers (one franz-go client each, in this
// process) of a fresh share group GROUP (share.auto.offset.reset=earliest,
// share.isolation.level=read_committed) read TOPIC until RECORDS records were delivered in all;
// each poll's records are accepted at the next poll (franz-go's implicit ACCEPT). The records
// (RECORD-SIZE bytes) are produced in one transaction, committed only once every consumer has
// its assignment, so all of them become readable at once and no consumer prefetches records a
// later assignment takes from it (they would stay locked until their lock ran out). The rate
// runs from the first record delivered to the last.
func runShareConsume(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("share-consume", flag.ExitOnError)
	records := fl.Int64("records", 100000, "records to produce, then consume")
	size := fl.Int("record-size", 1024, "value bytes per record")
	consumers := fl.Int("consumers", 1, "share consumers")
	group := fl.String("group", "bench-share", "share group id")
	timeout := fl.Duration("timeout", 300*time.Second, "give up after")
	isolation := fl.String("isolation", "read_committed", "share.isolation.level (read_uncommitted: records readable as produced)")
	_ = fl.Parse(argv)
	setGroupConfigs(bootstrap, *group, map[string]string{"share.auto.offset.reset": "earliest",
		"share.isolation.level": *isolation})
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var n, bytes atomic.Int64
	var first, last atomic.Int64 // unix ns of the first and the last record delivered
	poll, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	clients := make([]*kgo.Client, *consumers)
	for i := range clients {
		cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic), kgo.ShareGroup(*group),
			kgo.FetchMaxPartitionBytes(1<<20))
		if err != nil {
			die("client: %v", err)
		}
		clients[i] = cl
	}
	for _, cl := range clients {
		wg.Add(1)
		go func(cl *kgo.Client) {
			defer wg.Done()
			for n.Load() < *records && poll.Err() == nil {
				fs := cl.PollFetches(poll)
				fs.EachError(func(t string, p int32, err error) {
					if poll.Err() == nil {
						die("share fetch %s/%d: %v", t, p, err)
					}
				})
				fs.EachRecord(func(r *kgo.Record) {
					now := time.Now().UnixNano()
					first.CompareAndSwap(0, now)
					bytes.Add(int64(len(r.Value) + len(r.Key)))
					if n.Add(1) == *records {
						last.Store(now)
						stop() // the other consumers' polls return
					}
				})
			}
		}(cl)
	}
	if os.Getenv("BENCH_DRIVER_DEBUG") != "" {
		go func() {
			for ctx.Err() == nil {
				time.Sleep(time.Second)
				fmt.Fprintf(os.Stderr, "%s %d\n", time.Now().Format("15:04:05"), n.Load())
			}
		}()
	}
	commit := shareFill(ctx, bootstrap, topic, *records, *size)
	waitAssigned(ctx, bootstrap, *group, *consumers)
	commit()
	wg.Wait()
	if n.Load() < *records {
		die("timed out after %d of %d records", n.Load(), *records)
	}
	for _, cl := range clients {
		cl.Close()
	}
	secs := time.Duration(last.Load() - first.Load()).Seconds()
	emit(map[string]any{"records": n.Load(), "bytes": bytes.Load(), "seconds": secs, "consumers": *consumers,
		"mib_s": float64(bytes.Load()) / secs / (1 << 20), "records_s": float64(n.Load()) / secs})
}

// shareFill produces n records of size bytes round-robin over TOPIC's partitions in one
// transaction and returns the function that commits it.
func shareFill(ctx context.Context, bootstrap, topic string, n int64, size int) func() {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.TransactionalID("bench-share-fill-"+topic), kgo.TransactionTimeout(240*time.Second),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(50000))
	if err != nil {
		die("client: %v", err)
	}
	if err := cl.BeginTransaction(); err != nil {
		die("begin: %v", err)
	}
	value := make([]byte, size)
	rand.Read(value)
	var failed atomic.Int64
	for i := int64(0); i < n; i++ {
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil || failed.Load() > 0 {
		die("preload: %v (%d failed)", err, failed.Load())
	}
	return func() {
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			die("commit the preload: %v", err)
		}
		cl.Close()
	}
}

// waitAssigned waits until the share group has `consumers` members, each assigned a partition.
func waitAssigned(ctx context.Context, bootstrap, group string, consumers int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	for {
		req := kmsg.NewPtrShareGroupDescribeRequest()
		req.GroupIDs = []string{group}
		resp, err := req.RequestWith(ctx, cl)
		if err == nil && len(resp.Groups) == 1 && len(resp.Groups[0].Members) == consumers {
			ready := true
			for _, m := range resp.Groups[0].Members {
				ready = ready && len(m.Assignment.TopicPartitions) > 0
			}
			if ready {
				return
			}
		}
		if ctx.Err() != nil {
			die("share group %s: members not assigned: %v", group, ctx.Err())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// setGroupConfigs sets the share group's configs (resource type GROUP).
func setGroupConfigs(bootstrap, group string, configs map[string]string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceType(32) // GROUP
	res.ResourceName = group
	for k, v := range configs {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = k
		c.Value = &v
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		die("alter group config: %v", err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			die("alter group config: error %d", r.ErrorCode)
		}
	}
}
