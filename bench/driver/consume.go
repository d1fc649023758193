package main

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runConsume reads RECORDS records from every partition of TOPIC from the start, without a
// consumer group (direct assignment), and reports the rate from the first poll to the last
// record (dying after TIMEOUT). It is the fallback when ConsumerPerformance (which needs a group) cannot run.
func runConsume(bootstrap, topic string, records int64, timeout time.Duration) {
	cl, err := kgo.NewClient(append(seeds(bootstrap),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxPartitionBytes(1<<20),
	)...)
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	consumeAndReport(cl, records, timeout)
}

// consumeAndReport polls until `records` records arrived (dying on a fetch
// error or after `timeout`) and reports the rate from the first poll on.
func consumeAndReport(cl *kgo.Client, records int64, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var n, bytes int64
	start := time.Now()
	for n < records {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			die("timed out after %d of %d records", n, records)
		}
		fs.EachError(func(t string, p int32, err error) { die("fetch %s/%d: %v", t, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			n++
			bytes += int64(len(r.Value) + len(r.Key))
		})
	}
	secs := time.Since(start).Seconds()
	emit(map[string]any{"records": n, "bytes": bytes, "seconds": secs,
		"mib_s": float64(bytes) / secs / (1 << 20), "records_s": float64(n) / secs})
}
