package main

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runConsume reads RECORDS records from every partition of TOPIC from the start, without a
// consumer group (direct assignment), and reports the rate from the first poll to the last
// record (dying after TIMEOUT). With trace, the result carries each Fetch round trip's figures
// (rt_trace.go). fetchMiB is the most each partition gives a Fetch (franz-go's
// FetchMaxPartitionBytes; 1 MiB, Kafka's default, unless -fetch-mib). It is the fallback when ConsumerPerformance (which needs a group) cannot run.
func runConsume(bootstrap, topic string, records int64, timeout time.Duration, trace bool, fetchMiB int32) {
	opts := append(seeds(bootstrap),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxPartitionBytes(fetchMiB<<20),
	)
	tr, self := newTrace(1), new(*kgo.Client)
	if trace {
		opts = append(opts, tr.hooks(self))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		die("client: %v", err)
	}
	*self = cl
	defer cl.Close()
	res := consumeAndReport(cl, records, timeout)
	if trace {
		res["trace"] = tr.report()
	}
	emit(res)
}

// consumeAndReport polls until `records` records arrived (dying on a fetch
// error or after `timeout`) and gives the rate from the first poll on.
func consumeAndReport(cl *kgo.Client, records int64, timeout time.Duration) map[string]any {
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
	return map[string]any{"records": n, "bytes": bytes, "seconds": secs,
		"mib_s": float64(bytes) / secs / (1 << 20), "records_s": float64(n) / secs}
}
