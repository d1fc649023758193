package main

import (
	"context"
	"crypto/rand"
	"flag"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runProduce drives TOPIC as fast as it accepts records for a fixed duration, from several
// independent franz-go clients (one connection each) in this process, and reports the
// acknowledged bytes per second. It is the native-client counterpart of ProducerPerformance:
// on a small machine a JVM client is often the bottleneck, not the broker.
func runProduce(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("produce", flag.ExitOnError)
	clients := fl.Int("clients", 1, "independent producer clients")
	size := fl.Int("record-size", 1024, "value bytes per record")
	seconds := fl.Float64("seconds", 5, "how long to keep producing")
	acks := fl.String("acks", "1", "1 or all")
	maxBatch := fl.Int("max-batch-bytes", 0, "franz-go's ProducerBatchMaxBytes (0: its default, 1,000,012)")
	limit := fl.Int64("bytes", 0, "stop once this many value bytes were sent, if before the deadline (0: no limit)")
	trace := fl.Bool("trace", false, "add each Produce round trip's figures (rt_trace.go) to the result")
	_ = fl.Parse(argv)

	value := make([]byte, *size) // random and sent uncompressed, as ProducerPerformance does
	rand.Read(value)
	var acked, failed, sent atomic.Int64
	onDone := func(r *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
			return
		}
		acked.Add(int64(len(r.Value)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cls []*kgo.Client
	tr := newTrace(0)
	for i := 0; i < *clients; i++ {
		self := new(*kgo.Client)
		opts := append(seeds(bootstrap), kgo.DefaultProduceTopic(topic),
			kgo.ProducerBatchCompression(kgo.NoCompression()), // franz-go compresses by default
			// franz-go buffers 10,000 records by default: 10 GiB of 1 MiB records, all sent after
			// the deadline. 64 MiB keeps what is sent after it small (1 KiB records: unchanged).
			kgo.MaxBufferedBytes(64<<20))
		if *maxBatch > 0 {
			opts = append(opts, kgo.ProducerBatchMaxBytes(int32(*maxBatch)))
		}
		if *acks == "all" {
			opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
		} else {
			opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
		}
		if *trace {
			opts = append(opts, tr.hooks(self))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			die("client: %v", err)
		}
		*self = cl
		defer cl.Close()
		cls = append(cls, cl)
	}
	start := time.Now()
	deadline := start.Add(time.Duration(*seconds * 1e9))
	var wg sync.WaitGroup
	for _, cl := range cls {
		wg.Add(1)
		go func(cl *kgo.Client) {
			defer wg.Done()
			for time.Now().Before(deadline) && (*limit == 0 || sent.Load() < *limit) {
				for i := 0; i < 256; i++ {
					sent.Add(int64(len(value)))
					cl.Produce(ctx, &kgo.Record{Value: value}, onDone)
				}
			}
			if err := cl.Flush(ctx); err != nil {
				die("flush: %v", err)
			}
		}(cl)
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	if failed.Load() > 0 {
		die("%d records failed", failed.Load())
	}
	res := map[string]any{"bytes": acked.Load(), "seconds": secs, "mib_s": float64(acked.Load()) / secs / (1 << 20)}
	if *trace {
		res["trace"] = tr.report()
	}
	emit(res)
}
