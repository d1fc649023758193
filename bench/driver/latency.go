package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runLatency produces fixed-size records at a fixed rate to a fresh TOPIC and consumes them
// in the same process; each record's value starts with its send time (monotonic nanoseconds
// since the run started), so latency = receive time - send time on one clock. Records sent
// during the warm-up are consumed but not counted. ack_* is produce call to acknowledgement.
func runLatency(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("latency", flag.ExitOnError)
	rateMiB := fl.Float64("rate-mib", 10, "target produce rate in MiB/s")
	size := fl.Int("record-size", 1024, "value bytes per record")
	seconds := fl.Float64("seconds", 10, "measured duration")
	warmup := fl.Float64("warmup-s", 2, "unmeasured warm-up before the measured duration")
	acks := fl.String("acks", "1", "1 or all")
	maxBatch := fl.Int("max-batch-bytes", 0, "franz-go's ProducerBatchMaxBytes (0: its default, 1,000,012)")
	trace := fl.Bool("trace", false, "add the consumer's Fetch round trips (rt_trace.go) to the result")
	_ = fl.Parse(argv)
	if *size < 8 {
		die("record-size must be >= 8")
	}

	popts := append(seeds(bootstrap), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression())) // franz-go compresses by default
	if *maxBatch > 0 {
		popts = append(popts, kgo.ProducerBatchMaxBytes(int32(*maxBatch)))
	}
	if *acks == "all" {
		popts = append(popts, kgo.RequiredAcks(kgo.AllISRAcks()))
	} else {
		popts = append(popts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	}
	prod, err := kgo.NewClient(popts...)
	if err != nil {
		die("producer: %v", err)
	}
	defer prod.Close()
	copts := append(seeds(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond))
	tr, self := newTrace(1), new(*kgo.Client)
	if *trace {
		copts = append(copts, tr.hooks(self))
	}
	cons, err := kgo.NewClient(copts...)
	if err != nil {
		die("consumer: %v", err)
	}
	*self = cons
	defer cons.Close()

	start := time.Now()
	warmNs := int64(*warmup * 1e9)
	endNs := warmNs + int64(*seconds*1e9)
	perSec := *rateMiB * (1 << 20) / float64(*size)
	total := int64(perSec * float64(endNs) / 1e9)
	measured := total - int64(perSec*float64(warmNs)/1e9)

	var mu sync.Mutex
	lat := make([]int64, 0, measured+16)
	var received, failed atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		for received.Load() < total {
			fs := cons.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			fs.EachError(func(t string, p int32, err error) { die("fetch %s/%d: %v", t, p, err) })
			now := int64(time.Since(start))
			mu.Lock()
			fs.EachRecord(func(r *kgo.Record) {
				sent := int64(binary.BigEndian.Uint64(r.Value))
				if sent >= warmNs {
					lat = append(lat, now-sent)
				}
				received.Add(1)
			})
			mu.Unlock()
		}
	}()

	filler := make([]byte, *size) // random bytes after the timestamp, sent uncompressed
	rand.Read(filler)
	var sent int64
	var ackMu sync.Mutex
	acksLat := make([]int64, 0, measured+16) // produce call to acknowledgement, measured records
	onDone := func(r *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
			return
		}
		now := int64(time.Since(start))
		if s := int64(binary.BigEndian.Uint64(r.Value)); s >= warmNs {
			ackMu.Lock()
			acksLat = append(acksLat, now-s)
			ackMu.Unlock()
		}
	}
	for sent < total {
		elapsed := int64(time.Since(start))
		due := int64(perSec * float64(elapsed) / 1e9)
		if due > total {
			due = total
		}
		for ; sent < due; sent++ {
			v := make([]byte, *size)
			copy(v[8:], filler)
			binary.BigEndian.PutUint64(v, uint64(time.Since(start)))
			prod.Produce(ctx, &kgo.Record{Value: v}, onDone)
		}
		time.Sleep(200 * time.Microsecond)
	}
	produceSecs := time.Since(start).Seconds()
	prod.Flush(ctx)
	select {
	case <-consumed:
	case <-time.After(15 * time.Second):
	}
	cancel()
	mu.Lock()
	defer mu.Unlock()
	ackMu.Lock()
	defer ackMu.Unlock()
	pctOf := func(xs []int64) func(float64) float64 {
		sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
		return func(p float64) float64 {
			if len(xs) == 0 {
				return -1
			}
			return float64(xs[int(p*float64(len(xs)-1))]) / 1e6
		}
	}
	pct, ack := pctOf(lat), pctOf(acksLat)
	res := map[string]any{
		"records_sent": sent, "records_received": received.Load(), "produce_errors": failed.Load(),
		"measured": len(lat), "achieved_mib_s": float64(sent) * float64(*size) / produceSecs / (1 << 20),
		"p50_ms": pct(0.50), "p99_ms": pct(0.99), "p999_ms": pct(0.999), "max_ms": pct(1.0),
		"ack_p50_ms": ack(0.50), "ack_p99_ms": ack(0.99),
	}
	if *trace {
		res["trace"] = tr.report()
	}
	emit(res)
}
