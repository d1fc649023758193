package main

import (
	"context"
	"crypto/rand"
	"flag"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// runShareConsume (share-consume): RECORDS records of RECORD-SIZE bytes are produced into TOPIC
// (not measured), the share group GROUP is set to share.auto.offset.reset=earliest, then
// CONSUMERS share consumers (one franz-go client each, in this process) read until RECORDS
// records were delivered in all; each poll's records are accepted at the next poll (franz-go's
// implicit ACCEPT). The rate runs from the first record delivered to the last, so the join (a
// share group assigns partitions only once their state is initialized: a heartbeat interval)
// is not in it.
func runShareConsume(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("share-consume", flag.ExitOnError)
	records := fl.Int64("records", 100000, "records to produce, then consume")
	size := fl.Int("record-size", 1024, "value bytes per record")
	consumers := fl.Int("consumers", 1, "share consumers")
	group := fl.String("group", "bench-share", "share group id")
	preload := fl.Bool("preload", true, "produce the records first")
	timeout := fl.Duration("timeout", 180*time.Second, "give up after")
	_ = fl.Parse(argv)
	if *preload {
		shareFill(bootstrap, topic, *records, *size)
	}
	setEarliest(bootstrap, *group)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var n, bytes atomic.Int64
	var first atomic.Int64 // unix ns of the first record delivered
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
			for n.Load() < *records && ctx.Err() == nil {
				fs := cl.PollFetches(ctx)
				fs.EachError(func(t string, p int32, err error) {
					if ctx.Err() == nil {
						die("share fetch %s/%d: %v", t, p, err)
					}
				})
				fs.EachRecord(func(r *kgo.Record) {
					first.CompareAndSwap(0, time.Now().UnixNano())
					n.Add(1)
					bytes.Add(int64(len(r.Value) + len(r.Key)))
				})
			}
		}(cl)
	}
	wg.Wait()
	end := time.Now()
	if n.Load() < *records {
		die("timed out after %d of %d records", n.Load(), *records)
	}
	for _, cl := range clients {
		cl.Close()
	}
	secs := end.Sub(time.Unix(0, first.Load())).Seconds()
	emit(map[string]any{"records": n.Load(), "bytes": bytes.Load(), "seconds": secs, "consumers": *consumers,
		"mib_s": float64(bytes.Load()) / secs / (1 << 20), "records_s": float64(n.Load()) / secs})
}

// shareFill produces n records of size bytes round-robin over TOPIC's partitions (acks=all).
func shareFill(bootstrap, topic string, n int64, size int) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(50000))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	value := make([]byte, size)
	rand.Read(value)
	var failed atomic.Int64
	ctx := context.Background()
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
}

// setEarliest sets the share group's share.auto.offset.reset to earliest (a GROUP config).
func setEarliest(bootstrap, group string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceType(32) // GROUP
	res.ResourceName = group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name = "share.auto.offset.reset"
	v := "earliest"
	c.Value = &v
	res.Configs = append(res.Configs, c)
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
