package main

import (
	"context"
	"flag"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runGroupConsume: MEMBERS clients join one consumer group (KIP-848 when -protocol=consumer,
// else the classic protocol) and read TOPIC from the start until RECORDS records arrived
// between them. Reports the time from the start to the first record (the group's first
// assignment), the consume rate from the first record on, and the records each member read.
//
//	bench-driver group-consume BOOTSTRAP TOPIC -records N -members M [-group G] [-protocol classic|consumer]
func runGroupConsume(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("group-consume", flag.ExitOnError)
	records := fl.Int64("records", 100000, "records to read between all members")
	members := fl.Int("members", 1, "consumers in the group")
	group := fl.String("group", "bench-"+topic, "group id")
	protocol := fl.String("protocol", "classic", "classic or consumer (KIP-848)")
	timeout := fl.Duration("timeout", 180*time.Second, "give up after")
	_ = fl.Parse(argv)

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var n, bytes atomic.Int64
	var firstNs atomic.Int64
	start := time.Now()
	perMember := make([]int64, *members)
	var wg sync.WaitGroup
	for i := 0; i < *members; i++ {
		opts := []kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic), kgo.ConsumerGroup(*group),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit()}
		if *protocol == "classic" {
			opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			die("client: %v", err)
		}
		defer cl.Close()
		wg.Add(1)
		go func(i int, cl *kgo.Client) {
			defer wg.Done()
			for n.Load() < *records && ctx.Err() == nil {
				fs := cl.PollFetches(ctx)
				fs.EachError(func(t string, p int32, err error) {
					if ctx.Err() == nil {
						die("fetch %s/%d: %v", t, p, err)
					}
				})
				fs.EachRecord(func(r *kgo.Record) {
					firstNs.CompareAndSwap(0, time.Since(start).Nanoseconds())
					perMember[i]++
					n.Add(1)
					bytes.Add(int64(len(r.Value) + len(r.Key)))
				})
			}
			if n.Load() >= *records {
				cancel() // the others stop polling
			}
		}(i, cl)
	}
	wg.Wait()
	if n.Load() < *records {
		die("timed out after %d of %d records", n.Load(), *records)
	}
	total := time.Since(start).Seconds()
	first := float64(firstNs.Load()) / 1e9
	secs := total - first
	emit(map[string]any{"records": n.Load(), "bytes": bytes.Load(), "first_record_s": first, "seconds": secs,
		"mib_s": float64(bytes.Load()) / secs / (1 << 20), "per_member": perMember})
}
